// The game against the computer: choose rules and a level, place ships, play (or "play for me"), a heat map
// of your own view, rematch; the replay has its own page.
"use strict";

let catalogue = null;   // /api/rules
let chooser = null;     // the rules chooser (presets and custom rules)
let rules = null;       // the rules being set up or played
let placement = null;   // the placement editor
let game = null;        // the game's state from the server
let enemy = [], own = [];
let busy = false;
let aim = null;         // salvo rules: the squares marked for the salvo being aimed

const salvoGame = () => Boolean(game && game.salvo);
const salvoSize = () => (salvoGame() && game.status === "player-turn" ? game.salvo.player : 1);

// The levels as radio buttons: the level and what it does in plain words, the shooter it plays named beside.
function listLevels(saved) {
  for (const m of catalogue.modes) {
    $("mode").insertAdjacentHTML("beforeend", `<label><input type="radio" name="mode" value="${m.mode}">
      <span><b>${m.level}</b>: ${m.words}. <span class="shooter" data-mode="${m.mode}"></span></span></label>`);
  }
  const chosen = catalogue.modes.some((m) => m.mode === saved) ? saved : "best";
  document.querySelector(`#mode input[value="${chosen}"]`).checked = true;
}

function selectedMode() { return document.querySelector("#mode input:checked").value; }
function selectMode(mode) { document.querySelector(`#mode input[value="${mode}"]`).checked = true; }

function showMode() {  // the shooter each level plays under the chosen rules
  for (const m of catalogue.modes) {
    const shooter = chooser.preset ? chooser.preset.levels[m.mode] : m.shooter;
    const refused = chooser.preset && chooser.preset.refused && chooser.preset.refused[m.mode];
    document.querySelector(`#mode .shooter[data-mode="${m.mode}"]`).textContent = refused
      ? `(not under these rules: ${refused})` : `(${shooter}: ${m.source})`;
  }
  localStorage.setItem("battleship-mode", selectedMode());
}

let rulesAsked = 0;  // the latest rules asked for (an older answer arriving late is dropped)

async function setRules(preset, toml) {
  $("setup-message").textContent = "";
  const ticket = ++rulesAsked;
  if (preset) {
    rules = preset;
    $("about-rules").textContent = preset.about || "";
  } else {
    let read;
    try { read = await api("/api/rules/custom", {rules_toml: toml}); chooser.say(""); }
    catch (err) { if (ticket === rulesAsked) chooser.say(err.message); return; }
    if (ticket !== rulesAsked) return;
    rules = read;
    $("about-rules").textContent = `Custom rules: ${rules.rows}x${rules.cols}, ${rules.fleet.length} ships. ${twistWords(rules)}`;
  }
  placement = new Placement($("placement"), $("fleet"), rules, (text) => { $("setup-message").textContent = text; });
  showMode();
}

async function randomLayout() {
  if (chooser.custom) { placement.clear(); $("setup-message").textContent = "Under custom rules the server places your fleet at random when you start with none placed."; return; }
  placement.setLayout(await api(`/api/layout?rules=${rules.name}`));
}

async function start(layout, rulesBody) {
  const count = placement ? placement.count() : 0;
  if (layout === undefined && count && !placement.complete()) {
    $("setup-message").textContent = "Place every ship, or none for a random layout.";
    return;
  }
  $("start").disabled = true;
  $("rematch").disabled = true;
  const body = {...(rulesBody || chooser.body()), mode: selectedMode()};
  // what a long start waits for: a level that thinks is timed once under custom rules
  const timed = body.rules_toml && ["probability", "best", "learning"].includes(body.mode);
  $("setup-message").textContent = timed ? "Starting: timing the level under these rules (a few seconds, once)…" : "Starting…";
  try {
    const chosen = layout !== undefined ? layout : count ? placement.text() : null;
    game = await api("/api/games", {...body, layout: chosen});
  } catch (err) {
    $("setup-message").textContent = err.message;
    return;
  } finally { $("start").disabled = false; $("rematch").disabled = false; }
  $("setup-message").textContent = "";
  myGames.add({id: game.id, kind: "computer"});
  history.replaceState(null, "", `/?game=${game.id}`);
  beginPlay();
}

