"""Two copies of one match, verified together: where they part, which one stands, and why (pure, sans-IO).

Each player keeps its own copy of the chain. Alone, a copy proves only what it holds; together, two copies
can prove more, or show that they cannot both be true. :func:`compare_copies` compares them entry by
entry; ``d`` is the first entry where they differ. The rules, in order (``protocol/RECORD.md`` section
4.5):

1. the same entries: ``SAME``;
2. one is a prefix of the other: ``PREFIX``; the longer stands. If the shorter ends with a claim of the
   other seat's silence, and the longer holds an entry of the accused chained after that claim and then
   an entry of the claimant (it received the answer and played on), the claim is refuted (by that
   entry) and the shorter falls; so does a shorter copy naming another winner than the longer one. An
   answer the claimant never signed anything after may never have reached it (or been sent at all: a
   staller can answer in its own copy only): ``DISPUTED``, naming the claim and the answer;
3. different entries at ``d`` signed by one seat: ``FORK``, that seat to blame: proof it cheated, so a
   copy that names it the winner falls, and the others stand;
4. different authors at ``d``, and a seat signed entries on both branches (at or after ``d``):
   ``BOTH_BRANCHES``: that seat forked. Its entry at ``d`` starts the branch that falls; the other
   branch stands, and holds the forker's own later entry chained after the other seat's entry ``d``
   (the cut copy: the loser cut its copy where the winner owed and appended its own claim). If both
   seats did, neither copy stands;
5. the two branches end in rulings naming the same winner (a claim and a concession crossing, two
   goodbyes): ``AGREE``, both stand;
6. a proven ending (a violation with evidence, a forfeit or a concession signed by the loser) against one
   that is not: ``PROOF_STANDS``; the other copy falls;
7. otherwise (a claim at ``d`` against the accused's entry at ``d``, neither seat having signed anything on
   the other's branch): ``DISPUTED``, naming both entries; neither copy stands.

Whatever the rules say, two copies left standing never name two different winners.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from p2p_koikoi.referee.events import Ending, MatchEnd
from p2p_koikoi.wire import SignedEntry
from p2p_koikoi.wire.bodies import EntryKind, GoodbyeBody
from p2p_koikoi.wire.reasons import ReasonId

__all__ = ["Comparison", "Copy", "CopyComparison", "Ruling", "compare_copies", "describe_entry"]

_NOT_ENDED = frozenset({None, Ending.UNFINISHED, Ending.FAILED})


class Comparison(enum.StrEnum):
    """How two copies of one match relate."""

    SAME = "same"
    PREFIX = "prefix"
    FORK = "fork"
    BOTH_BRANCHES = "both-branches"
    AGREE = "agree"
    PROOF_STANDS = "proof-stands"
    DISPUTED = "disputed"


@dataclass(frozen=True, slots=True)
class Ruling:
    """What one copy, verified alone, says of the match's end (from its :class:`MatchEnd`).

    ``how`` is the ending (None when the copy names none), ``seat`` the seat that ended it, ``owed``
    the seat that held the floor then, ``winner`` the seat the ending gives the match to."""

    how: Ending | None = None
    winner: int | None = None
    seat: int | None = None
    owed: int | None = None

    @classmethod
    def of(cls, end: MatchEnd | None) -> Ruling:
        if end is None:
            return cls()
        return cls(end.how, end.winner, end.seat, end.owed)

    @property
    def ended(self) -> bool:
        """The copy ends the match (it did not stop short, nor fail before an ending)."""
        return self.how not in _NOT_ENDED

    @property
    def claimed(self) -> bool:
        """A win by the other's silence, claimed by the seat that did not owe: a claim about time, which
        the accused refutes with an entry chained after it (``MatchEnd.claimed``)."""
        return self.how == Ending.SILENCE and self.seat is not None and self.seat != self.owed

    @property
    def accused(self) -> int | None:
        """The seat a claim says went silent."""
        return self.owed if self.claimed else None

    @property
    def proven(self) -> bool:
        """The loser's own signature or the evidence decides it: a forfeit (a quit, or a baseless
        accusation), a proven violation, or a silence conceded by the seat that owed."""
        if self.winner is None:
            return False
        return self.how in (Ending.FORFEIT, Ending.VIOLATION) or (self.how == Ending.SILENCE and not self.claimed)


@dataclass(frozen=True, slots=True)
class Copy:
    """One copy: the entries that passed its single-copy check, in chain order, and its ruling."""

    entries: Sequence[SignedEntry]
    ruling: Ruling = Ruling()
    name: str = ""


@dataclass(frozen=True, slots=True)
class CopyComparison:
    """What comparing copy 0 with copy 1 shows.

    ``parts_at`` is the first entry where they differ (for a prefix: the first entry only the longer
    holds; ``None`` when they are the same); ``longer`` the copy holding more entries (``None``: as many);
    ``stands`` the copies whose ruling stands (both, one, or none); ``blame`` the seat proved to have forked;
    ``refuted_by`` the entry of the standing copy that refutes the other (the accused's entry after a
    claim, the forker's entry chained on the other seat's, the proven ending); ``parting`` the two entries
    at ``parts_at``, in words; ``text`` the whole of it in one line."""

    kind: Comparison
    parts_at: int | None
    longer: int | None
    stands: tuple[int, ...]
    text: str
    blame: int | None = None
    refuted_by: int | None = None
    parting: tuple[str, str] | None = None

    @property
    def falls(self) -> tuple[int, ...]:
        """The copies whose ruling does not stand."""
        return tuple(i for i in (0, 1) if i not in self.stands)

    @property
    def reason(self) -> str | None:
        """The reason id of the finding a fallen copy gets: ``fork``, ``refuted`` or ``disputed-copies``."""
        if not self.falls:
            return None
        if self.kind in (Comparison.FORK, Comparison.BOTH_BRANCHES):
            return ReasonId.FORK
        if self.kind is Comparison.DISPUTED:
            return ReasonId.DISPUTED_COPIES
        return ReasonId.REFUTED


def describe_entry(signed: SignedEntry) -> str:
    """An entry in words: ``seat 1's goodbye (peer-gone)``."""
    entry = signed.entry
    what = entry.kind
    body = entry.content
    if isinstance(body, GoodbyeBody):
        what += f" ({body.reason})"
    return f"seat {entry.author}'s {what}"


