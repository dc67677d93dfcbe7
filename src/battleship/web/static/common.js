// Shared helpers of the pages: requests, cell names, the viridis scale, boards, chart axis titles, sounds,
// the games this browser keeps, and a confirmation dialog.
"use strict";

const $ = (id) => document.getElementById(id);
const AXIS = (text) => ({display: true, text, font: {size: 13}});  // a Chart.js axis title
const REDUCED_MOTION = window.matchMedia && matchMedia("(prefers-reduced-motion: reduce)").matches;

// 429 (too many requests) and 503 (saturated) are answered before any work is done, so asking again
// after the server's Retry-After is safe even for a shot; a few tries, then the server's words are shown.
const API_TRIES = 5;

async function api(path, body, signal) {
  const options = body === undefined ? {signal} : {
    method: "POST", headers: {"content-type": "application/json"}, body: JSON.stringify(body), signal,
  };
  for (let attempt = 1; ; attempt++) {
    let response;
    try { response = await fetch(path, options); }
    catch (err) {
      if (err.name === "AbortError") throw err;
      throw new Error("The server cannot be reached: check the connection and try again.");
    }
    const data = await response.json().catch(() => ({detail: response.statusText}));
    if (response.ok) return data;
    const busy = response.status === 429 || response.status === 503;
    if (!busy || attempt === API_TRIES) {
      const error = new Error(data.detail || response.statusText);
      error.status = response.status;
      throw error;
    }
    const seconds = Math.min(10, Number(response.headers.get("Retry-After")) || 1);
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  }
}

function rowName(row) {
  let name = "";
  row += 1;
  while (row > 0) { row -= 1; name = String.fromCharCode(65 + (row % 26)) + name; row = Math.floor(row / 26); }
  return name;
}

function cellName(cell, cols) { return rowName(Math.floor(cell / cols)) + String(cell % cols + 1); }

// viridis, 9 stops: readable by every kind of colour vision, dark to bright
const VIRIDIS = ["#440154", "#472d7b", "#3b528b", "#2c728e", "#21918c", "#28ae80", "#5ec962", "#addc30", "#fde725"];
function viridis(t) {
  t = Math.max(0, Math.min(1, t));
  const x = t * (VIRIDIS.length - 1), i = Math.min(Math.floor(x), VIRIDIS.length - 2), f = x - i;
  const a = VIRIDIS[i], b = VIRIDIS[i + 1];
  const mix = (k) => Math.round(parseInt(a.substr(k, 2), 16) * (1 - f) + parseInt(b.substr(k, 2), 16) * f);
  return `rgb(${mix(1)},${mix(3)},${mix(5)})`;
}
function inkOn(t) { return t > 0.55 ? "#1b1b1b" : "#fff"; }

// Heat maps: viridis from its purple to its green (HEAT_TOP), short of its yellow, so that no likely
// square looks like the orange of a hit (or a sunk ship's): clearly apart under every common colour
// blindness too, by hue where not by lightness (a browser test measures it).
const HEAT_TOP = 0.8;
function heatColour(t) { return viridis(HEAT_TOP * Math.max(0, Math.min(1, t))); }
function heatInk(t) { return inkOn(HEAT_TOP * t); }

// The colour bar of a heat map whose brightest colour stands for ``top`` (a probability): the colours
// from 0 to ``top``, with the percentages they stand for beneath.
function heatScale(element, top, words = "chance of a ship on the square") {
  const stops = Array.from({length: 9}, (_, k) => heatColour(k / 8)).join(", ");
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => `<span>${Math.round(100 * f * top)}%</span>`).join("");
  element.innerHTML = `<div class="heat-bar" style="background: linear-gradient(to right, ${stops})"></div>`
    + `<div class="heat-ticks">${ticks}</div><div class="heat-words"></div>`;
  element.querySelector(".heat-words").textContent = words;
  element.classList.remove("hidden");
}

