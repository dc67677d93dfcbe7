// The statistics page, per rules (custom rules apart): each level's win rate with its 95% interval, game
// lengths, where people put their ships and what the Adaptive level has learned (both only from 30
// distinct layouts, so that neither shows one player's layout).
"use strict";

const COLOURS = {random: "#56b4e9", "hunt-target": "#0072b2", probability: "#e69f00", best: "#009e73", learning: "#cc79a7", friend: "#d55e00"};
const INK = () => getComputedStyle(document.documentElement).getPropertyValue("--ink").trim() || "#1b1b1b";
let stats = null, charts = [];

// Chart.js draws the 95% intervals as whiskers (a line with caps) over each bar, and each bar's value
// above it, so a bar of zero reads as zero and an interval never passes for a bar.
const whiskers = {
  id: "whiskers",
  afterDatasetsDraw(chart, _args, options) {
    const {ctx, scales: {y}} = chart, meta = chart.getDatasetMeta(0);
    ctx.save();
    ctx.strokeStyle = ctx.fillStyle = INK();
    ctx.lineWidth = 1.5;
    ctx.font = "12px system-ui, sans-serif";
    ctx.textAlign = "center";
    meta.data.forEach((bar, i) => {
      const [lo, hi] = options.intervals[i], top = y.getPixelForValue(hi), bottom = y.getPixelForValue(lo);
      ctx.beginPath();
      ctx.moveTo(bar.x, top); ctx.lineTo(bar.x, bottom);
      ctx.moveTo(bar.x - 6, top); ctx.lineTo(bar.x + 6, top);
      ctx.moveTo(bar.x - 6, bottom); ctx.lineTo(bar.x + 6, bottom);
      ctx.stroke();
      ctx.fillText(options.labels[i], bar.x, top - 7);  // above the interval's cap, never on it
    });
    ctx.restore();
  },
};

function bars(canvas, modes) {
  const names = Object.keys(modes);
  const box = canvas.parentElement;
  box.querySelector("p")?.remove();
  if (!names.length) { canvas.classList.add("hidden"); box.insertAdjacentHTML("beforeend", "<p>No played games under these rules yet.</p>"); return; }
  canvas.classList.remove("hidden");
  const pct = (x) => Math.round(1000 * x) / 10;
  charts.push(new Chart(canvas, {
    type: "bar",
    data: {labels: names.map((m) => modes[m].level), datasets: [{label: "win rate", data: names.map((m) => pct(modes[m].win_rate)), backgroundColor: names.map((m) => COLOURS[m])}]},
    options: {
      maintainAspectRatio: false,
      animation: false,
      interaction: {mode: "index", intersect: false},  // a bar of zero has its tooltip too
      // room above 100% for the labels over the intervals; no tick past 100
      scales: {y: {min: 0, max: 112, title: AXIS("wins (% of games)"), ticks: {stepSize: 20, callback: (v) => (v <= 100 ? v : "")}},
               x: {title: AXIS("level")}},
      plugins: {
        legend: {display: false},
        whiskers: {intervals: names.map((m) => modes[m].win_rate_ci95.map(pct)), labels: names.map((m) => `${pct(modes[m].win_rate)}%`)},
        tooltip: {callbacks: {label: (c) => {
          const d = modes[names[c.dataIndex]], [lo, hi] = d.win_rate_ci95.map(pct);
          return `${c.raw}% of ${d.games} games (${d.wins} won); 95% interval ${lo}% .. ${hi}%`;
        }}},
      },
    },
    plugins: [whiskers],
  }));
}

// Each game's length in the rules' unit: moves (both sides' shots), or under salvo rules turns (both sides' salvos).
const lengths = (d, unit) => (unit === "turns" ? d.turns : d.moves);
const UNIT_WORDS = {moves: "moves in the game (both sides' shots)", turns: "turns in the game (both sides' salvos)"};

function histograms(canvas, modes, unit = "moves") {
  const all = Object.values(modes).flatMap((d) => lengths(d, unit));
  const box = canvas.parentElement;
  box.querySelector("p")?.remove();
  if (!all.length) { canvas.classList.add("hidden"); box.insertAdjacentHTML("beforeend", "<p>No played games under these rules yet.</p>"); return; }
  canvas.classList.remove("hidden");
  const lo = Math.min(...all), hi = Math.max(...all), width = Math.max(1, Math.ceil((hi - lo + 1) / 20));
  const bins = Math.ceil((hi - lo + 1) / width), labels = [];
  for (let i = 0; i < bins; i++) labels.push(width === 1 ? `${lo + i}` : `${lo + i * width}-${lo + (i + 1) * width - 1}`);
  // counts of games, drawn as steps: each bin is a whole number of games, nothing between bins
  const datasets = Object.entries(modes).map(([m, d], k) => {
    const count = Array(bins).fill(0);
    for (const v of lengths(d, unit)) count[Math.floor((v - lo) / width)] += 1;
    return {label: `${d.level} (${d.games} game${d.games === 1 ? "" : "s"})`, data: count, stepped: "middle",
            tension: 0, pointRadius: 2, borderColor: COLOURS[m], backgroundColor: COLOURS[m], borderDash: [[], [6, 3], [2, 3], [10, 3, 2, 3]][k % 4]};
  });
  charts.push(new Chart(canvas, {
    type: "line",
    data: {labels, datasets},
    options: {
      maintainAspectRatio: false,
      animation: false,
      interaction: {mode: "index", intersect: false},
      scales: {y: {min: 0, title: AXIS("games"), ticks: {precision: 0}}, x: {title: AXIS(UNIT_WORDS[unit])}},
      plugins: {tooltip: {callbacks: {title: (items) => `${items[0].label} ${unit}`, label: (c) => `${c.dataset.label}: ${c.raw} game${c.raw === 1 ? "" : "s"}`}}},
    },
  }));
}

