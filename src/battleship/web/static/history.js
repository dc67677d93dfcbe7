// My games: the games this browser started or joined (kept in localStorage), each looked up on the server
// by its key, with links to go on playing or to the replay.
"use strict";

const LEVELS = {random: "Easy", "hunt-target": "Medium", probability: "Hard", best: "Expert", learning: "Adaptive"};

function result(entry, game, seat) {
  if (game.status !== "over") return game.mode === "friend" && game.status === "placing" ? "placing fleets" : "under way: go on";
  const how = {resigned: " (resigned)", time: " (on time)"}[game.ended_by] || "";
  if (game.mode !== "friend") return (game.winner === "player" ? "you won" : "you lost") + how;
  if (seat === null) return `player ${game.winner === "player1" ? 1 : 2} won${how}`;
  return (game.winner === `player${seat}` ? "you won" : "they won") + how;
}

// A game's length: its moves, or in a salvo game its turns with the shots beside them.
function length(game) {
  return game.turns === null || game.turns === undefined ? game.moves : `${game.turns} turns (${game.moves} shots)`;
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
    const date = when.toLocaleString(undefined, {dateStyle: "short", timeStyle: "short"});
    const against = !game ? (entry.kind === "friend" ? "a friend" : "computer")
      : game.mode === "friend" ? "a friend" : `computer, ${LEVELS[game.mode] || game.mode}`;
    const twist = game && game.twist ? {noisy: " (answers may lie)", cheat: " (the computer cheats)"}[game.twist] || "" : "";
    const cells = [date, against, game ? game.rules + twist : "", game ? result(entry, game, entry.side || null) : "deleted unfinished", game ? length(game) : ""];
    cells.forEach((text, k) => {
      const td = document.createElement("td");
      let link = null;
      if (k === 0 && game) {
        link = game.status === "over" ? `/replay?game=${game.id}` : entry.kind === "friend" ? `/friend#seat=${entry.seat}` : `/?game=${game.id}`;
      }
      if (link) {
        const a = document.createElement("a");
        a.href = link;
        a.textContent = text;
        a.title = game.status === "over" ? "the replay" : "go on playing";
        td.appendChild(a);
      } else td.textContent = text;
      row.appendChild(td);
    });
    const forget = document.createElement("button");
    forget.type = "button";
    forget.textContent = "\u00d7";
    forget.title = "forget this game";
    forget.setAttribute("aria-label", `Forget the game of ${date}`);
    forget.addEventListener("click", () => { myGames.remove(entry.id, entry.seat); load(); });
    const last = document.createElement("td");
    last.appendChild(forget);
    row.appendChild(last);
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