// A board of buttons with coordinates (rows A.., columns 1..) and keyboard movement (arrows) and firing
// (Enter or Space). Screen readers hear a grid of rows; each cell says its name and what it holds.
function makeBoard(element, rows, cols, onCell, label) {
  element.innerHTML = "";
  element.style.gridTemplateColumns = `1.4em repeat(${cols}, 1fr)`;
  element.setAttribute("role", "grid");
  element.setAttribute("aria-label", label);
  const header = document.createElement("div");
  header.setAttribute("role", "row");
  header.className = "coords";
  header.insertAdjacentHTML("beforeend", '<span class="coord" role="columnheader"></span>');
  for (let c = 0; c < cols; c++) header.insertAdjacentHTML("beforeend", `<span class="coord" role="columnheader">${c + 1}</span>`);
  element.appendChild(header);
  const cells = [];
  for (let r = 0; r < rows; r++) {
    const row = document.createElement("div");
    row.setAttribute("role", "row");
    row.className = "coords";
    row.insertAdjacentHTML("beforeend", `<span class="coord" role="rowheader">${rowName(r)}</span>`);
    for (let c = 0; c < cols; c++) row.appendChild(boardCell(r * cols + c, rows, cols, cells, onCell));
    element.appendChild(row);
  }
  labelCells(cells, cols);
  return cells;
}

function boardCell(i, rows, cols, cells, onCell) {
  const b = document.createElement("button");
  b.className = "cell";
  b.type = "button";
  b.dataset.cell = i;
  b.tabIndex = i === 0 ? 0 : -1;
  b.setAttribute("role", "gridcell");
  b.addEventListener("click", () => onCell && onCell(i));
  b.addEventListener("keydown", (e) => {
    const moves = {ArrowUp: -cols, ArrowDown: cols, ArrowLeft: -1, ArrowRight: 1};
    if (!(e.key in moves)) return;
    e.preventDefault();
    const next = i + moves[e.key];
    const wraps = Math.abs(moves[e.key]) === 1 && Math.floor(next / cols) !== Math.floor(i / cols);
    if (next >= 0 && next < rows * cols && !wraps) {
      cells[i].tabIndex = -1; cells[next].tabIndex = 0; cells[next].focus();
    }
  });
  cells.push(b);
  return b;
}

// Each cell's accessible name: its coordinate and what is on it ("B7, hit", "C3, sunk D").
function labelCells(cells, cols, extra) {
  cells.forEach((b, i) => {
    const c = b.classList, parts = [];
    if (c.contains("ship") && !c.contains("hit") && !c.contains("sunk")) parts.push("your ship");
    if (c.contains("miss")) parts.push("miss");
    if (c.contains("hit")) parts.push("hit");
    if (c.contains("sunk")) parts.push("sunk" + (b.textContent && b.textContent !== "#" ? " " + b.textContent : ""));
    if (c.contains("salvo")) parts.push(`fired in salvo ${b.textContent}, answered with the salvo`);
    if (c.contains("revealed") && !c.contains("sunk")) parts.push("ship not found");
    if (c.contains("aimed")) parts.push("marked for the salvo");
    if (c.contains("last")) parts.push("the last shot");
    if (b.dataset.answers) parts.push(b.dataset.answers);  // answers that lie: every answer the square got
    if (extra && extra[i]) parts.push(extra[i]);
    b.setAttribute("aria-label", `${cellName(i, cols)}, ${parts.length ? parts.join(", ") : "not fired at"}`);
  });
}

// A short animation on a square just fired at (none when the system asks for less motion).
function animate(cell, outcome) {
  if (REDUCED_MOTION || !cell) return;
  const name = `anim-${outcome}`;
  cell.classList.remove(name);
  void cell.offsetWidth;  // restart the animation
  cell.classList.add(name);
  setTimeout(() => cell.classList.remove(name), 1200);  // longer than any of the animations
}