function beginPlay() {
  rules = game.rules;
  $("setup").classList.add("hidden");
  $("play").classList.remove("hidden");
  $("notice").textContent = game.notice || "";  // e.g. the level's exact graph still compiling
  $("message").textContent = "";
  enemy = makeBoard($("enemy"), rules.rows, rules.cols, onEnemyCell, "Enemy waters: fire at a square");
  if (salvoGame() && !aim) aim = new SalvoAim($("notice"), (cells) => fire(null, false, cells));
  if (aim) aim.clear();
  own = makeBoard($("own"), rules.rows, rules.cols, null, "Your fleet");
  render();
}

// A square of enemy waters clicked: fire at it, or under salvo rules (more than one shot a turn) mark it.
function onEnemyCell(cell) {
  if (salvoSize() > 1) aim.toggle(cell, new Set(game.player_shots.map((s) => s.cell)));
  else fire(cell);
}

function render() {
  const over = game.status === "over";
  drawSide(enemy, rules, game.player_shots, game.computer_layout, over ? "revealed" : null);
  drawSide(own, rules, game.computer_shots, game.player_layout, "own");
  if (salvoGame()) {
    drawSalvos(enemy, rules, game.player_shots, game.player_salvos, $("enemy-panel").querySelector("h2"));
    drawSalvos(own, rules, game.computer_shots, game.computer_salvos, document.querySelector(".own-panel h2"));
    aim.ready(game.status === "player-turn" && salvoSize() > 1 ? salvoSize() : 0, enemy);
  }
  $("enemy").classList.toggle("inert", game.status !== "player-turn");
  $("enemy").classList.toggle("noisy", Boolean(rules.noise));
  showTwist(over);
  showCounts(over);
  showTurn(over);
  $("resign").classList.toggle("hidden", over);
  for (const id of ["again", "rematch", "replaylink"]) $(id).classList.toggle("hidden", !over);
  if (over) $("replaylink").href = `/replay?game=${game.id}`;
  $("heat").parentElement.classList.toggle("hidden", Boolean(rules.noise));  // the calculator reads every answer as true
  if ($("heat").checked && !over && !rules.noise) heatMap(); else $("heat-scale").classList.add("hidden");
}

// The banner of noisy rules or a cheating computer; at the end, the truth (the lies told, the layout shown).
function showTwist(over) {
  let text = twistWords(rules, game.cheating);
  if (over && game.noise) {
    const [mine, theirs] = game.noise.flipped;
    text += ` The truth: ${mine} of the answers to your shots lied, and ${theirs} of the answers to the computer's (ringed in red).`;
  }
  if (over && game.cheating) text += " The fleet shown is one that fits every answer the computer gave.";
  $("twist").textContent = text;
}

function showCounts(over) {
  const left = game.computer_ships_left;  // the server's count: true once the fleet is shown
  $("my-shots").textContent = game.player_shots.length;
  if (salvoGame()) {  // salvo rules: turns counted, shots beside them
    $("my-shots").textContent = game.player_salvos.length;
    $("my-shots").nextElementSibling.textContent = `your salvos (${game.player_shots.length} shots)`;
  }
  $("afloat").textContent = left === null ? "?" : left;
  $("afloat").title = left === null ? "these rules never say when a ship sinks" : "";
  $("their-shots").textContent = game.computer_shots.length;
  // the level's short name; its shooter's spec (long, unbroken) in the tooltip
  $("their-label").textContent = `shots by the computer (${game.level.level})`;
  if (salvoGame()) {
    $("their-shots").textContent = game.computer_salvos.length;
    $("their-label").textContent = `salvos by the computer (${game.level.level}; ${game.computer_shots.length} shots)`;
  }
  $("their-label").title = `the ${game.level.level} level plays ${game.level.shooter}`;
  $("mine-afloat").textContent = game.player_ships_left;
}

