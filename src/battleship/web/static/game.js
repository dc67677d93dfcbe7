// The game page: place ships, play the computer, "play for me", heat map; the replay has its own page.
"use strict";

let catalogue = null;   // /api/rules
let rules = null;       // the chosen rules
let placed = [];        // per ship: its cells, or null
let active = 0;         // the ship being placed
let vertical = false;
let hover = null;
let placement = [];     // the placement board's cells
let game = null;        // the game's state from the server
let enemy = [], own = [];
let busy = false;

function fleetSymbols() { return Object.fromEntries(rules.fleet.map((s) => [s.name, s.symbol])); }

function shipCells(index, anchor, down) {
  const size = rules.fleet[index].size, r = Math.floor(anchor / rules.cols), c = anchor % rules.cols;
  const out = [];
  for (let k = 0; k < size; k++) {
    const rr = down ? r + k : r, cc = down ? c : c + k;
    if (rr >= rules.rows || cc >= rules.cols) return null;
    out.push(rr * rules.cols + cc);
  }
  return out;
}

function fits(index, cells) {
  if (!cells) return false;
  for (let j = 0; j < placed.length; j++) {
    if (j === index || !placed[j]) continue;
    for (const a of cells) for (const b of placed[j]) {
      const dr = Math.abs(Math.floor(a / rules.cols) - Math.floor(b / rules.cols)), dc = Math.abs(a % rules.cols - b % rules.cols);
      if (a === b) return false;
      if (rules.spacing === "no-contact" && dr <= 1 && dc <= 1) return false;
      if (rules.spacing === "no-edge" && dr + dc === 1) return false;
    }
  }
  return true;
}

function drawPlacement() {
  const owner = new Map();
  placed.forEach((cells, j) => cells && cells.forEach((c) => owner.set(c, j)));
  const preview = hover === null || placed[active] ? null : shipCells(active, hover, vertical);
  const ok = fits(active, preview);
  placement.forEach((b, i) => {
    b.className = "cell";
    b.textContent = "";
    if (owner.has(i)) { b.classList.add("ship"); b.textContent = rules.fleet[owner.get(i)].symbol; }
    if (preview && preview.includes(i)) b.classList.add(ok ? "preview" : "bad");
  });
  labelCells(placement, rules.cols);
  const fleet = $("fleet");
  fleet.innerHTML = "";
  rules.fleet.forEach((ship, j) => {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = `${ship.name} (${ship.size})`;
    b.className = (placed[j] ? "placed " : "") + (j === active && !placed[j] ? "active" : "");
    b.addEventListener("click", () => { placed[j] = null; active = j; drawPlacement(); });
    fleet.appendChild(b);
  });
}

function drop(cell) {
  const owner = placed.findIndex((cells) => cells && cells.includes(cell));
  if (owner >= 0 && (placed[active] || owner !== active)) {  // pick a placed ship up again
    placed[owner] = null; active = owner; hover = cell; drawPlacement(); return;
  }
  const cells = shipCells(active, cell, vertical);
  if (!fits(active, cells)) { $("setup-message").textContent = "That ship does not fit there."; return; }
  placed[active] = cells;
  $("setup-message").textContent = "";
  const next = placed.findIndex((p) => !p);
  active = next >= 0 ? next : active;
  drawPlacement();
}

function layoutText() {
  const grid = Array(rules.rows * rules.cols).fill(".");
  placed.forEach((cells, j) => cells.forEach((c) => { grid[c] = rules.fleet[j].symbol; }));
  const rows = [];
  for (let r = 0; r < rules.rows; r++) rows.push(grid.slice(r * rules.cols, (r + 1) * rules.cols).join(""));
  return rows.join("/");
}

function chooseRules(name) {
  rules = catalogue.rules.find((r) => r.name === name);
  placed = rules.fleet.map(() => null);
  active = 0;
  let fromPointer = false;  // a pointer already handled this press: skip the click that follows
  placement = makeBoard($("placement"), rules.rows, rules.cols, (i) => {
    if (fromPointer) { fromPointer = false; return; }
    drop(i);  // keyboard (Enter or Space) or a click without pointer events
  }, "Your fleet: place your ships");
  placement.forEach((b, i) => {
    b.addEventListener("pointerenter", () => { hover = i; drawPlacement(); });
    b.addEventListener("pointermove", (e) => {  // touch keeps the pointer on the first cell: follow the finger
      const under = document.elementFromPoint(e.clientX, e.clientY);
      if (under && under.dataset && under.dataset.cell !== undefined && Number(under.dataset.cell) !== hover) {
        hover = Number(under.dataset.cell); drawPlacement();
      }
    });
    b.addEventListener("pointerdown", () => {  // pressing on a placed ship picks it up, to drag it
      const owner = placed.findIndex((cells) => cells && cells.includes(i));
      if (owner >= 0) { placed[owner] = null; active = owner; hover = i; drawPlacement(); }
    });
    b.addEventListener("pointerup", (e) => {
      fromPointer = true;
      const under = document.elementFromPoint(e.clientX, e.clientY);
      const cell = under && under.dataset && under.dataset.cell !== undefined ? Number(under.dataset.cell) : i;
      if (!placed[active]) drop(cell);
    });
    b.addEventListener("focus", () => { hover = i; drawPlacement(); });
  });
  drawPlacement();
}

