"""``koikoi history``: each opponent's record against us, counted only from records ``koikoi verify`` accepts.

A result counts when its record verifies (verdict ``verified``: every signature, link, deal, move and count
checked, the match ended), one seat's key is our identity key, and the ending gives a result (played out,
a forfeit, a silence, a proven violation). Everything else is left out and said so, with why: a record
that fails (edited by hand, or a copy that forked), a disputed match, an unfinished one, an adjourned or
declined one (nobody won), another player's match, or a second copy of a match already counted. A record
edited by hand therefore changes nothing: it no longer verifies. Two copies of one match are judged
together (``history_check.py``): a copy that falls against the other is left out as failed, and a match
is counted once, from a copy that stands.

Matches are in the order they were played, which is the order of their file names (the date first), as
``koikoi list`` has them; each keeps its ``koikoi list``/``koikoi replay`` number.

An opponent is a key, called by the name we gave it (``koikoi id --call``), else by the name it last sent,
signed in a counted match's setup, else by its short fingerprint; a name is always shown with the short
fingerprint, since anyone can send any name, and a name is never used to find a key: ``koikoi history
NAME`` looks up our own names only (and says which key sent that name, when one did).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from p2p_koikoi.app.call_names import CallNames
from p2p_koikoi.app.history_check import Checked, check_records
from p2p_koikoi.app.identity import data_dir, load_identity, replay_dir
from p2p_koikoi.app.listing import recent_records, record_date
from p2p_koikoi.app.ratings import Ratings, Scored, rate_history
from p2p_koikoi.app.record_facts import RecordFacts
from p2p_koikoi.app.verdict_cache import CACHE_FILE, VerdictCache
from p2p_koikoi.record.identity_names import fingerprint
from p2p_koikoi.record.verify import Verdict
from p2p_koikoi.wire import public_bytes

__all__ = [
    "Counted",
    "History",
    "Left",
    "LeftOut",
    "Opponent",
    "Result",
    "Way",
    "find_opponent",
    "load_history",
    "tally",
]


class Result(enum.Enum):
    WIN = "win"
    LOSS = "loss"
    DRAW = "draw"

    @property
    def score(self) -> float:
        return {Result.WIN: 1.0, Result.DRAW: 0.5, Result.LOSS: 0.0}[self]


class Way(enum.Enum):
    """What decided a counted match (the ending's id, ``referee/events.py``)."""

    COUNT = "finished"  # played out: the count
    FORFEIT = "forfeit"  # a seat left: a quit, a concession, a baseless accusation
    SILENCE = "silence"  # a seat went silent; ``claimed`` when one seat alone says so
    VIOLATION = "violation"  # a cheat the record proves


class LeftOut(enum.Enum):
    """Why a record is not counted; the value is what the output says."""

    FAILED = "failed verification"
    DISPUTED = "disputed"
    UNFINISHED = "unfinished"
    UNREADABLE = "unreadable"
    UNSIGNED = "a transcript, unsigned"
    NOT_OURS = "not ours (neither seat is your key)"
    ADJOURNED = "adjourned (nobody won)"
    DECLINED = "declined (no match)"
    NO_RESULT = "no result"
    SECOND_COPY = "another copy of a match counted once"


_VERDICTS = {
    Verdict.FAILED: LeftOut.FAILED,
    Verdict.DISPUTED: LeftOut.DISPUTED,
    Verdict.INCOMPLETE: LeftOut.UNFINISHED,
    Verdict.UNREADABLE: LeftOut.UNREADABLE,
    Verdict.CONSISTENT: LeftOut.UNSIGNED,
}
_ENDINGS = {"adjourned": LeftOut.ADJOURNED, "declined": LeftOut.DECLINED}


@dataclass(frozen=True, slots=True)
class Left:
    """A record left out, why, and the detail (the failure's reason id, or the problem)."""

    path: Path
    why: LeftOut
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Counted:
    """One counted match, from our side: ``number`` is its ``koikoi replay`` number."""

    path: Path
    number: int
    date: str
    opponent: str  # the opponent's key, hex
    result: Result
    way: Way
    claimed: bool
    points_for: int
    points_against: int
    sent_name: str | None = None  # the name the opponent sent in this match, signed in its setup

    def to_json(self) -> dict[str, Any]:
        return {
            "file": str(self.path),
            "sent_name": self.sent_name,
            "replay": self.number,
            "date": self.date,
            "result": self.result.value,
            "how": self.way.value,
            "claimed": self.claimed,
            "points_for": self.points_for,
            "points_against": self.points_against,
        }


@dataclass(frozen=True, slots=True)
class Opponent:
    """Every counted match against one key, in the order played."""

    key: str
    name: str | None
    matches: tuple[Counted, ...]

    @property
    def fingerprint(self) -> str:
        return fingerprint(bytes.fromhex(self.key))

    @property
    def short(self) -> str:
        return self.fingerprint.replace(":", "")[:8]

    @property
    def sent_name(self) -> str | None:
        """The name the key sent in the latest counted match that carried one."""
        return next((m.sent_name for m in reversed(self.matches) if m.sent_name is not None), None)

    @property
    def label(self) -> str:
        """Our name for the key, else the name it sent, with its short fingerprint; the short fingerprint
        alone without either."""
        name = self.name or self.sent_name
        return f"{name} ({self.short})" if name else self.short

    def count(self, result: Result, way: Way | None = None, *, claimed: bool | None = None) -> int:
        return sum(
            1
            for m in self.matches
            if m.result is result and (way is None or m.way is way) and (claimed is None or m.claimed is claimed)
        )

    @property
    def points_for(self) -> int:
        return sum(m.points_for for m in self.matches)

    @property
    def points_against(self) -> int:
        return sum(m.points_against for m in self.matches)

    def running_difference(self) -> list[int]:
        """Points for less points against, after each match in turn."""
        out, total = [], 0
        for m in self.matches:
            total += m.points_for - m.points_against
            out.append(total)
        return out

    def to_json(self, ratings: Ratings) -> dict[str, Any]:
        rating = ratings.opponents.get(self.key)
        return {
            "key": self.key,
            "fingerprint": self.fingerprint,
            "name": self.name,
            "sent_name": self.sent_name,
            "matches": len(self.matches),
            "wins": self.count(Result.WIN),
            "losses": self.count(Result.LOSS),
            "draws": self.count(Result.DRAW),
            "forfeits": {"won": self.count(Result.WIN, Way.FORFEIT), "lost": self.count(Result.LOSS, Way.FORFEIT)},
            "silence": {
                "won": self.count(Result.WIN, Way.SILENCE),
                "lost": self.count(Result.LOSS, Way.SILENCE),
                "claimed": sum(1 for m in self.matches if m.claimed),
            },
            "violations": {
                "won": self.count(Result.WIN, Way.VIOLATION),
                "lost": self.count(Result.LOSS, Way.VIOLATION),
            },
            "points_for": self.points_for,
            "points_against": self.points_against,
            "last": self.matches[-1].to_json() if self.matches else None,
            "rating": None if rating is None else ratings.to_json()["opponents"][self.key],
            "history": [m.to_json() for m in self.matches],
        }


@dataclass(frozen=True, slots=True)
class History:
    """The whole history: who we are, every opponent, what was left out, and the ratings."""

    folder: Path
    identity: str  # our key's fingerprint
    records: int
    opponents: tuple[Opponent, ...]
    left: tuple[Left, ...]
    ratings: Ratings = field(default_factory=Ratings)

    @property
    def counted(self) -> int:
        return sum(len(o.matches) for o in self.opponents)

    def left_by_reason(self) -> dict[LeftOut, list[Left]]:
        out: dict[LeftOut, list[Left]] = {}
        for left in self.left:
            out.setdefault(left.why, []).append(left)
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "folder": str(self.folder),
            "identity": self.identity,
            "records": self.records,
            "counted": self.counted,
            "left_out": [
                {
                    "reason": why.name.lower().replace("_", "-"),
                    "words": why.value,
                    "count": len(items),
                    "files": [{"file": str(i.path), "detail": i.detail} for i in items],
                }
                for why, items in self.left_by_reason().items()
            ],
            "opponents": [o.to_json(self.ratings) for o in self.opponents],
            "ratings": self.ratings.to_json(),
        }