function grid(element, rows, cols, values, colour, label) {
  const cells = makeBoard(element, rows, cols, null, label);
  const said = {};
  cells.forEach((b, i) => { const [bg, ink, text] = colour(values[i]); b.style.background = bg; b.style.color = ink; b.textContent = text; said[i] = String(text); });
  labelCells(cells, cols, said);
}

// diverging blue (less than uniform) to orange (more), colour-blind safe
function diverging(v, scale) {
  const t = Math.max(-1, Math.min(1, v / scale));
  const mix = (a) => Math.round(255 + (a - 255) * Math.abs(t));
  return t < 0 ? `rgb(${mix(0)},${mix(114)},${mix(178)})` : `rgb(${mix(230)},${mix(159)},${mix(0)})`;
}

function showPlacement(entry, r) {
  const p = entry.placement, box = $("placements");
  if (!p.share) {
    box.removeAttribute("role");
    box.textContent = `The map appears once people have used ${p.minimum} different layouts in as many played games under these rules (${p.layouts} so far), so that it never shows one player's layout.`;
    $("placement-scale").textContent = "";
    return;
  }
  const top = Math.max(...p.share, 1e-9);
  grid(box, r.rows, r.cols, p.share, (v) => [heatColour(v / top), heatInk(v / top), Math.round(100 * v)], "Share of layouts with a ship on each square");
  heatScale($("placement-scale"), top, `percent of ${p.layouts} different layouts with a ship on the square`);
}

function showLearning(entry, r) {
  const l = entry.learning, box = $("learning");
  box.removeAttribute("role");
  $("learning-scale").textContent = "";
  if (!l) {
    box.textContent = stats.learning_pending.includes(entry.key) ? "The Adaptive level's model is being fitted; reload in a moment."
      : "The Adaptive level does not play these rules (its model cannot be counted exactly under them).";
    return;
  }
  if (!l.minus_uniform) {
    box.textContent = `The Adaptive level learns once people have used ${l.minimum} different layouts in as many played games under these rules (${entry.placement.layouts} so far); until then it thinks every layout equally likely.`;
    return;
  }
  const scale = Math.max(...l.minus_uniform.map(Math.abs), 1e-4);
  grid(box, r.rows, r.cols, l.minus_uniform, (v) => [diverging(v, scale), "#1b1b1b", (100 * v).toFixed(1)], "Learned hit probability minus uniform");
  $("learning-scale").textContent = `Where people hide ships, as the Adaptive level has learned it: before its first shot, how many percentage points more (orange) or less (blue) likely it thinks a ship is on each square than if ships were placed at random. Learned from ${l.layouts} distinct layouts of played games.`;
}

function showRules(key) {
  const entry = stats.rules.find((e) => e.key === key);
  charts.forEach((c) => c.destroy());
  charts = [];
  const body = $("modes").querySelector("tbody");
  body.innerHTML = "";
  for (const [m, d] of Object.entries(entry.modes)) {
    const own = lengths(d, entry.unit), mean = (own.reduce((a, b) => a + b, 0) / own.length).toFixed(1);
    const rate = `${(100 * d.win_rate).toFixed(1)}% (${d.win_rate_ci95.map((x) => (100 * x).toFixed(1) + "%").join(" .. ")})`;
    const row = document.createElement("tr");
    for (const text of [m === "friend" ? "between friends" : `${d.level} (${m})`, d.games, d.wins, rate, mean]) {
      const td = document.createElement("td"); td.textContent = text; row.appendChild(td);
    }
    body.appendChild(row);
  }
  if (!Object.keys(entry.modes).length) body.innerHTML = "<tr><td colspan=5>No played games under these rules yet.</td></tr>";
  bars($("winrate"), entry.modes);
  histograms($("lengths"), entry.modes, entry.unit);
  $("length-unit").textContent = `mean ${entry.unit}`;
  $("length-words").textContent = entry.unit === "turns"
    ? "How many turns (both sides' salvos; a salvo is one turn, however many shots it fires) games lasted: the number of each level's games in each band of lengths, drawn as steps (counts, not a smoothed curve)."
    : "How many moves (both sides' shots) games lasted: the number of each level's games in each band of lengths, drawn as steps (counts, not a smoothed curve).";
  const r = {rows: entry.rows, cols: entry.cols};
  showPlacement(entry, r);
  showLearning(entry, r);
}

(async () => {
  stats = await api("/api/stats");
  $("total").textContent = `${stats.games} played games (a game counts once it ends in a sinking, or is given up or lost on time after both sides fired ten shots).`;
  for (const e of stats.rules) $("rules").add(new Option(`${e.label} (${e.games} game${e.games === 1 ? "" : "s"})`, e.key));
  $("rules").addEventListener("change", (e) => showRules(e.target.value));
  showRules($("rules").value);
})();
