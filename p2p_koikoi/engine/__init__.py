"""The rules engine: cards, rule sets, yaku and scoring, and the round and match state machines.

It does no I/O, never shuffles and knows nothing of crypto or the wire: the deal
comes in as data, and every consumer sees a round through :meth:`Round.view`.
"""

from p2p_koikoi.engine.actions import (
    Action,
    AnyAction,
    CallKoiKoi,
    CallStop,
    ChooseCapture,
    ClaimHandYaku,
    Draw,
    Event,
    EventKind,
    Exchange,
    PassHandYaku,
    Play,
)
from p2p_koikoi.engine.cards import (
    ALL_CARDS,
    Card,
    Kind,
    Month,
    Role,
    cards_of,
    format_cards,
    mask_of,
    parse_cards,
)
from p2p_koikoi.engine.context import MatchContext
from p2p_koikoi.engine.deal import Deal, DealPattern, deal_layout
from p2p_koikoi.engine.errors import (
    CardParseError,
    EngineError,
    IllegalActionError,
    RuleId,
    RuleSetError,
    ScoreRequestError,
)
from p2p_koikoi.engine.match import (
    Match,
    MatchOutcome,
    MatchPhase,
    RoundResult,
    Termination,
    first_dealer_by_draw,
)
from p2p_koikoi.engine.round import CHANCE, OutcomeKind, Phase, Round, RoundOutcome
from p2p_koikoi.engine.rules import PRESETS, RuleSet, parse_rules, preset
from p2p_koikoi.engine.scoring import RoundScore, Step, StepName, score_captures, score_hand, score_yaku
from p2p_koikoi.engine.yaku import Yaku, YakuScore, YakuTable

__all__ = [
    "ALL_CARDS",
    "CHANCE",
    "PRESETS",
    "Action",
    "AnyAction",
    "CallKoiKoi",
    "CallStop",
    "Card",
    "CardParseError",
    "ChooseCapture",
    "ClaimHandYaku",
    "Deal",
    "DealPattern",
    "Draw",
    "EngineError",
    "Event",
    "EventKind",
    "Exchange",
    "IllegalActionError",
    "Kind",
    "Match",
    "MatchContext",
    "MatchOutcome",
    "MatchPhase",
    "Month",
    "OutcomeKind",
    "PassHandYaku",
    "Phase",
    "Play",
    "Role",
    "Round",
    "RoundOutcome",
    "RoundResult",
    "RoundScore",
    "RuleId",
    "RuleSet",
    "RuleSetError",
    "ScoreRequestError",
    "Step",
    "StepName",
    "Termination",
    "Yaku",
    "YakuScore",
    "YakuTable",
    "cards_of",
    "deal_layout",
    "first_dealer_by_draw",
    "format_cards",
    "mask_of",
    "parse_cards",
    "parse_rules",
    "preset",
    "score_captures",
    "score_hand",
    "score_yaku",
]
