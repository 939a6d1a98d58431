"""The one referee of a match: one sans-IO state machine, for both seats and for ``koikoi verify``.

- ``table.py``: the rules as data (stages, slots, the floor, the state hash, the result body);
- ``sides.py``: what an observer knows (a seat's secrets, or only the record);
- ``referee.py``: :class:`Referee`, which judges every entry, ours and the peer's;
- ``endings.py`` and ``evidence.py``: what a ``goodbye`` settles, and how an accusation is checked;
- ``events.py``: the visitor the referee tells the match to; ``findings.py``: what it found wrong.

Imports only ``engine``, ``fairness`` and ``wire``.
"""

from p2p_koikoi.referee.events import (
    Claim,
    Ending,
    FirstDealerChoice,
    HikiAnswer,
    MatchEnd,
    MatchFanout,
    MatchInfo,
    MatchVisitor,
    PlayedRound,
)
from p2p_koikoi.referee.findings import Finding, Rejected, Violation, blame_words
from p2p_koikoi.referee.referee import Referee
from p2p_koikoi.referee.sides import (
    SeatCoin,
    SeatDeal,
    SeatKnowledge,
    SpectatorKnowledge,
    deal_secret,
)
from p2p_koikoi.referee.table import STATE_DOMAIN, Stage, result_body

__all__ = [
    "STATE_DOMAIN",
    "Claim",
    "Ending",
    "Finding",
    "FirstDealerChoice",
    "HikiAnswer",
    "MatchEnd",
    "MatchFanout",
    "MatchInfo",
    "MatchVisitor",
    "PlayedRound",
    "Referee",
    "Rejected",
    "SeatCoin",
    "SeatDeal",
    "SeatKnowledge",
    "SpectatorKnowledge",
    "Stage",
    "Violation",
    "blame_words",
    "deal_secret",
    "result_body",
]
