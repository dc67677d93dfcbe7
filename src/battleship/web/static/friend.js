// The game between friends: start one and share the link, or play both seats on one screen (passing it
// between turns). The page holds seat tokens in its address's fragment (#seat=..., never sent to the
// server in a request line or a referrer) and follows the game live through server-sent events.
"use strict";

let catalogue = null, chooser = null;
let seats = [];          // the seat tokens this page holds: one, or (on one screen) both
let shown = 0;           // the index in ``seats`` of the seat on screen
let invite = null;       // the other player's link, kept by the player who started the game
let view = null;         // the shown seat's view
let viewAt = 0;          // when it arrived (for the clocks)
let source = null;       // the live stream
let live = false;        // the stream is open: the clocks tick only while the server is reachable
let placement = null, placementKey = null;
let enemy = [], own = [], boardsKey = null;
let busy = false;
let aim = null;          // salvo rules: the squares marked for the salvo being aimed

const salvoSize = () => (view && view.salvo && view.status === "your-turn" ? view.salvo.your : 1);

const fragment = () => new URLSearchParams(location.hash.slice(1));
const oneScreen = () => seats.length === 2;
const seatUrl = (token) => `${location.origin}/friend#seat=${token}`;

function showCreate() {
  $("create").classList.remove("hidden");
  $("seat").classList.add("hidden");
  $("name").value = localStorage.getItem("battleship-name") || "";
  $("clock").value = localStorage.getItem("battleship-clock") || "";
}

async function create() {
  const clock = $("clock").value ? Number($("clock").value) : null, name = $("name").value.trim();
  localStorage.setItem("battleship-name", name);
  localStorage.setItem("battleship-clock", $("clock").value);
  $("create-game").disabled = true;
  try {
    const made = await api("/api/friends", {...chooser.body(), clock, name: name || null});
    myGames.add({id: made.state.id, kind: "friend", seat: made.seat, side: 1, invite: made.invite});
    const same = $("same-screen").checked;
    if (same) myGames.add({id: made.state.id, kind: "friend", seat: made.invite, side: 2});
    location.hash = same ? `seat=${made.seat}&other=${made.invite}` : `seat=${made.seat}&invite=${made.invite}`;
  } catch (err) { $("create-message").textContent = err.message; }
  finally { $("create-game").disabled = false; }
}

// ---- which seat is on screen, and the live stream --------------------------------------------------

async function open() {
  const f = fragment();
  seats = [f.get("seat"), ...(f.get("other") ? [f.get("other")] : [])];
  invite = f.get("invite");
  $("create").classList.add("hidden");
  $("seat").classList.remove("hidden");
  try { await refresh(await api(`/api/seats/${seats[0]}`)); }
  catch (err) {
    $("banner").className = "turn over";
    $("banner").textContent = err.status === 404 || err.status === 400
      ? "There is no game at this link: it may be mistyped, or the game was deleted after a day without a move."
      : err.message;
    return;
  }
  listen();
}

function listen() {
  if (source) source.close();
  source = new EventSource(`/api/seats/${seats[0]}/events`);
  source.addEventListener("state", (e) => refresh(JSON.parse(e.data)));
  source.addEventListener("open", () => { live = true; $("link-state").textContent = "live"; });
  source.addEventListener("error", () => {
    if (live && view) { view = frozen(view); viewAt = performance.now(); }  // hold the clocks where they stood
    live = false;
    $("link-state").textContent = source.readyState === EventSource.CLOSED ? "disconnected: reload the page" : "reconnecting\u2026";
    tick();
  });
}

// ``first`` is the first held seat's view. On one screen the seat to show is the one that must act.
async function refresh(first) {
  if (first.id && !myGames.all().some((g) => g.seat === seats[0] && g.id === first.id)) {
    myGames.add({id: first.id, kind: "friend", seat: seats[0], side: first.seat, ...(invite ? {invite} : {})});
  }
  let index = 0;
  if (oneScreen()) {
    const waiting = first.status === "placing" ? first.you.placed && !first.them.placed : first.status === "their-turn";
    index = waiting ? 1 : 0;
  }
  const next = index === 0 ? first : await api(`/api/seats/${seats[index]}`);
  const before = shown === index ? view : null;
  if (oneScreen() && view && index !== shown && next.status !== "over") {
    shown = index;
    cover(`Pass the device to ${next.you.name}.`, () => render(next, before));
    return;
  }
  shown = index;
  render(next, before);
}

