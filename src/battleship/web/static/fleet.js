// Fleets on boards, shared by the game against the computer and the game between friends: the placement
// editor (ships of any shape, turned with R, dragged or clicked, or placed at random) and the drawing of a
// side's board (your ships with their letters, shots, whole sunk ships, the last shot marked).
"use strict";

// Every distinct orientation of a ship's shape ([[row, col], ...]): quarter turns, and mirror images
// when the rules allow them. Each is normalised to start at row 0, column 0.
function orientations(shape, reflections) {
  const norm = (cells) => {
    const r0 = Math.min(...cells.map((c) => c[0])), c0 = Math.min(...cells.map((c) => c[1]));
    return cells.map(([r, c]) => [r - r0, c - c0]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  };
  const seen = new Map();
  let current = shape;
  for (const mirror of reflections ? [false, true] : [false]) {
    current = mirror ? shape.map(([r, c]) => [r, -c]) : shape;
    for (let turn = 0; turn < 4; turn++) {
      const n = norm(current), key = JSON.stringify(n);
      if (!seen.has(key)) seen.set(key, n);
      current = current.map(([r, c]) => [c, -r]);
    }
  }
  return [...seen.values()];
}

// The cells of a ship placed with its shape's first cell on ``anchor``; null when it leaves the board.
function shapeCells(rules, shape, anchor) {
  const r = Math.floor(anchor / rules.cols), c = anchor % rules.cols, out = [];
  const [dr, dc] = shape[0];
  for (const [sr, sc] of shape) {
    const rr = r + sr - dr, cc = c + sc - dc;
    if (rr < 0 || cc < 0 || rr >= rules.rows || cc >= rules.cols) return null;
    out.push(rr * rules.cols + cc);
  }
  return out;
}

// Whether two ships' cells keep the rules' spacing (no overlap; no shared edge under no-edge; not even a
// corner under no-contact).
function apart(rules, a, b) {
  for (const x of a) for (const y of b) {
    const dr = Math.abs(Math.floor(x / rules.cols) - Math.floor(y / rules.cols)), dc = Math.abs(x % rules.cols - y % rules.cols);
    if (x === y) return false;
    if (rules.spacing === "no-contact" && dr <= 1 && dc <= 1) return false;
    if (rules.spacing === "no-edge" && dr + dc === 1) return false;
  }
  return true;
}

class Placement {
  // A placement board in ``board`` with its ship buttons in ``fleet``; ``say`` shows a sentence.
  constructor(board, fleet, rules, say) {
    if (board.placement) board.placement.controller.abort();  // an earlier editor on this board stops listening
    board.placement = this;
    this.controller = new AbortController();
    this.board = board; this.fleetElement = fleet; this.rules = rules; this.say = say;
    this.shapes = rules.fleet.map((s) => orientations(s.cells, rules.reflections));
    this.turn = rules.fleet.map(() => 0);
    this.placed = rules.fleet.map(() => null);
    this.active = 0;
    this.hover = null;
    this.build();
  }

  build() {
    let fromPointer = false;  // a pointer already handled this press: skip the click that follows
    this.cells = makeBoard(this.board, this.rules.rows, this.rules.cols, (i) => {
      if (fromPointer) { fromPointer = false; return; }
      this.drop(i);  // keyboard (Enter or Space) or a click without pointer events
    }, "Your fleet: place your ships");
    this.board.classList.add("placing");
    const under = (e) => {
      const el = document.elementFromPoint(e.clientX, e.clientY);
      return el && el.dataset && el.dataset.cell !== undefined ? Number(el.dataset.cell) : null;
    };
    this.cells.forEach((b, i) => {
      b.addEventListener("pointerenter", () => { this.hover = i; this.draw(); });
      b.addEventListener("pointermove", (e) => {  // touch keeps the pointer on the first cell: follow the finger
        const cell = under(e);
        if (cell !== null && cell !== this.hover) { this.hover = cell; this.draw(); }
      });
      b.addEventListener("pointerdown", () => {  // pressing on a placed ship picks it up, to drag it
        const owner = this.owner(i);
        if (owner >= 0) { this.placed[owner] = null; this.active = owner; this.hover = i; this.draw(); }
      });
      b.addEventListener("pointerup", (e) => {
        fromPointer = true;
        const cell = under(e);
        if (!this.placed[this.active]) this.drop(cell === null ? i : cell);
        if (e.pointerType !== "mouse") { this.hover = null; this.draw(); }  // no preview left behind a finger
      });
      b.addEventListener("focus", () => { this.hover = i; this.draw(); });
    });
    this.board.addEventListener("pointerleave", () => { this.hover = null; this.draw(); }, {signal: this.controller.signal});
    this.buildFleet();
    this.draw();
  }

  owner(cell) { return this.placed.findIndex((cells) => cells && cells.includes(cell)); }
  rotate() { this.turn[this.active] = (this.turn[this.active] + 1) % this.shapes[this.active].length; this.draw(); }
  shapeOf(j) { return this.shapes[j][this.turn[j]]; }
  fits(j, cells) { return Boolean(cells) && this.placed.every((other, k) => k === j || !other || apart(this.rules, cells, other)); }
  complete() { return this.placed.every(Boolean); }
  count() { return this.placed.filter(Boolean).length; }

  drop(cell) {
    const owner = this.owner(cell);
    if (owner >= 0 && (this.placed[this.active] || owner !== this.active)) {  // pick a placed ship up again
      this.placed[owner] = null; this.active = owner; this.hover = cell; this.draw(); return;
    }
    const cells = shapeCells(this.rules, this.shapeOf(this.active), cell);
    if (!this.fits(this.active, cells)) { this.say("That ship does not fit there."); return; }
    this.placed[this.active] = cells;
    this.say("");
    const next = this.placed.findIndex((p) => !p);
    this.active = next >= 0 ? next : this.active;
    this.draw();
  }

  draw() {
    const preview = this.hover === null || this.placed[this.active] ? null : shapeCells(this.rules, this.shapeOf(this.active), this.hover);
    const ok = this.fits(this.active, preview);
    this.cells.forEach((b, i) => {
      b.className = "cell";
      b.textContent = "";
      const owner = this.owner(i);
      if (owner >= 0) { b.classList.add("ship"); b.textContent = this.rules.fleet[owner].symbol; }
      if (preview && preview.includes(i)) b.classList.add(ok ? "preview" : "bad");
    });
    labelCells(this.cells, this.rules.cols);
    this.buttons.forEach((b, j) => {
      b.className = (this.placed[j] ? "placed " : "") + (j === this.active && !this.placed[j] ? "active" : "");
      b.setAttribute("aria-pressed", String(j === this.active && !this.placed[j]));
    });
  }

  buildFleet() {  // one button a ship, made once (redrawing them under the pointer would lose clicks)
    this.fleetElement.innerHTML = "";
    this.buttons = this.rules.fleet.map((ship, j) => {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = `${ship.name} (${ship.size})`;
      b.addEventListener("click", () => { this.placed[j] = null; this.active = j; this.draw(); });
      this.fleetElement.appendChild(b);
      return b;
    });
  }

  setLayout(layout) {  // a layout as the API gives it: ships with their cells
    this.placed = layout.ships.map((s) => s.cells);
    this.draw();
  }

  clear() { this.placed = this.rules.fleet.map(() => null); this.active = 0; this.draw(); }

  text() {  // the layout in the layout notation: rows of '.' and ship letters joined by '/'
    const grid = Array(this.rules.rows * this.rules.cols).fill(".");
    this.placed.forEach((cells, j) => cells.forEach((c) => { grid[c] = this.rules.fleet[j].symbol; }));
    const rows = [];
    for (let r = 0; r < this.rules.rows; r++) rows.push(grid.slice(r * this.rules.cols, (r + 1) * this.rules.cols).join(""));
    return rows.join("/");
  }
}

// Draw one side's board: ``layout`` (ships with cells, shown when ``show`` is "own" or "revealed"),
// ``shots`` fired at it (sunk ships whole where their cells are known), the last shot marked.
function drawSide(cells, rules, shots, layout, show) {
  const symbol = Object.fromEntries(rules.fleet.map((s) => [s.name, s.symbol]));
  cells.forEach((b) => {
    const moving = [...b.classList].filter((c) => c.startsWith("anim-"));  // let a running animation finish
    b.className = "cell";
    b.classList.add(...moving);
    b.textContent = ""; b.style.background = ""; b.style.color = ""; b.removeAttribute("aria-disabled");
  });
  const shot = new Set(shots.map((s) => s.cell));
  if (layout && show) {
    for (const ship of layout.ships) {
      const sunk = ship.cells.every((c) => shot.has(c));
      for (const c of ship.cells) {
        cells[c].classList.add(sunk ? "sunk" : show === "own" ? "ship" : "revealed");
        cells[c].textContent = ship.symbol || symbol[ship.name] || "";
      }
    }
  }
  const occupied = new Set(layout && show ? layout.ships.flatMap((ship) => ship.cells) : []);
  for (const fired of shots) {
    const b = cells[fired.cell];
    b.classList.add("fired");
    b.setAttribute("aria-disabled", "true");
    if (b.classList.contains("sunk")) continue;
    // a shot answered only with its salvo: where the fleet is shown, what it struck is plain to see
    const s = fired.outcome === "fired" && occupied.size ? {...fired, outcome: occupied.has(fired.cell) ? "hit" : "miss"} : fired;
    b.classList.remove("miss", "hit");  // under noise a square fired at again shows its latest answer
    b.classList.add({miss: "miss", hit: "hit", fired: "salvo"}[s.outcome] || "sunk");
    if (s.outcome === "sunk") {
      for (const c of s.cells || [s.cell]) {
        cells[c].classList.remove("hit", "ship", "revealed");
        cells[c].classList.add("sunk");
        cells[c].textContent = s.ship ? symbol[s.ship] : "#";
      }
    } else if (s.outcome === "hit" && b.classList.contains("ship")) {
      b.classList.remove("ship");  // your ship, hit: the cross shows (its letter is on its other squares)
      b.textContent = "";
    }
  }
  if (shots.length) cells[shots[shots.length - 1].cell].classList.add("last");
  if (rules.noise) markNoise(cells, shots);
  labelCells(cells, rules.cols);
}

// Under answers that lie: a square fired at more than once shows how many times (a corner number), its
// tooltip and accessible name every answer it got in order, and a dashed ring once one of them is known
// to have lied (the truth: about your own fleet at once, about the other's at the end). It may be fired
// at again, so it stays enabled.
function markNoise(cells, shots) {
  const byCell = new Map();
  for (const s of shots) byCell.set(s.cell, [...(byCell.get(s.cell) || []), s]);
  cells.forEach((b) => { delete b.dataset.times; delete b.dataset.answers; b.classList.remove("lied"); b.title = ""; });
  for (const [cell, list] of byCell) {
    const b = cells[cell];
    b.removeAttribute("aria-disabled");
    const words = list.map((s) => (s.outcome === "sunk" ? `sank ${s.ship || "a ship"}` : s.outcome) + (s.flipped ? " (a lie)" : ""));
    if (list.length > 1) b.dataset.times = list.length;
    if (list.some((s) => s.flipped)) b.classList.add("lied");
    b.dataset.answers = `fired ${list.length === 1 ? "once" : list.length + " times"}: ${words.join(", ")}`;
    b.title = b.dataset.answers;
  }
}

// What the rules' twist means, in a sentence for a banner: answers that lie, or a computer that cheats.
function twistWords(rules, cheating) {
  if (rules.noise) {
    const sinkings = rules.noise.sinkings === "truthful" ? "sinkings are always told truly" : "a sinking may be answered \"miss\" too";
    return `Answers may lie: each hit or miss is flipped with chance ${+(100 * rules.noise.flip).toFixed(2)}% (${sinkings}). `
      + "You may fire at a square again (the corner number counts the shots); the game ends once every ship square has been fired at.";
  }
  if (rules.hider) return cheating || "The computer cheats: it hides no fleet and moves its ships, answering consistently.";
  return "";
}

// A shot in words: "You fired at E5: hit!"
function describeShot(shot, who, cols) {
  const name = cellName(shot.cell, cols);
  if (shot.outcome === "miss") return `${who} fired at ${name}: miss.`;
  if (shot.outcome === "hit") return `${who} fired at ${name}: hit!`;
  return `${who} fired at ${name}: ${shot.ship ? "sank the " + shot.ship : "sank a ship"}!`;
}

// Animate and sound a shot on ``cells``.
function announce(cells, shot) {
  animate(cells[shot.cell], shot.outcome);
  sound.play(shot.outcome);
}