function showTurn(over) {
  const turn = $("turn");
  $("enemy-panel").classList.toggle("active", game.status === "player-turn");
  turn.className = "turn " + (over ? "over" : game.status === "player-turn" ? "player" : "computer");
  const size = salvoSize();
  if (!over) {
    turn.textContent = game.status !== "player-turn" ? "The computer is aiming\u2026"
      : size > 1 ? `Your turn: mark ${size} squares of enemy waters, then fire them together (${salvoRuleWords(game.salvo)}).`
      : "Your turn: fire at a square of enemy waters.";
    return;
  }
  const took = (shots, salvos) => (salvos ? `${salvos.length} turns (${shots.length} shots)` : `${shots.length} shots`);
  turn.textContent = game.resigned ? "You resigned: the computer's fleet is shown."
    : game.winner === "player" ? `You won in ${took(game.player_shots, game.player_salvos)}!`
    : `The computer won in ${took(game.computer_shots, game.computer_salvos)}.`;
}

function boardText() {
  const symbol = Object.fromEntries(rules.fleet.map((s) => [s.name, s.symbol]));
  const grid = Array(rules.rows * rules.cols).fill(".");
  for (const s of game.player_shots) {
    if (s.outcome === "miss") grid[s.cell] = "o";
    else if (s.outcome === "hit") grid[s.cell] = grid[s.cell] === "." ? "x" : grid[s.cell];
    else if (s.cells && rules.sinks === "revealed") s.cells.forEach((c) => { grid[c] = symbol[s.ship]; });
    else grid[s.cell] = s.ship ? symbol[s.ship] : "#";
  }
  const rows = [];
  for (let r = 0; r < rules.rows; r++) rows.push(grid.slice(r * rules.cols, (r + 1) * rules.cols).join(""));
  return rows.join("/");
}

async function heatMap() {
  try {
    const board = game.player_board || boardText();  // salvo rules: the server's board text, salvos and all
    const body = rules.toml ? {rules_toml: rules.toml, board} : {rules: rules.name, board};
    const calc = await api("/api/calc", body);
    const fired = new Set(game.player_shots.map((s) => s.cell));
    const top = Math.max(...calc.probability.filter((p, i) => !fired.has(i)), 1e-9), chance = {};
    calc.probability.forEach((p, i) => {
      if (fired.has(i)) return;
      enemy[i].style.background = heatColour(p / top);
      enemy[i].style.color = heatInk(p / top);
      chance[i] = `${Math.round(100 * p)}% chance of a ship`;
    });
    labelCells(enemy, rules.cols, chance);
    heatScale($("heat-scale"), top);
    if (!calc.exact) $("notice").textContent = "The heat map is an estimate: " + calc.note;
  } catch (err) { $("message").textContent = err.message; }
}

function fallbackNotice(move, who) {
  if (move && move.fallback) $("notice").textContent = `${who}: ${move.fallback}; the quick density shooter (${move.shooter}) chose this shot.`;
  else if (move && move.note) $("notice").textContent = `${who}: ${move.note}.`;
}

async function fire(cell, auto, cells) {
  if (busy || !game || game.status !== "player-turn") return;
  // fired squares do nothing, save under answers that lie (where a square may be fired at again)
  if (!auto && !cells && !rules.noise && game.player_shots.some((s) => s.cell === cell)) return;
  busy = true;
  $("notice").textContent = "";
  try {
    // the computer's reply comes back with the shot: one request a move (reply: null when the shot ended it)
    const mine = await api(`/api/games/${game.id}/fire`, {...(auto ? {auto: true} : cells ? {cells} : {cell}), reply: true});
    game = mine.state;
    let text = mine.salvo ? describeSalvo(mine.salvo, "You") : describeShot(mine.shot, "You", rules.cols);
    fallbackNotice(mine.auto, "Play for me");
    if (aim) aim.clear();
    render();
    if (mine.salvo) announceSalvo(enemy, mine.salvo, mine.shots); else announce(enemy, mine.shot);
    $("message").textContent = text;
    if (mine.reply) text += " " + computerReply(mine.reply);
    else if (game.status === "computer-turn") text += " " + await computerMove();  // a reply that did not come
    $("message").textContent = text;
    if (game.status === "over") sound.play(game.winner === "player" ? "win" : "lose");
  } catch (err) {
    $("message").textContent = err.message;
  } finally {
    busy = false;
    $("retry").classList.toggle("hidden", !game || game.status !== "computer-turn");  // never stuck "aiming"
  }
  if ($("playforme").checked && game.status === "player-turn") setTimeout(() => fire(null, true), 150);
}