async function randomLayout() {
  const layout = await api(`/api/layout?rules=${rules.name}`);
  placed = layout.ships.map((s) => s.cells);
  drawPlacement();
}

async function start() {
  const count = placed.filter(Boolean).length;
  if (count && count < placed.length) { $("setup-message").textContent = "Place every ship, or none for a random layout."; return; }
  try {
    game = await api("/api/games", {rules: rules.name, mode: $("mode").value, layout: count ? layoutText() : null});
  } catch (err) { $("setup-message").textContent = err.message; return; }
  localStorage.setItem("battleship-game", game.id);
  history.replaceState(null, "", `/?game=${game.id}`);
  beginPlay();
}

function beginPlay() {
  rules = game.rules;
  $("setup").classList.add("hidden");
  $("play").classList.remove("hidden");
  enemy = makeBoard($("enemy"), rules.rows, rules.cols, fire, "Enemy waters: fire at a cell");
  own = makeBoard($("own"), rules.rows, rules.cols, null, "Your fleet");
  render();
}

function describe(shot, who) {
  const name = cellName(shot.cell, rules.cols);
  if (shot.outcome === "miss") return `${who} fired at ${name}: miss.`;
  if (shot.outcome === "hit") return `${who} fired at ${name}: hit!`;
  return `${who} fired at ${name}: ${shot.ship ? "sank the " + shot.ship : "sank a ship"}!`;
}

function drawShots(cells, shots) {
  const symbols = fleetSymbols();
  shots.forEach((s) => {
    const b = cells[s.cell];
    b.classList.add(s.outcome === "miss" ? "miss" : s.outcome === "hit" ? "hit" : "sunk");
    if (s.outcome === "sunk") {
      for (const c of s.cells || [s.cell]) { cells[c].classList.remove("hit"); cells[c].classList.add("sunk"); cells[c].textContent = s.ship ? symbols[s.ship] : "#"; }
    }
  });
}

function render() {
  enemy.forEach((b) => { b.className = "cell"; b.textContent = ""; b.style.background = ""; b.style.color = ""; });
  own.forEach((b) => { b.className = "cell"; b.textContent = ""; });
  game.player_layout.ships.forEach((s) => s.cells.forEach((c) => { own[c].classList.add("ship"); }));
  drawShots(enemy, game.player_shots);
  drawShots(own, game.computer_shots);
  const over = game.status === "over";
  if (over && game.computer_layout) {
    const symbols = fleetSymbols();
    game.computer_layout.ships.forEach((s) => s.cells.forEach((c) => {
      enemy[c].classList.add("revealed");
      if (!enemy[c].textContent) enemy[c].textContent = symbols[s.name];
    }));
  }
  labelCells(enemy, rules.cols);
  labelCells(own, rules.cols);
  showCounts(over);
  showTurn(over);
  $("resign").classList.toggle("hidden", over);
  $("again").classList.toggle("hidden", !over);
  $("replaylink").classList.toggle("hidden", !over);
  if (over) {
    $("replaylink").href = `/replay?game=${game.id}`;
    localStorage.removeItem("battleship-game");
  }
  if ($("heat").checked && !over) heatMap();
}

function showCounts(over) {
  const left = game.computer_ships_left;
  $("my-shots").textContent = game.player_shots.length;
  $("afloat").textContent = over ? 0 : left === null ? "?" : left;
  $("afloat").title = left === null ? "these rules never say when a ship sinks" : "";
  $("their-shots").textContent = game.computer_shots.length;
  $("their-label").textContent = `computer's shots (${game.mode})`;
  const sunk = game.computer_shots.filter((s) => s.outcome === "sunk").length;
  $("mine-afloat").textContent = rules.sinks === "none" ? "?" : rules.fleet.length - sunk;
}

