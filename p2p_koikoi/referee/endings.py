"""How a ``goodbye`` ends a match: the rules, stated once as data, and the pure function that applies them.

Every observer (both live seats and ``koikoi verify``) rules a ``goodbye`` with
:func:`rule_goodbye`, which returns a decision; only the referee applies it to its
own state (h11's rule: only the state machine writes its state). ``owed`` is the
seat that held the floor when the goodbye was written: the seat the match was
waiting on. The rules, first match wins (:data:`ENDING_RULES`; SPEC.md section 6
prints the same table, and ``tests/test_spec_tables.py`` holds the two together):

=====================  ====================================================  ===========  =========
rule                   when                                                  ending       loser
=====================  ====================================================  ===========  =========
caught                 the reader's own referee caught the other seat        violation    other
counted                the count had already decided the match               finished     the count
declined               before the guest accepted the rules                   declined     nobody
integrity-accusation   ``violation:R``, R a fault in bytes that never        forfeit      writer
                       joined the chain (no evidence can exist)
accusation             ``violation:R``, any other R                          checked with the evidence
kept-adjournment       ``peer-gone``/``stalled`` against a seat that         adjourned    nobody
                       adjourned, has not written since, in a match with
                       no decision time limit
claim                  ``peer-gone``/``stalled`` by the seat that waited     silence      owed
concession             ``peer-gone``/``stalled`` by the seat that owed       forfeit      writer
adjourn                ``adjourn`` by the seat that waited                   adjourned    nobody
quit                   ``quit``, ``adjourn`` by the seat that owed, any      forfeit      writer
                       other word
=====================  ====================================================  ===========  =========

A claim of the other's silence is about time, which one copy cannot prove
(Cleve, STOC 1986: two parties cannot have complete fairness against one that
aborts). So it stays open: the accused refutes it with any entry chained after
it (its owed entry, or ``here``), and the match goes on. An adjournment is lifted
by the next entry, whoever writes it. Everything else is final.

>>> [str(rule.name) for rule in ENDING_RULES][:3]
['caught', 'counted', 'declined']
>>> rule_goodbye(Goodbye(author=1, claim=Claim.PEER_GONE, reason="", owed=0)).ending
<Ending.SILENCE: 'silence'>
>>> rule_goodbye(Goodbye(author=0, claim=Claim.PEER_GONE, reason="", owed=0)).loser
<Loser.WRITER: 'writer'>
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from p2p_koikoi.referee.events import Claim, Ending
from p2p_koikoi.wire.reasons import ReasonId

__all__ = [
    "ENDING_RULES",
    "INTEGRITY_REASONS",
    "Accusation",
    "EndingRule",
    "Goodbye",
    "Loser",
    "RuleName",
    "rule_goodbye",
]

# Faults in bytes that never join the chain: nobody but the receiver ever saw them, so no evidence can
# exist. A live seat treats them as a broken connection (SPEC.md section 7), never as an ending; an
# accusation naming one proves nothing and is its writer's forfeit.
INTEGRITY_REASONS: frozenset[str] = frozenset(
    {
        ReasonId.BAD_SIGNATURE,
        ReasonId.BAD_LINK,
        ReasonId.BAD_SEQ,
        ReasonId.WRONG_MATCH,
        ReasonId.REPLAYED_ENTRY,
        ReasonId.FORK,
        ReasonId.BAD_FRAME,
        ReasonId.BAD_BODY,
        ReasonId.BAD_KIND,
        ReasonId.BAD_ENTRY,
        ReasonId.BAD_VERSION,
        ReasonId.FRAME_TOO_LARGE,
        ReasonId.EMPTY_FRAME,
        ReasonId.TRUNCATED_FRAME,
        ReasonId.BAD_MSGPACK,
        ReasonId.NOT_CANONICAL,
        ReasonId.BAD_TYPE,
        ReasonId.TOO_DEEP,
        ReasonId.TOO_LARGE,
        ReasonId.DATA_AFTER_EOF,
        ReasonId.OUT_OF_TURN,
        ReasonId.DESYNC,
    }
)


class Loser(enum.StrEnum):
    """Who a rule makes lose the match."""

    OTHER = "other"  # the seat the writer accused or caught
    WRITER = "writer"  # the goodbye's own writer
    OWED = "owed"  # the seat that owed the next entry and stayed silent
    COUNT = "count"  # nobody by this goodbye: the count already decided
    NOBODY = "nobody"
    EVIDENCE = "evidence"  # the accuser's evidence decides: the accused, or the accuser if it shows nothing


class RuleName(enum.StrEnum):
    """The endings table's rows by name, in its order (SPEC.md section 6 prints them as words)."""

    CAUGHT = "caught"
    COUNTED = "counted"
    DECLINED = "declined"
    INTEGRITY_ACCUSATION = "integrity-accusation"
    ACCUSATION = "accusation"
    KEPT_ADJOURNMENT = "kept-adjournment"
    CLAIM = "claim"
    CONCESSION = "concession"
    ADJOURN = "adjourn"
    QUIT = "quit"