// The computer's move: drawn, announced, and said in words (which the caller shows).
async function computerMove() {
  const theirs = await api(`/api/games/${game.id}/computer`, {});
  game = theirs.state;
  return computerReply(theirs);
}

// The computer's move as an answer holds it (its shot or salvo, and who chose it), the state already drawn.
function computerReply(theirs) {
  fallbackNotice(theirs.computer, "The computer");
  render();
  if (theirs.salvo) {
    setTimeout(() => announceSalvo(own, theirs.salvo, theirs.shots), 250);
    return describeSalvo(theirs.salvo, "The computer");
  }
  setTimeout(() => announce(own, theirs.shot), 250);
  return describeShot(theirs.shot, "The computer", rules.cols);
}

async function retry() {
  if (busy) return;
  busy = true;
  $("retry").classList.add("hidden");
  try { $("message").textContent = await computerMove(); }
  catch (err) { $("message").textContent = err.message; }
  finally {
    busy = false;
    $("retry").classList.toggle("hidden", game.status !== "computer-turn");
  }
}

async function resign() {
  if (!(await confirmDialog("Give up this game? The computer wins and both fleets are shown.", "Resign", "Keep playing"))) return;
  try { game = await api(`/api/games/${game.id}/resign`, {}); render(); sound.play("lose"); }
  catch (err) { $("message").textContent = err.message; }
}

function newGame() {  // back to the setup, the rules and the level as they were
  game = null;
  history.replaceState(null, "", "/");
  $("play").classList.add("hidden");
  $("setup").classList.remove("hidden");
  $("playforme").checked = false;
}

function rematch() {  // the same rules, level and fleet, at once
  selectMode(game.mode);
  start(game.player_layout.notation, rules.toml ? {rules_toml: rules.toml} : {rules: rules.name});
}

async function resume(id) {
  try { game = await api(`/api/games/${id}`); }
  catch (err) {
    $("setup-message").textContent = err.status === 404 || err.status === 400
      ? "That game is not here any more: unfinished games are deleted after a day without a move. Start a new one."
      : err.message;
    history.replaceState(null, "", "/");
    return;
  }
  beginPlay();
  if (game.status === "computer-turn") retry();
}

async function load() {
  catalogue = await api("/api/rules");
  listLevels(localStorage.getItem("battleship-mode"));
  chooser = new RulesChooser($("rules"), $("rules-holder"), catalogue, setRules, "battleship-rules");
  await setRules(chooser.preset, chooser.toml);
  $("mode").addEventListener("change", showMode);
  $("rotate").addEventListener("click", () => placement.rotate());
  document.addEventListener("keydown", (e) => {
    if ((e.key === "r" || e.key === "R") && !$("setup").classList.contains("hidden") && !/INPUT|TEXTAREA|SELECT/.test(e.target.tagName)) placement.rotate();
  });
  $("random").addEventListener("click", randomLayout);
  $("clear").addEventListener("click", () => placement.clear());
  $("start").addEventListener("click", () => start());
  $("resign").addEventListener("click", resign);
  $("retry").addEventListener("click", retry);
  $("again").addEventListener("click", newGame);
  $("rematch").addEventListener("click", rematch);
  $("playforme").addEventListener("change", (e) => { if (e.target.checked) fire(null, true); });
  $("heat").addEventListener("change", () => render());
  const params = new URLSearchParams(location.search);
  if (params.get("game")) await resume(params.get("game"));
}

load();