function showTurn(over) {
  const turn = $("turn");
  $("enemy-panel").classList.toggle("active", game.status === "player-turn");
  turn.className = "turn " + (over ? "over" : game.status === "player-turn" ? "player" : "computer");
  if (!over) {
    turn.textContent = game.status === "player-turn" ? "Your turn: fire at a square of enemy waters."
      : "The computer is aiming\u2026";
    return;
  }
  turn.textContent = game.resigned ? "You resigned: the computer's fleet is shown."
    : game.winner === "player" ? `You won in ${game.player_shots.length} shots!`
    : `The computer won in ${game.computer_shots.length} shots.`;
}

function boardText() {
  const symbols = fleetSymbols();
  const grid = Array(rules.rows * rules.cols).fill(".");
  for (const s of game.player_shots) {
    if (s.outcome === "miss") grid[s.cell] = "o";
    else if (s.outcome === "hit") grid[s.cell] = "x";
    else if (s.cells) s.cells.forEach((c) => { grid[c] = symbols[s.ship]; });
    else grid[s.cell] = s.ship ? symbols[s.ship] : "#";
  }
  const rows = [];
  for (let r = 0; r < rules.rows; r++) rows.push(grid.slice(r * rules.cols, (r + 1) * rules.cols).join(""));
  return rows.join("/");
}

async function heatMap() {
  try {
    const calc = await api("/api/calc", rules.toml ? {rules_toml: rules.toml, board: boardText()} : {rules: rules.name, board: boardText()});
    const top = Math.max(...calc.probability.filter((p, i) => !game.player_shots.some((s) => s.cell === i)), 1e-9);
    const chance = {};
    calc.probability.forEach((p, i) => {
      if (game.player_shots.some((s) => s.cell === i)) return;
      enemy[i].style.background = viridis(p / top);
      enemy[i].style.color = inkOn(p / top);
      chance[i] = `${Math.round(100 * p)}% chance of a ship`;
    });
    labelCells(enemy, rules.cols, chance);
  } catch (err) { $("message").textContent = err.message; }
}

async function fire(cell, auto) {
  if (busy || !game || game.status !== "player-turn") return;
  busy = true;
  try {
    const mine = await api(`/api/games/${game.id}/fire`, auto ? {auto: true} : {cell});
    game = mine.state;
    let text = describe(mine.shot, "You");
    render();
    $("message").textContent = text;
    if (game.status === "computer-turn") {
      const theirs = await api(`/api/games/${game.id}/computer`, {});
      game = theirs.state;
      text += " " + describe(theirs.shot, "The computer");
      render();
    }
    if (game.status !== "over") $("message").textContent = text;
  } catch (err) {
    $("message").textContent = err.message;
  } finally {
    busy = false;
  }
  if ($("playforme").checked && game.status === "player-turn") setTimeout(() => fire(null, true), 150);
}

async function load() {
  catalogue = await api("/api/rules");
  for (const r of catalogue.rules) $("rules").add(new Option(r.name, r.name));
  for (const [mode, text] of Object.entries(catalogue.modes)) $("mode").add(new Option(text, mode));
  $("mode").value = "best";
  chooseRules("standard");
  $("rules").addEventListener("change", (e) => chooseRules(e.target.value));
  $("rotate").addEventListener("click", () => { vertical = !vertical; drawPlacement(); });
  document.addEventListener("keydown", (e) => { if ((e.key === "r" || e.key === "R") && !$("setup").classList.contains("hidden")) { vertical = !vertical; drawPlacement(); } });
  $("random").addEventListener("click", randomLayout);
  $("clear").addEventListener("click", () => chooseRules(rules.name));
  $("start").addEventListener("click", start);
  $("resign").addEventListener("click", async () => { game = await api(`/api/games/${game.id}/resign`, {}); render(); });
  $("again").addEventListener("click", () => { location.href = "/"; });
  $("playforme").addEventListener("change", (e) => { if (e.target.checked) fire(null, true); });
  $("heat").addEventListener("change", () => render());
  const params = new URLSearchParams(location.search);
  const id = params.get("game") || localStorage.getItem("battleship-game");
  if (id) {
    try { game = await api(`/api/games/${id}`); } catch (err) { localStorage.removeItem("battleship-game"); return; }
    beginPlay();
    if (params.get("replay") && game.status === "over") {
      location.replace(`/replay?game=${game.id}`);  // the old replay address: the replay has its own page now
    } else if (game.status === "computer-turn") {
      game = (await api(`/api/games/${game.id}/computer`, {})).state;
      render();
    }
  }
}

load();
