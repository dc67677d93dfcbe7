// A Node.js bot for the arena's tests: fires in reading order and names itself with the CPUs it sees
// (os.cpus(), and os.availableParallelism(), which worker pools are sized by).
const os = require("os");
const readline = require("readline");

let cols = 10;
let shots = 0;
const say = (line) => process.stdout.write(line + "\n");
readline.createInterface({input: process.stdin}).on("line", (line) => {
  const words = line.trim().split(/\s+/);
  if (words[0] === "board") cols = Number(words[2]);
  else if (words[0] === "isready") {
    say(`name node:cpus:${os.cpus().length}:${os.availableParallelism()}`);
    say("readyok");
  } else if (words[0] === "newgame") shots = 0;
  else if (words[0] === "shoot") {
    say(String.fromCharCode(65 + Math.floor(shots / cols)) + String((shots % cols) + 1));
    shots++;
  } else if (words[0] === "quit") process.exit(0);
});