function cover(text, then) {
  $("cover-text").textContent = text;
  $("cover").classList.remove("hidden");
  $("cover-go").focus();
  $("cover-go").onclick = () => { $("cover").classList.add("hidden"); then(); };
}

// ---- drawing a seat's view -------------------------------------------------------------------------

function render(next, before) {
  view = next;
  viewAt = performance.now();
  const placing = view.status === "placing";
  $("placing").classList.toggle("hidden", !placing || view.you.placed);
  $("playing").classList.toggle("hidden", placing);
  showInvite();
  showPresence();
  showBanner();
  if (placing && !view.you.placed) preparePlacement();
  if (!placing) drawBoards(before);
  tick();
}

function showInvite() {
  const show = !oneScreen() && invite && view.seat === 1 && !view.them.placed && view.status === "placing";
  $("invite").classList.toggle("hidden", !show);
  if (show) $("invite-link").value = seatUrl(invite);
}

function showPresence() {
  const p = $("presence");
  p.classList.toggle("hidden", oneScreen());
  p.classList.toggle("on", view.them.connected);
  p.textContent = view.them.connected ? `${view.them.name} is here` : `${view.them.name} is not connected` + (view.status === "over" ? "" : ": they can come back with their link");
}

function showBanner() {
  const b = $("banner"), them = view.them.name;
  const status = view.status;
  b.className = "turn " + (status === "your-turn" ? "player" : status === "over" ? "over" : "computer");
  if (status === "placing") {
    b.textContent = !view.you.placed ? `${view.you.name}: place your fleet.` : `Waiting for ${them} to place their fleet\u2026`;
  } else if (status === "your-turn" && salvoSize() > 1) {
    b.textContent = `${view.you.name}: your turn. Mark ${salvoSize()} squares of ${them}'s waters, then fire them together (${salvoRuleWords(view.salvo)}).`;
  } else if (status === "your-turn") {
    b.textContent = `${view.you.name}: your turn. Fire at a square of ${them}'s waters.`;
  } else if (status === "their-turn") {
    b.textContent = `${them} is aiming\u2026`;
  } else {
    const how = {resigned: " (resigned)", time: " on time", sunk: ""}[view.ended_by] || "";
    b.textContent = view.winner === "you" ? `You won${how === " (resigned)" ? `: ${them} resigned` : how}!` : `${them} won${how === " (resigned)" ? ": you resigned" : how}.`;
  }
}

function preparePlacement() {
  const key = `${seats[shown]}`;
  if (placementKey === key) return;
  placementKey = key;
  placement = new Placement($("placement"), $("fleet"), view.rules, (t) => { $("place-message").textContent = t; });
  $("seat-name").value = view.you.name.startsWith("Player ") ? "" : view.you.name;
}