def compare_copies(first: Copy, second: Copy) -> CopyComparison:
    """Compare two copies of one match (rules in the module's docstring); copy 0 is ``first``."""
    found = _compare(first, second)
    winners = {(first, second)[i].ruling.winner for i in found.stands} - {None}
    if len(winners) < 2:
        return found
    # Never two winners: rulings that contradict the entries (they cannot come from one referee) decide nothing.
    text = f"{found.text}; yet the copies standing name two winners: disputed"
    return CopyComparison(Comparison.DISPUTED, found.parts_at, found.longer, (), text, parting=found.parting)


def _compare(first: Copy, second: Copy) -> CopyComparison:
    copies = (first, second)
    names = (first.name or "copy A", second.name or "copy B")
    a, b = first.entries, second.entries
    d = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x.digest != y.digest), None)
    if d is None:
        if len(a) == len(b):
            return CopyComparison(Comparison.SAME, None, None, (0, 1), f"the copies are the same: {len(a)} entries")
        return _prefix(copies, names)
    longer = None if len(a) == len(b) else (0 if len(a) > len(b) else 1)
    x, y = a[d], b[d]
    parting = (describe_entry(x), describe_entry(y))
    if longer is None:
        size = f"both {len(a)} entries long"
    else:
        size = f"{names[longer]} is the longer, {max(len(a), len(b))} entries against {min(len(a), len(b))}"
    head = f"the copies part at entry {d} ({size}): {parting[0]} in {names[0]}, {parting[1]} in {names[1]}"
    author = x.entry.author
    if author == y.entry.author:
        # Proof that ``author`` cheated: a copy that makes it the winner falls; what the other says stands.
        stands = tuple(i for i in (0, 1) if copies[i].ruling.winner not in (author,))
        kept = "; ".join(f"{names[i]} stands" for i in stands) or "neither copy stands"
        text = f"seat {author} signed two different entries numbered {d}, one in each copy: it forked the chain; {kept}"
        return CopyComparison(Comparison.FORK, d, longer, stands, text, author, None, parting)
    crossed = _crossing(copies, d)
    if crossed is not None:
        return _played_on_a_withdrawn_entry(copies, names, d, longer, parting, head, crossed)
    branches = (a[d:], b[d:])
    forkers = [seat for seat in (0, 1) if all(any(s.entry.author == seat for s in br) for br in branches)]
    if forkers:
        return _both_branches(copies, names, d, longer, parting, head, forkers)
    rulings = (first.ruling, second.ruling)
    if rulings[0].ended and rulings[1].ended and rulings[0].winner == rulings[1].winner:
        who = _winner_words(rulings[0].winner)
        text = f"{head}; both name {who}: they agree"
        return CopyComparison(Comparison.AGREE, d, longer, (0, 1), text, parting=parting)
    proven = [i for i in (0, 1) if rulings[i].proven]
    if len(proven) == 1:
        (proof,) = proven
        ending = len(copies[proof].entries) - 1
        text = (
            f"{head}; {names[proof]} ends with a proven {rulings[proof].how} (entry {ending}), "
            f"{names[1 - proof]} with {_ruling_words(rulings[1 - proof])}: the proof stands, "
            f"{_winner_words(rulings[proof].winner)}"
        )
        return CopyComparison(Comparison.PROOF_STANDS, d, longer, (proof,), text, None, ending, parting)
    text = f"{head}; neither seat signed anything on the other's branch: disputed, the copies cannot decide it"
    return CopyComparison(Comparison.DISPUTED, d, longer, (), text, parting=parting)


