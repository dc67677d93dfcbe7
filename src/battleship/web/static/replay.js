// The replay page: a finished game move by move (step, play, pause), the moves named A1.. (the Dunman High
// paper's notation beside each), and beside the board the heat map the shooter saw before each shot (the
// DataGenetics walkthrough). Games between friends replay the same way, with the players' names.
"use strict";

let replay = null;    // /api/games/{id}/replay
let move = 0;         // moves shown so far
let step = 0;         // steps shown so far: moves, or under salvo rules salvos
let ends = [];        // the moves shown after each step
let timer = null;     // playing
const heatCache = new Map();
let board = [], heat = [];

// "computer": the second side's shots at the first side's fleet; "player": the first side's at the second's
function side() { return $("side").value; }
function shooterSide() { return side() === "computer" ? 1 : 0; }
function names() {
  const friend = replay.mode === "friend";
  return friend ? replay.names : ["You", "The computer"];
}
// The words for the view of side ``s``'s shots: the fleet they fire at, who fires, whose heat map.
function titles(s) {
  if (replay.mode !== "friend") {
    return s === 1 ? {fleet: "Your fleet", by: "the computer", heat: "The computer's heat map"}
      : {fleet: "The computer's fleet", by: "you", heat: "Your heat map"};
  }
  const [first, second] = replay.names;
  return s === 1 ? {fleet: `${first}'s fleet`, by: second, heat: `${second}'s heat map`}
    : {fleet: `${second}'s fleet`, by: first, heat: `${first}'s heat map`};
}
function shotsOf(s, upTo) { return replay.moves.slice(0, upTo).filter((m) => m.side === s); }
function salvosOf(s, upTo) { return replay.salvos.slice(0, upTo).filter((v) => v.side === s); }
// The cells the next step fires, if side ``s`` fires them: one move, or a salvo.
function nextCells(s) {
  if (replay.salvos) { const v = replay.salvos[step]; return v && v.side === s ? v.cells : []; }
  const m = replay.moves[move];
  return m && m.side === s ? [m.cell] : [];
}

function paintBoard() {
  const s = shooterSide(), layout = s === 1 ? replay.player_layout : replay.computer_layout;
  drawSide(board, replay.rules, shotsOf(s, move), layout, replay.mode === "friend" || s === 1 ? "own" : "revealed");
  if (replay.salvos) drawSalvos(board, replay.rules, shotsOf(s, move), salvosOf(s, step), null);
  const next = nextCells(s);
  next.forEach((c) => board[c].classList.add("best"));
  labelCells(board, replay.rules.cols);
  const words = titles(s), fired = shotsOf(s, move).length;
  $("board-title").textContent = words.fleet;
  $("board-label").textContent = (replay.salvos ? `${salvosOf(s, step).length} salvos (${fired} shots)` : `${fired} shots`)
    + ` by ${words.by}` + (next.length ? `; next: ${next.map((c) => cellName(c, replay.rules.cols)).join(" ")} (outlined)` : "");
}