function drawBoards(before) {
  const rules = view.rules, key = `${view.id}:${shown}`;
  if (boardsKey !== key) {
    boardsKey = key;
    enemy = makeBoard($("enemy"), rules.rows, rules.cols, onEnemyCell, "Their waters: fire at a square");
    own = makeBoard($("own"), rules.rows, rules.cols, null, "Your fleet");
    before = null;
    if (view.salvo && !aim) aim = new SalvoAim($("message"), (cells) => fire(null, cells));
    if (aim) aim.clear();
  }
  const over = view.status === "over";
  drawSide(enemy, rules, view.your_shots, view.their_layout, over ? "revealed" : null);
  drawSide(own, rules, view.their_shots, view.your_layout, "own");
  if (view.salvo) {
    drawSalvos(enemy, rules, view.your_shots, view.your_salvos, $("enemy-title"));
    drawSalvos(own, rules, view.their_shots, view.their_salvos, document.querySelector(".own-panel h2"));
    aim.ready(salvoSize() > 1 ? salvoSize() : 0, enemy);
  }
  const badge = $("enemy-title").querySelector(".salvo-badge");
  $("enemy-title").textContent = `${view.them.name}'s waters`;
  if (badge) $("enemy-title").appendChild(badge);
  $("their-label").textContent = `shots by ${view.them.name}`;
  $("enemy").classList.toggle("inert", view.status !== "your-turn");
  $("enemy").classList.toggle("noisy", Boolean(rules.noise));
  let twist = twistWords(rules);  // answers that lie: the server's coins flip both players' answers
  if (over && view.noise) twist += ` The truth: ${view.noise.flipped[view.seat - 1]} of the answers to your shots lied, and ${view.noise.flipped[2 - view.seat]} of theirs (ringed in red).`;
  $("twist").textContent = twist;
  $("enemy-panel").classList.toggle("active", view.status === "your-turn");
  $("my-shots").textContent = view.your_shots.length;
  const left = view.their_ships_left;  // the server's count: true once their fleet is shown
  $("afloat").textContent = left === null || left === undefined ? "?" : left;
  $("their-shots").textContent = view.their_shots.length;
  if (view.salvo) {  // salvo rules: turns counted, shots beside them
    $("my-shots").textContent = view.your_salvos.length;
    $("my-shots").nextElementSibling.textContent = `your salvos (${view.your_shots.length} shots)`;
    $("their-shots").textContent = view.their_salvos.length;
    $("their-label").textContent = `salvos by ${view.them.name} (${view.their_shots.length} shots)`;
  }
  $("mine-afloat").textContent = view.your_ships_left === undefined ? "" : view.your_ships_left;
  $("resign").classList.toggle("hidden", over);
  for (const id of ["replaylink", "rematch", "another"]) $(id).classList.toggle("hidden", !over);
  $("rematch").textContent = view.rematch ? "Join the rematch" : "Rematch";
  if (over) $("replaylink").href = `/replay?game=${view.id}`;
  if (before && before.id === view.id && view.salvo) {
    const grew = (now, then) => now.length > then.length;
    if (grew(view.their_salvos, before.their_salvos || [])) {
      const salvo = view.their_salvos[view.their_salvos.length - 1];
      announceSalvo(own, salvo, view.their_shots.slice(-salvo.cells.length));
      $("message").textContent = describeSalvo(salvo, view.them.name);
    }
  } else if (before && before.id === view.id) {
    if (view.their_shots.length > before.their_shots.length) announce(own, view.their_shots[view.their_shots.length - 1]);
    if (view.your_shots.length > before.your_shots.length) announce(enemy, view.your_shots[view.your_shots.length - 1]);
  }
  if (before && before.id === view.id) {
    if (view.status === "your-turn" && before.status !== "your-turn" && !oneScreen()) sound.play("turn");
    if (over && before.status !== "over") sound.play(view.winner === "you" ? "win" : "lose");
  }
}