def _crossing(copies: tuple[Copy, Copy], d: int) -> int | None:
    """The copy holding a goodbye at ``d`` that crossed the other seat's entry there (same place, same link),
    when that other seat then wrote on after the goodbye in that very copy: it took the goodbye in its
    entry's place and withdrew its entry, as the rules say (SPEC.md section 6). None otherwise."""
    for g in (0, 1):
        goodbye, other = copies[g].entries[d].entry, copies[1 - g].entries[d].entry
        if goodbye.kind != EntryKind.GOODBYE or other.author == goodbye.author or other.prev != goodbye.prev:
            continue
        if any(e.entry.author == other.author for e in copies[g].entries[d + 1 :]):
            return g
    return None


def _played_on_a_withdrawn_entry(
    copies: tuple[Copy, Copy],
    names: tuple[str, str],
    d: int,
    longer: int | None,
    parting: tuple[str, str],
    head: str,
    g: int,
) -> CopyComparison:
    """A crossing the seat it displaced settled: the other copy holds that seat's withdrawn entries. If the
    goodbye's own writer then signed entries chained on them, it played on from entries its own goodbye
    displaced, contradicting its goodbye: it forked, and the goodbye's copy stands."""
    writer = copies[g].entries[d].entry.author
    branch = copies[1 - g].entries[d:]
    run = next((i for i, e in enumerate(branch) if e.entry.author == writer), len(branch))
    if run == len(branch):  # the other copy just stops at the withdrawn entries: the goodbye's copy is the chain
        text = f"{head}; seat {1 - writer} withdrew its entries from {d} on for seat {writer}'s goodbye there"
        return CopyComparison(Comparison.PREFIX, d, longer, (g,), text, None, d, parting)
    refuting = d + run
    if any(e.entry.author != writer for e in branch[run:]):
        text = f"{head}; both seats signed entries on both branches: both forked, neither copy stands"
        return CopyComparison(Comparison.BOTH_BRANCHES, d, longer, (), text, None, None, parting)
    text = (
        f"{head}; seat {1 - writer} withdrew its entries from {d} on for seat {writer}'s goodbye there, yet seat "
        f"{writer} signed entry {refuting} of {names[1 - g]} chained on them: it forked; {names[g]} stands"
    )
    return CopyComparison(Comparison.BOTH_BRANCHES, d, longer, (g,), text, writer, refuting, parting)


