"""A player's name, as people will see it on a screen: what it may hold, checked in one place.

A name is shown next to a key, never instead of proof of one, so the danger is a name that draws
something other than itself: a control character that moves the cursor or rings the bell, a bidi
override that turns the rest of a line around (``U+202E``), an invisible character that makes two
names look alike. So a name holds letters, digits, combining marks, single spaces inside it and
``- _ . '``, and nothing else, at most :data:`MAX_LENGTH` characters after NFC normalisation.

It sits in ``wire`` because a name sent in the match setup (issue 29 item 2) must be held to the same rule
as the name a player gives a key locally (``koikoi id --call``), which is what uses it today.

>>> PlayerName.parse("  Ōkami ").format()
'Ōkami'
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

__all__ = ["MAX_LENGTH", "BadName", "PlayerName"]

MAX_LENGTH = 24
_PUNCTUATION = frozenset("-_.'")
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


class BadName(ValueError):
    """The text cannot be a name; the message says why, in one line."""


def _refusal(char: str) -> str | None:
    """Why ``char`` may not be in a name, or None when it may."""
    category = unicodedata.category(char)
    code = f"U+{ord(char):04X}"
    if char in _BIDI:
        return f"a bidi control ({code} {unicodedata.name(char, 'unnamed')}), which reorders what is shown"
    if category == "Cc":
        return f"a control character ({code})"
    if category[0] in "LMN" or char == " " or char in _PUNCTUATION:
        return None
    if category[0] in "CZ":
        return f"an invisible or spacing character ({code} {unicodedata.name(char, 'unnamed')})"
    return f"{char!r} ({code}): only letters, digits, single spaces and - _ . ' are allowed"


@dataclass(frozen=True, slots=True)
class PlayerName:
    """A checked name: :meth:`parse` it from what a person typed, :meth:`format` it to show it."""

    text: str

    @classmethod
    def parse(cls, raw: str) -> PlayerName:
        """The name in ``raw`` (outer spaces dropped, NFC), or :class:`BadName` saying what is wrong."""
        text = unicodedata.normalize("NFC", raw.strip(" "))
        for char in text:
            why = _refusal(char)
            if why is not None:
                raise BadName(f"a name may not hold {why}")
        if not text:
            raise BadName("a name needs at least one letter or digit")
        if "  " in text:
            raise BadName("a name may not hold two spaces in a row")
        if len(text) > MAX_LENGTH:
            raise BadName(f"a name is at most {MAX_LENGTH} characters, not {len(text)}")
        if not any(unicodedata.category(c)[0] in "LN" for c in text):
            raise BadName("a name needs at least one letter or digit")
        return cls(text)

    def format(self) -> str:
        return self.text

    def __str__(self) -> str:
        return self.text
