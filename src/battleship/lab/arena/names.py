"""Names are data: what a bot, an entry or a results file says is shown with its control characters
escaped, so no name reaches a terminal, a table or a web page as a command.

One function, :func:`escape`, is used for bot names, entry names, ``name`` lines, error texts and
verification reports alike: C0 and C1 control characters (the escape that starts a terminal's
colour or hyperlink sequence, carriage returns, backspaces), DEL, and the Unicode format characters
that reorder or hide text (bidirectional overrides and isolates, zero-width characters) become
visible ``\\x1b``-style escapes. Escaping twice changes nothing (a backslash is left as it is), so a
name escaped when a run is saved is shown as saved.
"""

from __future__ import annotations

import unicodedata


def _needs_escape(char: str) -> bool:
    return unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Zl", "Zp")


def escape(text: object) -> str:
    """``text`` (any value: a name from a file may be a number or null) with every control and format
    character escaped; plain text comes back unchanged."""
    text = "" if text is None else str(text)
    if not any(_needs_escape(c) for c in text):
        return text
    out = []
    for char in text:
        if _needs_escape(char):
            code = ord(char)
            out.append(
                f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
            )
        else:
            out.append(char)
    return "".join(out)
