// The page a warming server answers every page with: it asks /api/ready what the server still waits for,
// says so, and loads the address asked for again (the game, a friend's seat, a replay) once it is ready.
"use strict";

const READY_POLL = 1000;  // ms between questions at least: the server answers them at once while it compiles

async function askReady() {
  let wait = READY_POLL;
  try {
    const response = await fetch("/api/ready", {cache: "no-store"});
    const data = await response.json().catch(() => ({}));
    if (response.ok && data.ready) {
      $("waiting").textContent = "The server is ready: loading\u2026";
      location.reload();
      return;
    }
    if (data.waiting_for) {
      $("waiting").textContent = `Waiting for ${data.waiting_for}.`;
      $("waited").textContent = `${Math.round(data.seconds || 0)} s so far: a few seconds in all.`;
    }
    wait = Math.max(READY_POLL, 1000 * Math.min(5, Number(response.headers.get("Retry-After")) || 1));
  } catch (err) {
    $("waiting").textContent = "The server cannot be reached (it may be restarting): asking again\u2026";
  }
  setTimeout(askReady, wait);
}

askReady();
