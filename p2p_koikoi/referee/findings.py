"""What a check of a match found wrong: where, why, and who is to blame.

Every tool that reads a match (the verifier, the exporter, the replayer) stops at
the first :class:`Finding`. Its ``reason`` is a short stable id, the same one the
playing session uses for the same check (``result-mismatch``, ``not-a-card``,
``illegal-move:card-not-in-hand``, ...), so the finding of ``koikoi verify`` can
be compared with the note the honest player wrote during the match.

``blame`` is a seat only when the record proves that seat at fault: it signed
the offending entry, or it owed a message that re-derives otherwise. Damage that
anybody could have done to the file (a byte flipped, an entry dropped, moved or
spliced in, a signature that does not verify) blames nobody: ``None``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from p2p_koikoi.wire import RemoteProtocolError

__all__ = ["BadBytes", "Finding", "Rejected", "Violation", "blame_words"]


@dataclass(frozen=True, slots=True)
class Finding:
    """The first thing wrong with a match.

    ``entry`` is the record entry at fault (``None`` for a transcript, where
    ``where`` says the round and turn instead); ``found_at`` is the entry at
    which it became evident, when that is later (a deck pass is proved wrong
    only when its owner's secret comes out).
    """

    entry: int | None
    reason: str
    text: str
    blame: int | None
    where: str = ""
    found_at: int | None = None

    @property
    def location(self) -> str:
        if self.where:
            return self.where
        return f"entry {self.entry}" if self.entry is not None else "the match"

    def line(self) -> str:
        """The finding in one line: where, what, who."""
        found = f" (found at entry {self.found_at})" if self.found_at is not None else ""
        return f"{self.location}: {self.reason}: {self.text}{found}; {blame_words(self.blame)}"

    def to_json(self) -> dict[str, Any]:
        return {
            "entry": self.entry,
            "where": self.location,
            "reason": self.reason,
            "text": self.text,
            "blame": self.blame,
            "found_at": self.found_at,
        }


def blame_words(blame: int | None) -> str:
    if blame is None:
        return "nobody provably to blame"
    return f"seat {blame} ({'host' if blame == 0 else 'guest'}) to blame"


class Violation(RemoteProtocolError):
    """A rule broken, as the referee rules it: carries the :class:`Finding` (the entry at fault, the
    reason id, who is to blame). The one error every observer raises for a bad entry, the live seat
    and ``koikoi verify`` alike; our own bugs are never turned into one."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.reason, finding.text, blame=finding.blame)
        self.finding = finding

    def __str__(self) -> str:
        return self.finding.text


class BadBytes(Violation):
    """An entry a live seat received that never joined the chain (a bad signature, a wrong link, another
    match's entry, a replay, out of turn, a wrong state hash): nobody but the receiver saw those bytes, so
    they prove nothing to anyone else. The seat treats them as a broken connection, not as an ending
    (SPEC.md section 7); the referee keeps no finding and the chain goes on unharmed."""


Rejected = Violation  # the name readers of transcripts use