// Sounds made on the spot with the Web Audio API (nothing fetched); a switch in the header mutes them.
const sound = (() => {
  let context = null;
  let muted = localStorage.getItem("battleship-muted") === "1";
  function show() {
    const b = $("sound");
    if (!b) return;
    b.textContent = muted ? "Sound off" : "Sound on";
    b.setAttribute("aria-pressed", String(!muted));
  }
  function tone(frequency, start, length, type = "sine", volume = 0.15, slide = 0) {
    const t = context.currentTime + start, osc = context.createOscillator(), gain = context.createGain();
    osc.type = type;
    osc.frequency.setValueAtTime(frequency, t);
    if (slide) osc.frequency.exponentialRampToValueAtTime(Math.max(30, frequency + slide), t + length);
    gain.gain.setValueAtTime(volume, t);
    gain.gain.exponentialRampToValueAtTime(0.0001, t + length);
    osc.connect(gain).connect(context.destination);
    osc.start(t);
    osc.stop(t + length + 0.02);
  }
  function noise(start, length, volume = 0.2, cutoff = 900) {
    const t = context.currentTime + start, samples = Math.floor(context.sampleRate * length);
    const buffer = context.createBuffer(1, samples, context.sampleRate), data = buffer.getChannelData(0);
    for (let i = 0; i < samples; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / samples);
    const source = context.createBufferSource(), filter = context.createBiquadFilter(), gain = context.createGain();
    filter.type = "lowpass"; filter.frequency.value = cutoff; gain.gain.value = volume;
    source.buffer = buffer;
    source.connect(filter).connect(gain).connect(context.destination);
    source.start(t);
  }
  const SOUNDS = {
    miss: () => { noise(0, 0.35, 0.18, 700); tone(420, 0, 0.18, "sine", 0.05, -200); },
    hit: () => { noise(0, 0.25, 0.3, 2200); tone(110, 0, 0.3, "triangle", 0.25, -60); },
    sunk: () => { noise(0, 0.6, 0.3, 1200); [392, 330, 262, 196].forEach((f, k) => tone(f, 0.08 + k * 0.12, 0.2, "square", 0.06)); },
    win: () => [523, 659, 784, 1047].forEach((f, k) => tone(f, k * 0.13, 0.22, "triangle", 0.12)),
    lose: () => [392, 349, 311, 262].forEach((f, k) => tone(f, k * 0.18, 0.3, "sine", 0.12)),
    turn: () => tone(880, 0, 0.12, "sine", 0.06),
  };
  document.addEventListener("DOMContentLoaded", () => {
    show();
    const b = $("sound");
    if (b) b.addEventListener("click", () => { muted = !muted; localStorage.setItem("battleship-muted", muted ? "1" : "0"); show(); });
  });
  return {
    play(name) {
      if (muted || !SOUNDS[name] || !window.AudioContext) return;
      try {
        context = context || new AudioContext();
        if (context.state === "suspended") context.resume();
        SOUNDS[name]();
      } catch (err) { /* no audio device: play on silently */ }
    },
    get muted() { return muted; },
  };
})();

// The games this browser has played (ids and seats only; no account): newest first, at most 200.
const myGames = {
  KEY: "battleship-history",
  all() {
    try { return JSON.parse(localStorage.getItem(this.KEY) || "[]"); } catch (err) { return []; }
  },
  add(entry) {
    const list = this.all().filter((g) => g.id !== entry.id || g.seat !== entry.seat);
    list.unshift({...entry, started: entry.started || new Date().toISOString()});
    localStorage.setItem(this.KEY, JSON.stringify(list.slice(0, 200)));
  },
  remove(id, seat) {
    localStorage.setItem(this.KEY, JSON.stringify(this.all().filter((g) => !(g.id === id && (g.seat || null) === (seat || null)))));
  },
  clear() { localStorage.removeItem(this.KEY); },
};

// A yes/no question in a dialog (resolves true for yes); the page stays usable with the keyboard.
function confirmDialog(question, yes = "Yes", no = "No") {
  return new Promise((resolve) => {
    const dialog = document.createElement("dialog");
    dialog.setAttribute("aria-label", question);
    dialog.innerHTML = `<p></p><div class="controls"><button type="button" class="primary" data-answer="yes"></button><button type="button" data-answer="no"></button></div>`;
    dialog.querySelector("p").textContent = question;
    dialog.querySelector("[data-answer=yes]").textContent = yes;
    dialog.querySelector("[data-answer=no]").textContent = no;
    document.body.appendChild(dialog);
    const done = (answer) => { dialog.close(); dialog.remove(); resolve(answer); };
    dialog.addEventListener("click", (e) => { if (e.target.dataset.answer) done(e.target.dataset.answer === "yes"); });
    dialog.addEventListener("cancel", (e) => { e.preventDefault(); done(false); });
    dialog.showModal();
    dialog.querySelector("[data-answer=no]").focus();
  });
}

// Copy text to the clipboard, saying so in ``status`` (or showing it, where copying is not allowed).
async function copyText(text, status) {
  try { await navigator.clipboard.writeText(text); status.textContent = "Copied."; }
  catch (err) { status.textContent = "Copy it from the box."; }
}