def _prefix(copies: tuple[Copy, Copy], names: tuple[str, str]) -> CopyComparison:
    longer = 0 if len(copies[0].entries) > len(copies[1].entries) else 1
    shorter = 1 - longer
    long, short = copies[longer], copies[shorter]
    cut = len(short.entries)
    head = (
        f"{names[shorter]} holds the first {cut} entries of {names[longer]}, which goes on to entry "
        f"{len(long.entries) - 1}: the longer stands"
    )
    ruling, accused = short.ruling, short.ruling.accused
    if accused is not None:
        refuting = next((i for i in range(cut, len(long.entries)) if long.entries[i].entry.author == accused), None)
        claimant = 1 - accused
        seen = refuting is not None and any(e.entry.author == claimant for e in long.entries[refuting + 1 :])
        if refuting is not None and seen:
            text = (
                f"{head}; the shorter ends with seat {ruling.seat}'s claim that seat {accused} was silent "
                f"(entry {cut - 1}), refuted by entry {refuting} of the longer copy, seat {accused}'s, "
                f"which seat {claimant} played on from"
            )
            return CopyComparison(Comparison.PREFIX, cut, longer, (longer,), text, refuted_by=refuting)
        if refuting is not None:
            # An answer the claimant never signed anything after: it may never have reached the claimant (or
            # been sent at all). Time cannot be proven from the copies (SPEC.md section 6): undecidable.
            parting = (describe_entry(short.entries[cut - 1]), describe_entry(long.entries[refuting]))
            text = (
                f"{head}; but the shorter ends with seat {claimant}'s claim that seat {accused} was silent "
                f"(entry {cut - 1}), answered by seat {accused}'s entry {refuting}, which seat {claimant} never "
                "signed anything after: whether the answer ever reached it, the copies cannot say: disputed"
            )
            return CopyComparison(Comparison.DISPUTED, cut, longer, (), text, None, refuting, parting)
    other = long.ruling.winner
    if ruling.winner is not None and other is not None and ruling.winner != other:
        text = f"{head}; the shorter names {_winner_words(ruling.winner)}, but the match went on past its end"
        return CopyComparison(Comparison.PREFIX, cut, longer, (longer,), text, refuted_by=cut)
    if ruling.how in (Ending.ADJOURNED, Ending.ABANDONED):
        head += f"; entry {cut} of the longer copy takes the match up again after the shorter's {ruling.how}"
    return CopyComparison(Comparison.PREFIX, cut, longer, (0, 1), head)


def _both_branches(
    copies: tuple[Copy, Copy],
    names: tuple[str, str],
    d: int,
    longer: int | None,
    parting: tuple[str, str],
    head: str,
    forkers: list[int],
) -> CopyComparison:
    if len(forkers) == 2:
        text = f"{head}; both seats signed entries on both branches: both forked, neither copy stands"
        return CopyComparison(Comparison.BOTH_BRANCHES, d, longer, (), text, None, None, parting)
    (forker,) = forkers
    falls = 0 if copies[0].entries[d].entry.author == forker else 1
    stands = 1 - falls
    branch = copies[stands].entries
    refuting = next(i for i in range(d, len(branch)) if branch[i].entry.author == forker)
    text = (
        f"{head}; seat {forker} signed entries on both branches (entry {refuting} of {names[stands]} "
        f"chains on seat {1 - forker}'s entry {d}): it forked; {names[stands]} stands"
    )
    return CopyComparison(Comparison.BOTH_BRANCHES, d, longer, (stands,), text, forker, refuting, parting)


def _winner_words(winner: int | None) -> str:
    return "no winner" if winner is None else f"seat {winner} the winner"


def _ruling_words(ruling: Ruling) -> str:
    if ruling.claimed:
        return f"seat {ruling.seat}'s claim that seat {ruling.owed} was silent"
    if not ruling.ended:
        return "no ending"
    return f"a {ruling.how} naming {_winner_words(ruling.winner)}"
