"""The screen's two alphabets: Unicode (the default) and an ASCII fallback.

Every line is drawn in Unicode first; for a terminal that cannot show it, :func:`to_ascii`
maps each character to one ASCII character, so the styles of a rich ``Text`` (which are
spans over character positions) stay exactly where they were.
"""

from __future__ import annotations

import unicodedata

from rich.text import Text

__all__ = ["SPINNER_ASCII", "SPINNER_UNICODE", "ascii_line", "to_ascii"]

SPINNER_UNICODE = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
SPINNER_ASCII = "|/-\\"

_MAP = {
    "…": ".",
    "·": "|",
    "—": "-",
    "–": "-",
    "×": "x",
    "→": ">",
    "←": "<",
    "↓": "v",
    "↑": "^",
    "▶": ">",
    "◀": "<",
    "▲": "^",
    "▼": "v",
    "★": "*",
    "✓": "+",
    "•": "*",
    "─": "-",
    "━": "=",
    "│": "|",
    "┃": "|",
    "═": "=",
    "║": "|",
    "’": "'",
    "‘": "'",
    "“": '"',
    "”": '"',
    "↵": "<",
}


def _ascii_char(char: str) -> str:
    if char.isascii():
        return char
    mapped = _MAP.get(char)
    if mapped is not None:
        return mapped
    if "\u2500" <= char <= "\u257f":  # box drawing corners and joints
        return "+"
    base = unicodedata.normalize("NFKD", char)[0]  # ō -> o, é -> e
    return base if base.isascii() else "?"


def to_ascii(text: str) -> str:
    """``text`` with every character replaced by one ASCII character (same length)."""
    return "".join(_ascii_char(c) for c in text)


def ascii_line(line: Text) -> Text:
    """A copy of ``line`` in ASCII, keeping its styles."""
    out = line.copy()
    out.plain = to_ascii(line.plain)
    return out
