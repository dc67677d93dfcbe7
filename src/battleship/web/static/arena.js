// The arena page: a saved run of `battleship arena` as a leaderboard, a chart and the head-to-head table.
"use strict";
let chart = null;

function cell(row, text, left) {
  const td = document.createElement("td");
  td.textContent = text;
  if (left) td.style.textAlign = "left";
  row.appendChild(td);
}

const fixed = (x, d = 2) => (x === null || x === undefined ? "-" : Number(x).toFixed(d));
const interval = (ci, d = 2) => `${fixed(ci[0], d)} .. ${fixed(ci[1], d)}`;
const signed = (x) => (x >= 0 ? "+" : "") + fixed(x);

function forfeitText(counts) {
  const parts = Object.entries(counts || {}).filter(([, n]) => n);
  const total = parts.reduce((s, [, n]) => s + n, 0);
  return total ? `${total} (${parts.map(([c, n]) => `${n} ${c}`).join(", ")})` : "0";
}

function showBoard(run) {
  const body = $("board").tBodies[0];
  body.replaceChildren();
  for (const r of run.leaderboard) {
    const tr = body.insertRow();
    const t = r.time_per_shot_ms || {};
    cell(tr, r.rank ?? "");
    const who = [r.entrant ? `entrant ${r.entrant}` : "", r.author && r.author !== r.entrant ? `claims ${r.author}` : ""];
    cell(tr, r.bot + (r.name ? ` (${r.name})` : "") + who.filter(Boolean).map((w) => `; ${w}`).join(""), true);
    cell(tr, r.kind ?? "");
    cell(tr, `${fixed(r.mean)} (${interval(r.ci95)})` + (run.interrupted ? ` over ${r.games} games` : ""));
    cell(tr, r.minus_leader_ci95 ? `${signed(r.minus_leader)} (${interval(r.minus_leader_ci95)})` : "");
    cell(tr, forfeitText(r.forfeits));
    cell(tr, fixed(t.median, 3));
    cell(tr, fixed(t.worst, 3));
  }
}

function showChart(run) {
  const rows = run.leaderboard;
  if (chart) chart.destroy();
  chart = new Chart($("means"), {
    type: "bar",
    data: {
      labels: rows.map((r) => r.bot),
      datasets: [
        {label: "mean shots", data: rows.map((r) => r.mean), backgroundColor: "#56b4e9", order: 2},
        {label: "95% interval", data: rows.map((r) => r.ci95), backgroundColor: "#1b1b1b",
         barPercentage: 0.08, grouped: false, order: 1},
      ],
    },
    options: {
      indexAxis: "y",
      maintainAspectRatio: false,
      animation: false,
      scales: {x: {beginAtZero: true, title: AXIS(`shots to sink the fleet (fewer is better; a forfeit scores ${run.forfeit_score ?? "every cell"})`)},
               y: {title: AXIS("bot")}},
      plugins: {legend: {display: false}, tooltip: {callbacks: {label: (c) => {
        const r = rows[c.dataIndex];
        return c.datasetIndex ? `95% interval ${interval(c.raw)}` : `${fixed(r.mean)} shots a game over ${run.games} games`;
      }}}},
    },
  });
}

function showRatings(run) {
  const body = $("ratings").tBodies[0];
  body.replaceChildren();
  for (const r of run.ratings || []) {
    const tr = body.insertRow();
    cell(tr, r.rank ?? "");
    cell(tr, r.bot + (r.in_run ? "" : " (not in this run)"), true);
    cell(tr, fixed(r.ordinal));
    cell(tr, fixed(r.mu));
    cell(tr, fixed(r.sigma));
    cell(tr, r.games);
    cell(tr, r.runs);
    cell(tr, r.change === null || r.change === undefined ? "" : signed(r.change));
  }
  $("rating-box").hidden = !(run.ratings && run.ratings.length);
}

