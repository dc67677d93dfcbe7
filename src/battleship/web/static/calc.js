// The probability calculator (C. Liam Brown's): mark what you know of a board, read the chance of a ship on
// every square. Clicks are gathered for a moment before one request is sent, and a newer board cancels
// the request of an older one.
"use strict";

let catalogue, chooser, rules, marks, cells;
let timer = null, inFlight = null, last = null;
const PAUSE = 300;  // ms after the last click before asking

const HOW_TO_SINK = {
  none: "These rules never announce a sinking: mark hits and misses only.",
  sunk: "A sinking is announced without a name: mark the square whose shot sank the ship with # (the rest of the ship as hits).",
  named: "A sunk ship: give its letter to every square it covered, or only to the square whose shot sank it (the rest as hits).",
  revealed: "A sunk ship is shown: give its letter to every square it covered.",
};

// a cell's mark: "." unknown, "o" miss, "x" hit, or a ship's letter (sunk; "#" when unnamed)
function cycle(mark) {
  const sunk = rules.sinks === "none" ? [] : rules.sinks === "sunk" ? ["#"] : rules.fleet.map((s) => s.symbol);
  const order = [...new Set([".", "o", "x", ...sunk])];
  return order[(order.indexOf(mark) + 1) % order.length];
}

function text() {
  const rows = [];
  for (let r = 0; r < rules.rows; r++) rows.push(marks.slice(r * rules.cols, (r + 1) * rules.cols).join(""));
  return rows.join("/");
}

function draw(result) {
  const open = result ? result.probability.filter((q, j) => marks[j] === ".") : [];
  const top = Math.max(...open, 1e-9);
  cells.forEach((b, i) => {
    const m = marks[i];
    b.className = "cell"; b.style.background = ""; b.style.color = ""; b.textContent = "";
    if (m === "o") b.classList.add("miss");
    else if (m === "x") b.classList.add("hit");
    else if (m !== ".") { b.classList.add("sunk"); b.textContent = m; }
    else if (result) {
      const p = result.probability[i], t = p / top;
      b.style.background = heatColour(t); b.style.color = heatInk(t);
      if ($("percent").checked) b.textContent = Math.round(100 * p);
      if (result.best.includes(i)) b.classList.add("best");
    }
  });
  if (result) heatScale($("scale"), top); else $("scale").classList.add("hidden");
  const chance = {};
  if (result) marks.forEach((m, i) => { if (m === ".") chance[i] = `${Math.round(100 * result.probability[i])}% chance of a ship`; });
  labelCells(cells, rules.cols, chance);
}

function ask() {  // after a pause: one request for the board as it is then
  clearTimeout(timer);
  timer = setTimeout(update, PAUSE);
}

async function update() {
  if (inFlight) inFlight.abort();
  const mine = new AbortController();
  inFlight = mine;
  $("message").textContent = "Counting\u2026";
  try {
    const result = await api("/api/calc", {...chooser.body(), board: text(), skew: $("skew").checked}, mine.signal);
    if (inFlight !== mine) return;
    last = result;
    draw(result);
    $("message").textContent = "";
    $("notice").textContent = result.note ? (result.exact ? "" : "Estimated, not exact: ") + result.note : "";
    const best = result.best.map((c) => cellName(c, rules.cols)).join(", ");
    $("summary").textContent = result.over
      ? "The game is over: every ship is sunk, no square is left to find."
      : result.exact
        ? `${BigInt(result.layouts).toLocaleString()} layouts left; best: ${best}`
        : `best (estimated): ${best}`;
  } catch (err) {
    if (err.name === "AbortError" || inFlight !== mine) return;
    last = null;
    draw(null);
    $("message").textContent = err.message;
    $("notice").textContent = "";
    $("summary").textContent = "";
  }
}

async function choose(preset, toml) {
  if (preset) rules = preset;
  else {
    try { rules = await api("/api/rules/custom", {rules_toml: toml}); chooser.say(""); }
    catch (err) { chooser.say(err.message); return; }
  }
  marks = Array(rules.rows * rules.cols).fill(".");
  last = null;
  cells = makeBoard($("board"), rules.rows, rules.cols, (i) => { marks[i] = cycle(marks[i]); draw(last); ask(); }, "Board: click to cycle a square");
  $("how-to-sink").textContent = HOW_TO_SINK[rules.sinks];
  update();
}

(async () => {
  catalogue = await api("/api/rules");
  chooser = new RulesChooser($("rules"), $("rules-holder"), catalogue, choose, "battleship-calc-rules");
  $("percent").addEventListener("change", ask);
  $("skew").addEventListener("change", ask);
  $("clear").addEventListener("click", () => choose(chooser.preset, chooser.toml));
  choose(chooser.preset, chooser.toml);
})();
