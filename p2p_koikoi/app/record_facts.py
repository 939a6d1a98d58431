"""What ``koikoi history`` needs from one checked record, small enough to cache: the verdict
``koikoi verify`` gave it, the two keys, the names they sent (signed in the setup), and how the match ended.

It is taken from a :class:`~p2p_koikoi.record.verify.VerifyReport` (the one verification the project has)
and never from the file itself, so nothing here can say more than ``koikoi verify`` said. ``to_json`` and
``parse`` are a pair: the verdict cache (``verdict_cache.py``) keeps the one and reads back the other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from p2p_koikoi.record.verify import Verdict, VerifyReport

__all__ = ["RecordFacts"]


@dataclass(frozen=True, slots=True)
class RecordFacts:
    """One record as verified alone (or, for a match kept in several copies, next to the others).

    ``keys`` are the seats' public keys in hex; ``names`` the names they sent (None for none); ``how`` the
    ending's id; ``ender`` the seat that ended the match (quit, claimed, accused); ``winner`` the seat the
    ending gives the match; ``points`` the match's points as they stood at its end (host's, guest's); ``why``
    the reason id of the first failure, or the problem that made the file unreadable."""

    verdict: Verdict
    match_id: str | None = None
    keys: tuple[str | None, str | None] = (None, None)
    names: tuple[str | None, str | None] = (None, None)
    writer_seat: int | None = None
    entries: int = 0
    how: str | None = None
    ender: int | None = None
    winner: int | None = None
    claimed: bool = False
    points: tuple[int, int] | None = None
    why: str = ""

    @classmethod
    def of(cls, report: VerifyReport) -> RecordFacts:
        end = report.ending
        outcome = end.outcome if end is not None else None
        why = report.finding.reason if report.finding is not None else report.problem
        return cls(
            verdict=report.verdict,
            match_id=report.match_id.hex() if report.match_id is not None else None,
            keys=(_hex(report.keys[0]), _hex(report.keys[1])),
            names=report.names,
            writer_seat=report.writer_seat,
            entries=report.entries,
            how=str(end.how) if end is not None else None,
            ender=end.seat if end is not None else None,
            winner=outcome.winner if outcome is not None else None,
            claimed=end.claimed if end is not None else False,
            points=(outcome.points[0], outcome.points[1]) if outcome is not None else None,
            why=why,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "match_id": self.match_id,
            "keys": list(self.keys),
            "names": list(self.names),
            "writer_seat": self.writer_seat,
            "entries": self.entries,
            "how": self.how,
            "ender": self.ender,
            "winner": self.winner,
            "claimed": self.claimed,
            "points": list(self.points) if self.points is not None else None,
            "why": self.why,
        }

    @classmethod
    def parse(cls, data: dict[str, Any]) -> RecordFacts:
        """The facts :meth:`to_json` wrote (``KeyError``/``TypeError``/``ValueError`` if they are not)."""
        keys = data["keys"]
        names = data["names"]
        points = data["points"]
        return cls(
            verdict=Verdict(str(data["verdict"])),
            match_id=_optional_str(data["match_id"]),
            keys=(_optional_str(keys[0]), _optional_str(keys[1])),
            names=(_optional_str(names[0]), _optional_str(names[1])),
            writer_seat=_optional_int(data["writer_seat"]),
            entries=int(data["entries"]),
            how=_optional_str(data["how"]),
            ender=_optional_int(data["ender"]),
            winner=_optional_int(data["winner"]),
            claimed=bool(data["claimed"]),
            points=(int(points[0]), int(points[1])) if points is not None else None,
            why=str(data["why"]),
        )


def _hex(key: bytes | None) -> str | None:
    return key.hex() if key else None


def _optional_str(value: Any) -> str | None:
    return None if value is None else str(value)


def _optional_int(value: Any) -> int | None:
    return None if value is None else int(value)
