// My games: the games this browser started or joined (kept in localStorage), each looked up on the server
// by its key, with links to go on playing or to the replay.
"use strict";

const LEVELS = {random: "Easy", "hunt-target": "Medium", probability: "Hard", best: "Expert", learning: "Adaptive"};

function result(entry, game, seat) {
  if (game.status !== "over") return game.mode === "friend" && game.status === "placing" ? "placing fleets" : "under way";
  const how = {resigned: " (resigned)", time: " (on time)"}[game.ended_by] || "";
  if (game.mode !== "friend") return (game.winner === "player" ? "you won" : "the computer won") + how;
  if (seat === null) return `player ${game.winner === "player1" ? 1 : 2} won${how}`;
  return (game.winner === `player${seat}` ? "you won" : "they won") + how;
}

async function load() {
  const kept = myGames.all().filter((g) => /^[0-9a-f]{32}$/.test(g.id || ""));
  const body = $("games").querySelector("tbody");
  body.innerHTML = "";
  $("empty").classList.toggle("hidden", kept.length > 0);
  if (!kept.length) return;
  let found;
  try { found = (await api("/api/history", {games: [...new Set(kept.map((g) => g.id))].slice(0, 200)})).games; }
  catch (err) { $("message").textContent = err.message; return; }
  const byId = Object.fromEntries(found.map((g) => [g.id, g]));
  const seen = new Set();
  for (const entry of kept) {
    const game = byId[entry.id], key = `${entry.id}:${entry.seat || ""}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const row = document.createElement("tr");
    const when = new Date((game && game.created) || entry.started);
    const cells = [when.toLocaleString(), "", "", "", "", ""];
    if (!game) {
      cells[1] = entry.kind === "friend" ? "a friend" : "the computer";
      cells[3] = "deleted (unfinished for a day)";
    } else {
      cells[1] = game.mode === "friend" ? "a friend" : `the computer (${LEVELS[game.mode] || game.mode})`;
      cells[2] = game.rules;
      cells[3] = result(entry, game, entry.side || null);
      cells[4] = game.moves;
    }
    cells.forEach((text) => { const td = document.createElement("td"); td.textContent = text; row.appendChild(td); });
    const links = row.lastChild;
    if (game && game.status === "over") links.insertAdjacentHTML("beforeend", `<a href="/replay?game=${game.id}">replay</a>`);
    else if (game && entry.kind === "friend") links.insertAdjacentHTML("beforeend", `<a href="/friend#seat=${entry.seat}">go on</a>`);
    else if (game) links.insertAdjacentHTML("beforeend", `<a href="/?game=${game.id}">go on</a>`);
    const forget = document.createElement("button");
    forget.type = "button";
    forget.textContent = "forget";
    forget.setAttribute("aria-label", `Forget the game started ${cells[0]}`);
    forget.addEventListener("click", () => { myGames.remove(entry.id, entry.seat); load(); });
    links.append(" ", forget);
    body.appendChild(row);
  }
}

$("forget").addEventListener("click", async () => {
  if (await confirmDialog("Forget every game listed here? The games stay on the server; only this list is cleared.", "Forget them", "Keep them")) {
    myGames.clear();
    load();
  }
});
load();