def _why_left(facts: RecordFacts, ours: str) -> tuple[LeftOut, str] | None:
    """Why a record is left out, or None when it counts (its ending decides a result)."""
    if facts.verdict is not Verdict.VERIFIED:
        return _VERDICTS.get(facts.verdict, LeftOut.FAILED), facts.why
    if [key == ours for key in facts.keys].count(True) != 1:
        return LeftOut.NOT_OURS, ""
    if facts.how in _ENDINGS:
        return _ENDINGS[facts.how], ""
    if facts.how not in {w.value for w in Way} or facts.points is None:
        return LeftOut.NO_RESULT, facts.how or ""
    return None


def _counted(checked: Checked, number: int, ours: str) -> Counted:
    facts = checked.facts
    seat = facts.keys.index(ours)
    points = facts.points or (0, 0)
    result = Result.DRAW if facts.winner is None else Result.WIN if facts.winner == seat else Result.LOSS
    return Counted(
        checked.path,
        number,
        record_date(checked.path),
        facts.keys[1 - seat] or "",
        result,
        Way(facts.how),
        facts.claimed,
        points[seat],
        points[1 - seat],
        facts.names[1 - seat],
    )


def tally(folder: Path, checked: Sequence[Checked], ours: bytes, names: dict[str, str | None]) -> History:
    """The history of ``checked`` (oldest first, the whole folder) for the key ``ours``; ``names``: our name
    for each opponent's key (hex), where we gave one."""
    mine = ours.hex()
    counted: list[Counted] = []
    left: list[Left] = []
    seen: set[str] = set()
    for index, item in enumerate(checked):
        why = _why_left(item.facts, mine)
        if why is None and item.facts.match_id in seen:
            why = (LeftOut.SECOND_COPY, "")
        if why is not None:
            left.append(Left(item.path, *why))
            continue
        seen.add(item.facts.match_id or "")
        counted.append(_counted(item, len(checked) - index, mine))
    by_key: dict[str, list[Counted]] = {}
    for match in counted:
        by_key.setdefault(match.opponent, []).append(match)
    opponents = tuple(Opponent(key, names.get(key), tuple(ms)) for key, ms in by_key.items())
    scored = [Scored(m.opponent, m.result.score, m.claimed) for m in counted]
    return History(folder, fingerprint(ours), len(checked), opponents, tuple(left), rate_history(scored))