function showKey(run) {
  // the commitment was printed before the first game; the key, revealed now, lets anyone check the battlefields
  $("key").textContent = run.key
    ? `Key ${run.key} (SHA-256 ${run.commitment}); battlefields SHA-256 ${run.battlefields}. ` +
      "Check them with battleship arena --verify on the results file."
    : "";
}

function showForfeits(run) {
  const list = $("forfeits");
  list.replaceChildren();
  const all = [...run.leaderboard.flatMap((r) => (r.forfeit_examples || []).map((e) => ({bot: r.bot, ...e}))),
               ...(run.matches || []).flatMap((m) => (m.forfeit_examples || []).map((e) => ({...e, bot: `${e.bot} (against ${e.bot === m.a ? m.b : m.a})`})))];
  for (const e of all) {
    const li = document.createElement("li");
    li.textContent = `${e.bot}, game ${e.game}: ${e.cause}: ${e.detail}`;
    list.appendChild(li);
  }
  $("forfeit-box").hidden = !all.length;
}

function showMatches(run) {
  const body = $("matches").tBodies[0];
  body.replaceChildren();
  for (const m of run.matches || []) {
    const tr = body.insertRow();
    cell(tr, m.a, true);
    cell(tr, m.b, true);
    cell(tr, `${m.a_wins}/${m.games}`);
    cell(tr, `${fixed(m.a_win_rate, 3)} (${interval(m.a_win_rate_ci95, 3)})`);
    cell(tr, m.a_forfeits);
    cell(tr, m.b_forfeits);
  }
  $("match-box").hidden = !(run.matches && run.matches.length);
}

function show(run, where) {
  if (!run || !Array.isArray(run.leaderboard) || typeof run.games !== "number") {
    $("about").textContent = `${where} is not an arena run saved by battleship arena --out.`;
    return;
  }
  const drawn = run.seed === null || run.seed === undefined ? "a secret key" : `seed ${run.seed}`;
  $("about").textContent = `${where}: ${run.rules}, ${run.games.toLocaleString()} battlefields ` +
    `(${run.generator ?? "uniform"} layouts, ${drawn}), ${run.time_limit ?? "?"} s a shot` +
    (run.jail === "unconfined" ? "; program bots ran unconfined" : "") +
    (run.jail !== "unconfined" && run.caches === "shared" ? "; the kernel's caches were shared between bots" : "") +
    (run.interrupted ? "; interrupted: each bot's games so far." : ".");
  showBoard(run);
  showChart(run);
  showRatings(run);
  showKey(run);
  showForfeits(run);
  showMatches(run);
}

async function loadRun(id) {
  let body;
  try { body = await api(`/api/arena/${encodeURIComponent(id)}`); }
  catch (e) { $("about").textContent = e.message; return; }
  show(body, `Run ${id}`);
  history.replaceState(null, "", `/arena?run=${encodeURIComponent(id)}`);
}

async function start() {
  const body = await api("/api/arena");
  const select = $("runs");
  for (const run of body.runs) {
    const option = document.createElement("option");
    option.value = run.id;
    option.textContent = run.error ? `${run.id} (cannot be read)` : `${run.id}: ${run.rules}, ${run.games} games, ${run.bots.length} bots`;
    select.appendChild(option);
  }
  select.onchange = () => loadRun(select.value);
  $("file").onchange = async () => {
    const file = $("file").files[0];
    if (!file) return;
    try { show(JSON.parse(await file.text()), file.name); }
    catch (e) { $("about").textContent = `${file.name} is not JSON: ${e.message}`; }
  };
  const wanted = new URLSearchParams(location.search).get("run");
  if (!body.runs.length) {
    $("about").textContent = "No run is on show: start the server with --arena results.json, or open a results file.";
    return;
  }
  select.value = body.runs.some((r) => r.id === wanted) ? wanted : body.runs[0].id;
  loadRun(select.value);
}

start();