@dataclass(frozen=True, slots=True)
class EndingRule:
    """One row of the endings table: its name, when it applies (in words), the ending and who loses."""

    name: RuleName
    when: str
    ending: Ending
    loser: Loser


ENDING_RULES: tuple[EndingRule, ...] = (
    EndingRule(RuleName.CAUGHT, "the reader's own referee caught the other seat", Ending.VIOLATION, Loser.OTHER),
    EndingRule(RuleName.COUNTED, "the count had already decided the match", Ending.FINISHED, Loser.COUNT),
    EndingRule(RuleName.DECLINED, "before the guest accepted the rules", Ending.DECLINED, Loser.NOBODY),
    EndingRule(
        RuleName.INTEGRITY_ACCUSATION,
        "`violation:R`, R a fault in bytes that never joined the chain",
        Ending.FORFEIT,
        Loser.WRITER,
    ),
    EndingRule(RuleName.ACCUSATION, "`violation:R`, any other R", Ending.VIOLATION, Loser.EVIDENCE),
    EndingRule(
        RuleName.KEPT_ADJOURNMENT,
        "`peer-gone` or `stalled` against a seat that adjourned and has not written since, with no time limit",
        Ending.ADJOURNED,
        Loser.NOBODY,
    ),
    EndingRule(RuleName.CLAIM, "`peer-gone` or `stalled` by the seat that waited", Ending.SILENCE, Loser.OWED),
    EndingRule(RuleName.CONCESSION, "`peer-gone` or `stalled` by the seat that owed", Ending.FORFEIT, Loser.WRITER),
    EndingRule(RuleName.ADJOURN, "`adjourn` by the seat that waited", Ending.ADJOURNED, Loser.NOBODY),
    EndingRule(
        RuleName.QUIT, "`quit`, `adjourn` by the seat that owed, or any other word", Ending.FORFEIT, Loser.WRITER
    ),
)
_BY_NAME = {rule.name: rule for rule in ENDING_RULES}


@dataclass(frozen=True, slots=True)
class Goodbye:
    """What the rules look at in a ``goodbye``: its writer, its claim, and the match when it was written.

    ``owed`` is the seat that held the floor (None when nobody did); ``caught_other`` says the reader's
    own referee had already found the other seat at fault; ``counted`` that the count decided the match;
    ``before_accept`` that the guest had not yet accepted the rules; ``accused_adjourned`` that, in a match
    with no decision time limit, the seat a claim accuses adjourned it and has not written since (no limit on
    thinking means an adjournment can be taken up again at any time)."""

    author: int
    claim: Claim
    reason: str
    owed: int | None
    caught_other: bool = False
    counted: bool = False
    before_accept: bool = False
    accused_adjourned: bool = False


def rule_goodbye(goodbye: Goodbye) -> EndingRule:
    """The first rule of :data:`ENDING_RULES` that applies to ``goodbye``."""
    claim = goodbye.claim
    waited = goodbye.owed is not None and goodbye.owed != goodbye.author
    if goodbye.caught_other:
        name = RuleName.CAUGHT
    elif goodbye.counted:
        name = RuleName.COUNTED
    elif goodbye.before_accept:
        name = RuleName.DECLINED
    elif claim is Claim.VIOLATION:
        name = RuleName.INTEGRITY_ACCUSATION if goodbye.reason in INTEGRITY_REASONS else RuleName.ACCUSATION
    elif claim in (Claim.PEER_GONE, Claim.STALLED) and waited and goodbye.accused_adjourned:
        name = RuleName.KEPT_ADJOURNMENT
    elif claim in (Claim.PEER_GONE, Claim.STALLED):
        name = RuleName.CLAIM if waited else RuleName.CONCESSION
    elif claim is Claim.ADJOURN and waited:
        name = RuleName.ADJOURN
    else:
        name = RuleName.QUIT
    return _BY_NAME[name]


@dataclass(frozen=True, slots=True)
class Accusation:
    """A ``goodbye`` in which ``seat`` says it caught the other seat breaking rule ``reason``."""

    entry: int
    seat: int
    reason: str
    text: str
    evidence: bytes | None = None