def load_history(
    directory: Path | None = None, jobs: int | None = None, on_done: Callable[[], None] | None = None
) -> History:
    """The history of the record folder (``--replay-dir``, else the default) for our identity key, its
    verdicts from the cache (in the data folder) where a file's content was checked before."""
    key = load_identity()
    folder = replay_dir(directory)
    paths = recent_records(directory)[::-1]
    cache = VerdictCache(data_dir() / CACHE_FILE, key)
    checked = check_records(paths, cache, jobs, on_done) if paths else []
    cache.save()
    called = CallNames()
    names: dict[str, str | None] = {}
    for item in checked:
        for hex_key in item.facts.keys:
            if hex_key is not None and hex_key not in names:
                name = called.name_of(fingerprint(bytes.fromhex(hex_key)).replace(":", ""))
                names[hex_key] = name.text if name is not None else None
    return tally(folder, checked, public_bytes(key), names)


def find_opponent(history: History, who: str) -> Opponent:
    """The opponent ``who`` names: the name we call its key, or the start of its fingerprint (4 hex digits
    or more, colons as printed are fine). ``LookupError`` says, in one line, why none or several match."""
    wanted = who.strip().casefold()
    named = [o for o in history.opponents if o.name is not None and o.name.casefold() == wanted]
    if named:
        return named[0]
    digits = wanted.replace(":", "")
    if len(digits) < 4 or any(c not in "0123456789abcdef" for c in digits):
        sent = [o.short for o in history.opponents if o.sent_name is not None and o.sent_name.casefold() == wanted]
        keys = f"the key {sent[0]}" if len(sent) == 1 else f"the keys {', '.join(sent)}"
        told = f"; {keys} sent that name (give a fingerprint)" if sent else ""
        raise LookupError(f"no opponent you call {who!r} among the counted matches (koikoi history lists them){told}")
    found = [o for o in history.opponents if o.fingerprint.replace(":", "").startswith(digits)]
    if not found:
        raise LookupError(f"no opponent whose fingerprint starts {digits} among the counted matches")
    if len(found) > 1:
        raise LookupError(f"{digits} starts {len(found)} opponents' fingerprints; give more of it")
    return found[0]