async function paintHeat() {
  const who = side(), key = `${move}:${who}`, s = shooterSide();
  $("heat-title").textContent = titles(s).heat;
  if (!heatCache.has(key)) {
    try {
      heatCache.set(key, await api(`/api/games/${replay.id}/heat?move=${move}&side=${who}`));
    } catch (err) {  // e.g. salvos answered whole, where no exact count reads them: the heat map says why
      heat.forEach((b) => { b.className = "cell"; b.textContent = ""; b.style.background = ""; b.style.color = ""; });
      $("heat-scale").classList.add("hidden");
      $("heat-label").textContent = `No heat map: ${err.message}`;
      return;
    }
  }
  if (`${move}:${side()}` !== key) return;  // the viewer moved on while this loaded
  const h = heatCache.get(key), shot = new Set(shotsOf(s, move).map((m) => m.cell));
  const top = Math.max(...h.probability.filter((p, i) => !shot.has(i)), 1e-9), chance = {};
  heat.forEach((b, i) => {
    b.className = "cell"; b.textContent = "";
    if (shot.has(i)) { b.style.background = ""; b.style.color = ""; b.classList.add(h.probability[i] > 0.5 ? "hit" : "miss"); return; }
    b.style.background = heatColour(h.probability[i] / top); b.style.color = heatInk(h.probability[i] / top);
    b.textContent = Math.round(100 * h.probability[i]);
    chance[i] = `${Math.round(100 * h.probability[i])}% chance of a ship`;
  });
  nextCells(s).forEach((c) => heat[c].classList.add("best"));
  labelCells(heat, replay.rules.cols, chance);
  heatScale($("heat-scale"), top);
  $("heat-label").textContent = h.exact
    ? `percent chance of a ship on each square, exact over ${Number(h.layouts).toLocaleString()} layouts`
    : `percent chance of a ship on each square, estimated: ${h.note}`;
}

// The Dunman High paper's (x, y): column from the left, row from the bottom, both from 1.
function paperXY(cell) {
  const cols = replay.rules.cols, rows = replay.rules.rows;
  return `(${cell % cols + 1}, ${rows - Math.floor(cell / cols)})`;
}

function moveText(m) {
  const who = names()[m.side];
  if (m.words !== undefined) return `${who}: ${m.names.join(" ")}: ${m.words}`;  // a salvo
  const again = m.visit > 1 ? ` (shot ${m.visit} there)` : "";  // answers that lie: a square fired at again
  return `${who}: ${m.name}${again}, ${m.outcome}${m.ship ? " " + m.ship : ""}${m.flipped ? " (a lie)" : ""}`;
}

// The steps of the replay: one a move, or under salvo rules one a salvo (each listed with its answer).
function steps() { return replay.salvos || replay.moves; }

function show(k) {
  step = Math.max(0, Math.min(ends.length, k));
  move = step ? ends[step - 1] : 0;
  $("slider").value = step;
  const m = steps()[step - 1];
  $("at").textContent = `${step} of ${ends.length}` + (m ? `: ${moveText(m)}` : "");
  document.querySelectorAll("#moves li").forEach((li, i) => {
    li.classList.toggle("current", i === step - 1);
    li.setAttribute("aria-current", i === step - 1 ? "step" : "false");
  });
  const current = document.querySelector("#moves li.current");
  if (current) current.scrollIntoView({block: "nearest"});
  history.replaceState(null, "", `/replay?game=${replay.id}&move=${move}`);
  paintBoard();
  paintHeat();
}

function play() {
  if (timer) { clearInterval(timer); timer = null; $("play").textContent = "Play"; $("play").setAttribute("aria-label", "Play"); return; }
  if (step >= ends.length) show(0);
  $("play").textContent = "Pause"; $("play").setAttribute("aria-label", "Pause");
  timer = setInterval(() => { if (step >= ends.length) play(); else show(step + 1); }, Number($("speed").value));
}

function listMoves() {
  const list = $("moves");
  steps().forEach((m, i) => {
    const li = document.createElement("li");
    li.textContent = moveText(m) + " ";
    const xy = document.createElement("span");
    xy.className = "xy";
    const moves = replay.moves.slice(ends[i] - (m.cells ? m.cells.length : 1), ends[i]);
    xy.textContent = moves.map((one) => paperXY(one.cell)).join(" ");
    xy.title = `the Dunman High paper's notation: ${moves.map((one) => one.notation).join(" ")}`;
    li.appendChild(xy);
    li.className = m.side === 0 ? "player-move" : "computer-move";
    li.tabIndex = 0;
    li.addEventListener("click", () => show(i + 1));
    li.addEventListener("keydown", (e) => { if (e.key === "Enter") show(i + 1); });
    list.appendChild(li);
  });
}

