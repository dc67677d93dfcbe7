// Shared helpers of the pages: requests, cell names, the viridis scale, boards, chart axis titles.
"use strict";

const $ = (id) => document.getElementById(id);
const AXIS = (text) => ({display: true, text, font: {size: 13}});  // a Chart.js axis title

// 429 (too many requests) and 503 (saturated) are answered before any work is done, so asking again
// after the server's Retry-After is safe even for a shot; a few tries, then the server's words are shown.
const API_TRIES = 5;

async function api(path, body) {
  const options = body === undefined ? {} : {
    method: "POST", headers: {"content-type": "application/json"}, body: JSON.stringify(body),
  };
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(path, options);
    const data = await response.json().catch(() => ({detail: response.statusText}));
    if (response.ok) return data;
    const busy = response.status === 429 || response.status === 503;
    if (!busy || attempt === API_TRIES) throw new Error(data.detail || response.statusText);
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
    if (c.contains("revealed") && !c.contains("sunk")) parts.push("ship not found");
    if (extra && extra[i]) parts.push(extra[i]);
    b.setAttribute("aria-label", `${cellName(i, cols)}, ${parts.length ? parts.join(", ") : "not fired at"}`);
  });
}
