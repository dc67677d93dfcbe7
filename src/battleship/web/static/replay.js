// The replay page: a finished game move by move (step, play, pause), the moves in the Dunman High paper's
// notation, and beside the board the heat map the shooter saw before each shot (the DataGenetics walkthrough).
"use strict";

let replay = null;    // /api/games/{id}/replay
let move = 0;         // moves shown so far
let timer = null;     // playing
const heatCache = new Map();
let board = [], heat = [];

function side() { return $("side").value; }  // whose shots: the computer's (at your fleet) or yours

function shotsOf(who, upTo) { return replay.moves.slice(0, upTo).filter((m) => m.player === who); }

function paintBoard() {
  const who = side(), layout = who === "computer" ? replay.player_layout : replay.computer_layout;
  const symbols = Object.fromEntries(replay.rules.fleet.map((s) => [s.name, s.symbol]));
  board.forEach((b) => { b.className = "cell"; b.textContent = ""; });
  layout.ships.forEach((s) => s.cells.forEach((c) => { board[c].classList.add(who === "computer" ? "ship" : "revealed"); }));
  for (const m of shotsOf(who, move)) {
    board[m.cell].classList.add(m.outcome === "miss" ? "miss" : m.outcome === "hit" ? "hit" : "sunk");
    if (m.outcome === "sunk") for (const c of m.cells || [m.cell]) {
      board[c].classList.remove("hit"); board[c].classList.add("sunk"); board[c].textContent = m.ship ? symbols[m.ship] : "#";
    }
  }
  const next = replay.moves[move];
  if (next && next.player === who) board[next.cell].classList.add("best");
  labelCells(board, replay.rules.cols);
  $("board-title").textContent = who === "computer" ? "Your fleet" : "The computer's fleet";
  $("board-label").textContent = `${shotsOf(who, move).length} shots by ${who === "computer" ? "the computer" : "you"}`
    + (next && next.player === who ? `; next: ${next.name} (outlined)` : "");
}

async function paintHeat() {
  const who = side(), key = `${move}:${who}`;
  $("heat-title").textContent = who === "computer" ? "The computer's heat map" : "Your heat map";
  if (!heatCache.has(key)) {
    try {
      heatCache.set(key, await api(`/api/games/${replay.id}/heat?move=${move}&side=${who}`));
    } catch (err) { $("message").textContent = err.message; return; }
  }
  if (`${move}:${side()}` !== key) return;  // the player moved on while this loaded
  const h = heatCache.get(key), shot = new Set(shotsOf(who, move).map((m) => m.cell));
  const top = Math.max(...h.probability.filter((p, i) => !shot.has(i)), 1e-9), chance = {};
  heat.forEach((b, i) => {
    b.className = "cell"; b.textContent = "";
    if (shot.has(i)) { b.style.background = ""; b.style.color = ""; b.classList.add(h.probability[i] > 0.5 ? "hit" : "miss"); return; }
    b.style.background = viridis(h.probability[i] / top); b.style.color = inkOn(h.probability[i] / top);
    b.textContent = Math.round(100 * h.probability[i]);
    chance[i] = `${Math.round(100 * h.probability[i])}% chance of a ship`;
  });
  const next = replay.moves[move];
  if (next && next.player === who) heat[next.cell].classList.add("best");
  labelCells(heat, replay.rules.cols, chance);
  $("heat-label").textContent = `percent chance of a ship on each square, exact over ${Number(h.layouts).toLocaleString()} layouts`;
}

function show(k) {
  move = Math.max(0, Math.min(replay.moves.length, k));
  $("slider").value = move;
  const m = replay.moves[move - 1];
  $("at").textContent = `${move} of ${replay.moves.length}` + (m ? `: ${m.notation} (${m.name}, ${m.outcome}${m.ship ? " " + m.ship : ""})` : "");
  document.querySelectorAll("#moves li").forEach((li, i) => {
    li.classList.toggle("current", i === move - 1);
    li.setAttribute("aria-current", i === move - 1 ? "step" : "false");
  });
  const current = document.querySelector("#moves li.current");
  if (current) current.scrollIntoView({block: "nearest"});
  history.replaceState(null, "", `/replay?game=${replay.id}&move=${move}`);
  paintBoard();
  paintHeat();
}

function play() {
  if (timer) { clearInterval(timer); timer = null; $("play").textContent = "Play"; $("play").setAttribute("aria-label", "Play"); return; }
  if (move >= replay.moves.length) show(0);
  $("play").textContent = "Pause"; $("play").setAttribute("aria-label", "Pause");
  timer = setInterval(() => { if (move >= replay.moves.length) play(); else show(move + 1); }, Number($("speed").value));
}

function listMoves() {
  const list = $("moves");
  replay.moves.forEach((m, i) => {
    const li = document.createElement("li");
    li.textContent = m.notation;
    li.title = `${m.name}: ${m.outcome}${m.ship ? " " + m.ship : ""}`;
    li.className = m.player === "player" ? "player-move" : "computer-move";
    li.tabIndex = 0;
    li.addEventListener("click", () => show(i + 1));
    li.addEventListener("keydown", (e) => { if (e.key === "Enter") show(i + 1); });
    list.appendChild(li);
  });
}

async function load() {
  const params = new URLSearchParams(location.search);
  const id = params.get("game");
  if (!id) { $("message").textContent = "No game given: open a replay from the end of a game."; return; }
  try { replay = await api(`/api/games/${id}/replay`); } catch (err) { $("message").textContent = err.message; return; }
  const r = replay.rules;
  board = makeBoard($("board"), r.rows, r.cols, null, "The board at this move");
  heat = makeBoard($("heat"), r.rows, r.cols, null, "Heat map at this move");
  $("title").textContent = `Replay: ${r.name} rules, the computer playing ${replay.mode}`;
  const who = replay.resigned ? "You resigned" : replay.winner === "player" ? "You won" : "The computer won";
  $("summary").textContent = `${who} after ${replay.moves.length} moves. The outlined square is the next shot; the heat map is what its shooter could know then.`;
  $("slider").max = replay.moves.length;
  listMoves();
  $("slider").addEventListener("input", (e) => show(Number(e.target.value)));
  $("first").addEventListener("click", () => show(0));
  $("back").addEventListener("click", () => show(move - 1));
  $("forward").addEventListener("click", () => show(move + 1));
  $("last").addEventListener("click", () => show(replay.moves.length));
  $("play").addEventListener("click", play);
  $("side").addEventListener("change", () => show(move));
  $("speed").addEventListener("change", () => { if (timer) { play(); play(); } });
  $("copy").addEventListener("click", async () => {
    try { await navigator.clipboard.writeText(location.href); $("message").textContent = "Link copied: " + location.href; }
    catch (err) { $("message").textContent = "Copy this link: " + location.href; }
  });
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT" || e.target.classList.contains("cell")) return;
    if (e.key === "ArrowRight") show(move + 1);
    if (e.key === "ArrowLeft") show(move - 1);
    if (e.key === " ") { e.preventDefault(); play(); }
  });
  const start = Number(params.get("move"));
  show(Number.isInteger(start) && params.has("move") ? start : 0);
}

load();