function describe() {
  const r = replay.rules, [first, second] = names(), friend = replay.mode === "friend";
  $("title").textContent = friend ? `Replay: ${first} against ${second}, ${r.name} rules`
    : `Replay: ${r.name} rules, the computer playing ${replay.level.level} (${replay.level.shooter})`;
  const winner = friend ? names()[replay.winner === "player1" ? 0 : 1] : replay.winner === "player" ? "You" : "The computer";
  const how = replay.ended_by === "resigned" ? (friend ? ` (${names()[replay.winner === "player1" ? 1 : 0]} resigned)` : "") : replay.ended_by === "time" ? " on time" : "";
  const lead = !friend && replay.resigned ? "You resigned" : `${winner} won${how}`;
  $("summary").textContent = replay.salvos
    ? `${lead} after ${replay.salvos.length} salvos (${replay.moves.length} shots): ${salvoRuleWords(replay.rules.salvo)}. The outlined squares are the next salvo; the heat map is what its shooter could know then.`
    : `${lead} after ${replay.moves.length} moves. The outlined square is the next shot; the heat map is what its shooter could know then.`;
  let twist = twistWords(r, replay.cheating);
  if (replay.noise) twist += ` The truth: ${replay.noise.flipped[0]} answers to ${friend ? first : "you"} lied and ${replay.noise.flipped[1]} to ${friend ? second : "the computer"} (ringed in red; "a lie" in the moves). The referee's coins: ${replay.noise.coins}.`;
  if (replay.cheating) twist += " The computer's fleet shown is the layout it showed at the end: it fits every answer it gave.";
  $("twist").textContent = twist;
  $("side").options[0].textContent = friend ? `${second}'s view of ${first}'s fleet` : "the computer's view of your fleet";
  $("side").options[1].textContent = friend ? `${first}'s view of ${second}'s fleet` : "your view of the computer's fleet";
}

async function load() {
  const params = new URLSearchParams(location.search);
  const id = params.get("game");
  if (!id) { $("message").textContent = "No game given: open a replay from the end of a game, or from My games."; return; }
  try { replay = await api(`/api/games/${id}/replay`); }
  catch (err) {
    $("message").textContent = err.status === 404 || err.status === 400 ? "There is no game at this address: the link may be mistyped, or the game was deleted unfinished."
      : err.status === 409 ? "This game is not over yet: its replay opens at the end (it would show the hidden fleet)." : err.message;
    return;
  }
  const r = replay.rules;
  board = makeBoard($("board"), r.rows, r.cols, null, "The board at this move");
  heat = makeBoard($("heat"), r.rows, r.cols, null, "Heat map at this move");
  describe();
  ends = replay.salvos ? replay.salvos.map((v) => v.first + v.cells.length) : replay.moves.map((m, i) => i + 1);
  $("slider").max = ends.length;
  listMoves();
  $("slider").addEventListener("input", (e) => show(Number(e.target.value)));
  $("first").addEventListener("click", () => show(0));
  $("back").addEventListener("click", () => show(step - 1));
  $("forward").addEventListener("click", () => show(step + 1));
  $("last").addEventListener("click", () => show(ends.length));
  $("play").addEventListener("click", play);
  $("side").addEventListener("change", () => show(step));
  $("speed").addEventListener("change", () => { if (timer) { play(); play(); } });
  $("copy").addEventListener("click", async () => {
    try { await navigator.clipboard.writeText(location.href); $("message").textContent = "Link copied: " + location.href; }
    catch (err) { $("message").textContent = "Copy this link: " + location.href; }
  });
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT" || e.target.classList.contains("cell")) return;
    if (e.key === "ArrowRight") show(step + 1);
    if (e.key === "ArrowLeft") show(step - 1);
    if (e.key === " ") { e.preventDefault(); play(); }
  });
  const start = Number(params.get("move"));  // the address counts moves: the last step that ends by then
  show(Number.isInteger(start) && params.has("move") ? ends.filter((e) => e <= start).length : 0);
}

load();
