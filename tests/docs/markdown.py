"""What the docs ask a reader to run, read out of the Markdown (the rule is in docs/design/architecture.md,
"Docs that run"):

- a fenced block tagged ``sh`` is run line by line (``#`` comments skipped, ``\\`` continues a line);
- a fenced block tagged ``python`` is run as a script;
- a fenced block tagged ``console`` holds commands (``$ `` lines) each followed by what it prints on
  standard output, which must match (trailing spaces aside; ``…`` stands for any text);
- an inline code span that starts with ``battleship `` and a command (or an option), or with
  ``.venv/bin/python ``, is a command and is run, unless it is a synopsis (an all-capitals
  placeholder such as ``FILE`` or ``N``, or ``[...]`` alternatives) or a bare command name;
- ``<!-- not run: reason -->`` leaves out the spans on its own line (for a span over several lines:
  any of them), or, alone on a line, the next block or paragraph.

Long runs are scaled down by :func:`scaled` (never a console block: its output is checked as written).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

NOT_RUN = re.compile(r"<!--\s*not run:\s*(.+?)\s*-->")
FILE = re.compile(r"<!--\s*file:\s*(\S+)\s*-->")
SPAN = re.compile(r"(?<!`)`([^`\n]+(?:\n[^`\n]+)*)`(?!`)")
PLACEHOLDER = re.compile(r"[A-Z][A-Z0-9_]*")  # a whole word: FILE, N, R
NAMED_PLACE = re.compile(r"(?:^|[^A-Za-z0-9.])[A-Z][A-Z0-9_]+(?:$|[^A-Za-z0-9.])")  # tcp://HOST:8786
NEVER = {"serve"}  # commands that run until stopped
SHELL = re.compile(r"[|;<>&$]|\b2>")


@dataclass
class Item:
    """One thing a document asks to run: a command, a script, or a command with its expected output."""

    doc: str
    line: int
    kind: str  # "command", "python", "console" or "file" (a block written to the scratch folder)
    text: str
    expected: str = ""  # a console block's output
    skipped: str = ""  # why it is not run ("" when it is)
    commands: list[str] = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"{self.doc}:{self.line}"


def items(path: Path, commands: set[str], name: str | None = None) -> list[Item]:
    """Every item of one Markdown file, in order; ``commands`` names the ``battleship`` commands, and
    ``name`` the document in reports (its file name unless given: pages in folders give their path)."""
    doc = name or path.name
    lines = path.read_text(encoding="utf-8").split("\n")
    out: list[Item] = []
    pending_skip = pending_file = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        marker, named = NOT_RUN.search(line), FILE.search(line)
        if (marker or named) and not FILE.sub("", NOT_RUN.sub("", line)).strip():
            pending_skip = marker.group(1) if marker else pending_skip
            pending_file = named.group(1) if named else pending_file
            i += 1
            continue
        if line.startswith("```"):
            tag = line[3:].strip()
            end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("```")), len(lines))
            body = "\n".join(lines[i + 1 : end])
            if pending_file:
                out.append(Item(doc, i + 1, "file", body + "\n", expected=pending_file))
            else:
                out += _block(doc, i + 1, tag, body, pending_skip)
            pending_skip = pending_file = ""
            i = end + 1
            continue
        if not line.strip():
            pending_skip = pending_file = ""
            i += 1
            continue
        end = i
        while end < len(lines) and lines[end].strip() and not lines[end].startswith("```"):
            end += 1
        out += _spans(doc, i, lines[i:end], commands, pending_skip)
        pending_skip = ""
        i = end
    return out


def _block(doc: str, line: int, tag: str, body: str, skip: str) -> list[Item]:
    if tag in ("sh", "bash"):
        return [Item(doc, line + n + 1, "command", c, skipped=skip) for n, c in _shell_lines(body)]
    if tag == "python":
        return [Item(doc, line, "python", body, skipped=skip)]
    if tag == "console":
        return _console(doc, line, body, skip)
    return []


def _shell_lines(body: str) -> list[tuple[int, str]]:
    """The commands of an ``sh`` block: comments and blank lines skipped, continued lines joined."""
    out, current, start = [], "", 0
    for n, raw in enumerate(body.split("\n")):
        text = raw.rstrip()
        if not current:
            start = n
            if not text.strip() or text.lstrip().startswith("#"):
                continue
        if text.endswith("\\"):
            current += text[:-1].strip() + " "
            continue
        out.append((start, (current + text.strip()).strip()))
        current = ""
    return out


def _console(doc: str, line: int, body: str, skip: str) -> list[Item]:
    """``$ command`` lines, each with the output that follows it."""
    out: list[Item] = []
    for n, raw in enumerate(body.split("\n")):
        if raw.startswith("$ "):
            out.append(Item(doc, line + n + 1, "console", raw[2:].strip(), skipped=skip))
        elif out:
            out[-1].expected += raw + "\n"
        elif raw.strip():
            raise ValueError(f"{doc}:{line + n + 1}: a console block starts with a '$ ' command")
    for item in out:
        item.expected = item.expected.rstrip("\n") + "\n"
    return out


def _spans(doc: str, first: int, paragraph: list[str], commands: set[str], skip: str) -> list[Item]:
    """The commands in a paragraph's (or a table row's) inline code."""
    text = "\n".join(paragraph)
    out = []
    for match in SPAN.finditer(text):
        span = " ".join(match.group(1).split())
        line_no = first + text.count("\n", 0, match.start()) + 1
        last = first + text.count("\n", 0, match.end()) + 1
        lines = "\n".join(paragraph[line_no - first - 1 : last - first])  # the lines the span is on
        marker = NOT_RUN.search(NOT_RUN.sub(lambda m: m.group(0), lines))
        if is_command(span, commands):
            out.append(
                Item(doc, line_no, "command", span, skipped=skip or (marker.group(1) if marker else ""))
            )
    return out


def is_command(span: str, commands: set[str]) -> bool:
    """True for a span that is a whole command to run (see the module docstring)."""
    try:
        words = shlex.split(span)
    except ValueError:
        return False
    if len(words) < 2:
        return False
    if words[0] == "battleship":
        if words[1] not in commands and not words[1].startswith("-"):
            return False  # not a command: a protocol line such as "battleship 1"
        if len(words) == 2 and not words[1].startswith("-"):
            return False  # a command's name, not an invocation
        if words[1] in NEVER:
            return False
    elif words[0] != ".venv/bin/python":
        return False
    placeholder = any(PLACEHOLDER.fullmatch(w) or NAMED_PLACE.search(w) for w in words)
    return not placeholder and "[" not in span


# the scaling rule: each option's value is capped so that a documented run takes seconds in the suite
CAPS = {
    "--games": 20,
    "-n": 20,
    "--count": 1000,
    "--draws": 10_000,
    "--train": 500,
    "--iterations": 20,
    "--check": 10,
    "--uniform-games": 20,
    "--seeds": 2,
    "--slow-games": 2,
    "--episodes": 2,
    "--matches": 2,
    "--pirates-games": 1,
}
# when a shooter is played in Python
SLOW_CAPS = {"--games": 1, "-n": 1, "--check": 1, "--uniform-games": 1, "--slow-games": 1}


# counts a command uses when none is given: the cap is given instead
DEFAULTS = {
    "simulate": ("--games",),
    "compare": ("--games",),
    "match": ("--games",),
    "sweep": ("--games",),
    "arena": ("--games",),
    "defend": ("--check", "--uniform-games", "--iterations"),
}


def scaled(command: str, played_in_python: bool) -> str:
    """``command`` with every count above its cap lowered to it (:data:`CAPS`; :data:`SLOW_CAPS` when
    a shooter without a kernel plays), the caps given where a command would use a larger default
    (:data:`DEFAULTS`; not where ``--layouts`` sets the games), and ``--sizes`` cut to its first two sides."""
    caps = {**CAPS, **(SLOW_CAPS if played_in_python else {})}
    words = command.split()
    if len(words) > 1 and words[0] == "battleship" and not SHELL.search(command):
        for option in DEFAULTS.get(words[1], ()):
            given = option in words or (option == "--games" and ("-n" in words or "--layouts" in words))
            if not given:
                command += f" {option} {caps[option]}"
    for option, cap in caps.items():
        command = re.sub(
            rf"(?<!\S){re.escape(option)}(\s+|=)(\d+)(?!\S)",
            lambda m, cap=cap, option=option: f"{option}{m.group(1)}{min(int(m.group(2)), cap)}",
            command,
        )

    def sides(m: re.Match) -> str:
        low, high = m.group(1), m.group(2)
        if high is not None:
            return f"--sizes {low}..{min(int(high), int(low) + 1)}"
        return "--sizes " + ",".join(m.group(3).split(",")[:2])

    return re.sub(r"(?<!\S)--sizes\s+(?:(\d+)\.\.(\d+)|([\d,]+))", sides, command)


ELLIPSIS = "\u2026"  # in a console block's output, stands for any text (``...`` is too common in boards)


def matches(expected: str, actual: str) -> bool:
    """Does ``actual`` read as ``expected``, where ``…`` stands for any text (trailing spaces aside)?"""
    expected = "\n".join(line.rstrip() for line in expected.strip("\n").split("\n"))
    actual = "\n".join(line.rstrip() for line in actual.strip("\n").split("\n"))
    pattern = ".*?".join(re.escape(part) for part in expected.split(ELLIPSIS))
    return re.fullmatch(pattern, actual, re.S) is not None
