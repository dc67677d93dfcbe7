#!/usr/bin/env node
// An external arena bot in JavaScript (Node.js, no packages): hunt on a checkerboard, then target.
//
// Run it:  battleship arena "exec:node examples/bots/hunt_target.js" density:skew=20 --games 200
//
// It speaks the arena protocol, version 1 (docs/arena-protocol.md), on stdin and stdout, as
// examples/bots/hunt_target.py does; its random numbers come from each game's seed (mulberry32).
"use strict";
const readline = require("readline");

const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
let rows = 0, cols = 0;
let fired = new Set(), hits = new Set(), random = seeded(0);

function seeded(seed) {  // mulberry32 on the low 32 bits of the game's seed
  let a = Number(BigInt(seed) & 0xffffffffn);
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const say = (line) => process.stdout.write(line + "\n");
const name = (cell) => LETTERS[Math.floor(cell / cols)] + String((cell % cols) + 1);
const parse = (text) => LETTERS.indexOf(text[0]) * cols + parseInt(text.slice(1), 10) - 1;
const pick = (list) => list[Math.floor(random() * list.length)];

function neighbours(cell) {
  const r = Math.floor(cell / cols), c = cell % cols, out = [];
  for (const [y, x] of [[r - 1, c], [r + 1, c], [r, c - 1], [r, c + 1]]) {
    if (y >= 0 && y < rows && x >= 0 && x < cols) out.push(y * cols + x);
  }
  return out;
}

function shoot() {
  const targets = [...new Set([...hits].flatMap(neighbours))].filter((c) => !fired.has(c)).sort((a, b) => a - b);
  const free = [];
  for (let c = 0; c < rows * cols; c++) if (!fired.has(c)) free.push(c);
  const parity = free.filter((c) => (Math.floor(c / cols) + (c % cols)) % 2 === 0);
  const cell = pick(targets.length ? targets : parity.length ? parity : free);
  fired.add(cell);
  say(name(cell));
}

const input = readline.createInterface({ input: process.stdin });
input.on("line", (line) => {
  const words = line.trim().split(/\s+/);
  switch (words[0]) {
    case "board": rows = +words[1]; cols = +words[2]; break;
    case "isready": say("name hunt-target (javascript)"); say("readyok"); break;
    case "newgame": fired = new Set(); hits = new Set(); random = seeded(words[2]); break;
    case "shoot": shoot(); break;
    case "result":
      if (words[2] === "hit" || words[2] === "sunk") hits.add(parse(words[1]));
      if (words.length > 4) for (const c of words[4].split(",")) hits.delete(parse(c));
      break;
    case "place": say("layout random"); break;
    case "quit": process.exit(0);  // input.close() alone would wait while stdin stays open
    default: break;  // anything else needs no answer
  }
});
