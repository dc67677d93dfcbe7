// Salvo rules on the game pages: mark the squares of a turn's salvo, fire them together, and read the
// answers salvo by salvo as the rules give them (each shot answered, the ships hit, or only a count).
"use strict";

const ANSWERS = {
  each: "every shot is answered",
  ships: "the answer says which ships were hit, never which shot",
  count: "the answer is only how many shots hit",
};

// The salvo rule in words: "5 shots a turn, one for each of your ships afloat; every shot is answered".
function salvoRuleWords(salvo) {
  const shots = salvo.shots === "afloat" ? "one shot a turn for each of your ships afloat"
    : salvo.shots === "afloat-cells" ? "one shot a turn for each unhit square of your fleet"
    : `${salvo.shots} shot${salvo.shots === 1 ? "" : "s"} a turn`;
  return `${shots}; ${ANSWERS[salvo.answers]}`;
}

// The marks of the salvo being aimed, its bar (how many are marked, Fire, Clear) and the answers' log.
// ``after``: the element the bar goes after; ``onFire(cells)`` fires the marked cells.
class SalvoAim {
  constructor(after, onFire) {
    this.cells = [];
    this.size = 0;
    this.onFire = onFire;
    after.insertAdjacentHTML("afterend", `<div class="salvo-bar controls hidden" id="salvo-bar">
      <button id="fire-salvo" type="button" class="primary" disabled>Fire the salvo</button>
      <button id="clear-salvo" type="button">Clear the marks</button>
      <span id="salvo-status" class="hint" aria-live="polite"></span></div>`);
    $("fire-salvo").addEventListener("click", () => { if (this.cells.length === this.size) this.onFire([...this.cells]); });
    $("clear-salvo").addEventListener("click", () => { this.cells = []; this.show(); });
  }

  // A new turn (or a redraw): ``size`` shots to mark now (0: not this side's turn), on ``board``'s cells.
  ready(size, board) {
    this.board = board;
    if (size !== this.size) this.cells = this.cells.slice(0, size);
    this.size = size;
    this.show();
  }

  clear() { this.cells = []; this.show(); }

  // Mark or unmark a square (fired squares do nothing); a full salvo takes no more marks.
  toggle(cell, fired) {
    if (!this.size || fired.has(cell)) return;
    const at = this.cells.indexOf(cell);
    if (at >= 0) this.cells.splice(at, 1);
    else if (this.cells.length < this.size) this.cells.push(cell);
    this.show();
  }

  show() {
    $("salvo-bar").classList.toggle("hidden", !this.size);
    if (this.board) {
      this.board.forEach((b, i) => {
        const marked = this.cells.includes(i);
        b.classList.toggle("aimed", marked);
        b.setAttribute("aria-pressed", String(marked));
      });
    }
    const left = this.size - this.cells.length;
    $("fire-salvo").disabled = !this.size || left > 0;
    $("fire-salvo").textContent = `Fire ${this.size} shot${this.size === 1 ? "" : "s"}`;
    $("salvo-status").textContent = !this.size ? ""
      : left > 0 ? `${this.cells.length} of ${this.size} marked: mark ${left} more square${left === 1 ? "" : "s"}`
      : "ready: fire the salvo (or click a mark to take it back)";
  }
}

// Draw the salvos on a board already drawn by drawSide: the last salvo's squares ringed, each shot answered
// only with its salvo showing the salvo's turn number, revealed sunk ships whole; and the last answer as a
// badge beside ``title`` (e.g. "2 hits").
function drawSalvos(cells, rules, shots, salvos, title) {
  cells.forEach((b) => b.classList.remove("last"));
  const last = salvos.length ? salvos[salvos.length - 1] : null;
  const symbol = Object.fromEntries(rules.fleet.map((s) => [s.name, s.symbol]));
  for (const s of shots) {
    if (s.outcome === "fired" && !cells[s.cell].classList.contains("sunk")) cells[s.cell].textContent = s.turn;
  }
  for (const salvo of salvos) {
    (salvo.revealed || []).forEach((ship, k) => ship.forEach((c) => {
      cells[c].classList.remove("salvo", "ship", "revealed");
      cells[c].classList.add("sunk");
      cells[c].textContent = salvo.sunk[k] ? symbol[salvo.sunk[k]] : "#";
    }));
  }
  if (last) last.cells.forEach((c) => cells[c].classList.add("last"));
  labelCells(cells, rules.cols);
  if (title) {
    let badge = title.querySelector(".salvo-badge");
    if (!badge) { badge = document.createElement("span"); badge.className = "salvo-badge"; title.appendChild(badge); }
    badge.textContent = last ? `turn ${last.turn}: ${last.words}` : "";
    badge.classList.toggle("hidden", !last);
  }
}

// A salvo in words: "You fired E5, F6, G7: 2 hits."
function describeSalvo(salvo, who) {
  return `${who} fired ${salvo.names.join(", ")}: ${salvo.words}.`;
}

// The sound and animation of a salvo's answer on ``cells``.
function announceSalvo(cells, salvo, shots) {
  shots.forEach((s) => animate(cells[s.cell], s.outcome === "fired" ? (salvo.hits ? "hit" : "miss") : s.outcome));
  sound.play(salvo.sunk_count ? "sunk" : salvo.hits ? "hit" : "miss");
}