function clockText(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

// A view whose running clock is held at the time shown now (the server cannot be reached).
function frozen(v) {
  const c = v.clock;
  if (!c || !c.running) return v;
  const spent = (performance.now() - viewAt) / 1000, key = c.running === "you" ? "yours" : "theirs";
  return {...v, clock: {...c, [key]: Math.max(0, c[key] - spent), running: c.running, paused: true}};
}

function tick() {
  const clock = view && view.clock;
  $("clocks").classList.toggle("hidden", !clock);
  if (!clock) return;
  const paused = !live || clock.paused;  // no word from the server: the clocks show where they stood
  const spent = paused ? 0 : (performance.now() - viewAt) / 1000;
  for (const [side, id, name] of [["you", "clock-you", view.you.name], ["them", "clock-them", view.them.name]]) {
    const left = (side === "you" ? clock.yours : clock.theirs) - (clock.running === side ? spent : 0);
    const el = $(id);
    el.textContent = `${name} ${clockText(left)}`;
    el.classList.toggle("running", clock.running === side && !paused);
    el.classList.toggle("low", clock.running === side && left < 10);
  }
  $("clock-state").textContent = paused && clock.running ? "paused: the server cannot be reached" : "";
}

// ---- moves -----------------------------------------------------------------------------------------

async function ready() {
  if (placement.count() && !placement.complete()) { $("place-message").textContent = "Place every ship, or none for a random layout."; return; }
  $("ready").disabled = true;
  try {
    const name = $("seat-name").value.trim();
    const next = await api(`/api/seats/${seats[shown]}/layout`, {layout: placement.count() ? placement.text() : null, name: name || null});
    placementKey = null;
    if (oneScreen()) await refresh(await api(`/api/seats/${seats[0]}`));
    else render(next, view);
  } catch (err) { $("place-message").textContent = err.message; }
  finally { $("ready").disabled = false; }
}

// A square of their waters clicked: fire at it, or under salvo rules (more than one shot a turn) mark it.
function onEnemyCell(cell) {
  if (salvoSize() > 1) aim.toggle(cell, new Set(view.your_shots.map((s) => s.cell)));
  else fire(cell);
}

async function fire(cell, cells) {
  if (busy || !view || view.status !== "your-turn" || (!cells && !view.rules.noise && view.your_shots.some((s) => s.cell === cell))) return;
  busy = true;
  try {
    const answer = await api(`/api/seats/${seats[shown]}/fire`, cells ? {cells} : {cell});
    $("message").textContent = answer.salvo ? describeSalvo(answer.salvo, "You") : describeShot(answer.shot, "You", view.rules.cols);
    if (aim) aim.clear();
    render(answer.state, view);
    if (answer.salvo) announceSalvo(enemy, answer.salvo, answer.shots);
    if (oneScreen() && answer.state.status !== "over") setTimeout(async () => refresh(await api(`/api/seats/${seats[0]}`)), 900);
  } catch (err) { $("message").textContent = err.message; }
  finally { busy = false; }
}

async function resign() {
  if (!(await confirmDialog(`Give up? ${view.them.name} wins and both fleets are shown.`, "Resign", "Keep playing"))) return;
  try { render(await api(`/api/seats/${seats[shown]}/resign`, {}), view); }
  catch (err) { $("message").textContent = err.message; }
}

async function rematch() {
  try {
    const mine = await api(`/api/seats/${seats[shown]}/rematch`, {});
    if (oneScreen()) {
      const other = await api(`/api/seats/${seats[1 - shown]}/rematch`, {});
      location.hash = `seat=${mine.seat}&other=${other.seat}`;
    } else {
      myGames.add({id: mine.state.id, kind: "friend", seat: mine.seat, side: mine.state.seat});
      location.hash = `seat=${mine.seat}`;
    }
  } catch (err) { $("message").textContent = err.message; }
}

function restart() {
  if (source) { source.close(); source = null; }
  view = null; placementKey = null; boardsKey = null; shown = 0;
  $("message").textContent = "";
  if (fragment().get("seat")) open(); else showCreate();
}

async function load() {
  catalogue = await api("/api/rules");
  chooser = new RulesChooser($("rules"), $("rules-holder"), catalogue, async (preset, toml) => {
    if (preset) return;
    try { await api("/api/rules/custom", {rules_toml: toml}); chooser.say(""); } catch (err) { chooser.say(err.message); }
  }, "battleship-friend-rules");
  $("create-game").addEventListener("click", create);
  $("copy-invite").addEventListener("click", () => copyText($("invite-link").value, $("copy-state")));
  if (navigator.share) {
    $("share-invite").classList.remove("hidden");
    $("share-invite").addEventListener("click", () => navigator.share({title: "Battleship", text: "Play Battleship with me", url: $("invite-link").value}).catch(() => {}));
  }
  $("rotate").addEventListener("click", () => placement && placement.rotate());
  document.addEventListener("keydown", (e) => {
    if ((e.key === "r" || e.key === "R") && placement && !$("placing").classList.contains("hidden") && !/INPUT|TEXTAREA|SELECT/.test(e.target.tagName)) placement.rotate();
  });
  $("random").addEventListener("click", async () => {
    if (view.rules.name === "custom") { placement.clear(); $("place-message").textContent = "Press Ready: the server places your fleet at random."; return; }
    placement.setLayout(await api(`/api/layout?rules=${view.rules.name}`));
  });
  $("clear").addEventListener("click", () => placement.clear());
  $("ready").addEventListener("click", ready);
  $("resign").addEventListener("click", resign);
  $("rematch").addEventListener("click", rematch);
  window.addEventListener("hashchange", restart);
  setInterval(tick, 250);
  restart();
}

load();
