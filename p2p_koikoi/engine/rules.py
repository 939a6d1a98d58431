"""Rule sets: frozen data with every option explicit, five presets, and a fingerprint.

A :class:`RuleSet` says everything that differs between the rule sources: the
match format, how a round is scored, when a decision is offered, how a round
ends when nobody stops, how cards count, hand yaku and redeals, the rulebook's
extras and the deal. The engine reads nothing else, so two peers that agree on
the fingerprint agree on every rule.

Options are named in kebab case on the command line (``--set sake-as-plain=off``)
and in snake case in Python. :func:`preset` gives a preset;
:meth:`RuleSet.with_overrides` changes options one at a time; :meth:`RuleSet.format`
and :func:`parse_rules` are the text pair used by the handshake and the record.

>>> r = preset("nintendo").with_overrides(["rounds=6"])
>>> r.rounds, r.doubling.value
(6, '7')
>>> parse_rules(r.format()) == r
True
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from p2p_koikoi.engine.deal import DealPattern
from p2p_koikoi.engine.errors import RuleSetError

__all__ = [
    "PRESETS",
    "AfterKoiKoi",
    "AkatanAotan",
    "AutoStop",
    "BothHandYaku",
    "DecisionOn",
    "Doubling",
    "Exhausted",
    "FirstDealer",
    "KoiKoiMultiplier",
    "RuleSet",
    "Scoring",
    "TableRedeal",
    "parse_rules",
    "preset",
]


class Scoring(enum.Enum):
    """How round scores make up the match."""

    CUMULATIVE = "cumulative"  # each player's scores add up; the higher total wins
    POOL = "pool"  # both start with a pool; the loser pays, capped at what is left; 0 ends the match


class Doubling(enum.Enum):
    """When a round's base is doubled for its size."""

    AT_7 = "7"
    AT_8 = "8"
    NEVER = "never"


class KoiKoiMultiplier(enum.Enum):
    """How Koi-Koi calls multiply the winner's score."""

    NONE = "none"
    LOSER_CALLED = "loser-called"  # x2 if the loser had called
    ALL_CALLS = "all-calls"  # x(1 + every call by both players)
    RULEBOOK = "rulebook"  # x(1 + the winner's calls), and x2 if the loser had called


class AfterKoiKoi(enum.Enum):
    """What a Koi-Koi call leads to."""

    CONTINUE = "continue"  # play goes on; both may call again on each later rise
    NEXT_YAKU_ENDS = "next-yaku-ends"  # the next rise by either player ends the round at once


class DecisionOn(enum.Enum):
    """What offers Koi-Koi or Shobu at the end of a turn."""

    RISE = "rise"  # the yaku total is higher than at the player's last decision
    NEW_YAKU = "new-yaku"  # a yaku the player did not hold at its last decision


class AutoStop(enum.Enum):
    """When a rise ends the round without a prompt."""

    OWN_HAND_EMPTY = "own-hand-empty"  # on the turn that empties the player's own hand
    BOTH_HANDS_EMPTY = "both-hands-empty"  # only on the last turn, both hands empty


class Exhausted(enum.Enum):
    """What happens when both hands run out and nobody stopped."""

    DRAW = "draw"  # nobody scores; the same dealer deals again
    NO_GAME = "no-game"  # nobody scores; the deal passes to the other player
    LAST_CALLER = "last-caller"  # the last Koi-Koi caller scores what it holds; nobody called: a draw
    DEALER_BONUS = "dealer-bonus"  # the dealer scores `dealer-bonus` points and deals again


class AkatanAotan(enum.Enum):
    """How the three poem ribbons and the three blue ribbons combine."""

    CHOFUKU = "chofuku"  # both sets score Chofuku (10) instead of Akatan and Aotan
    BOTH = "both"  # Akatan and Aotan simply add up
    TRIAD = "triad"  # Akatan and Aotan add up, plus the Triad (+3)


class BothHandYaku(enum.Enum):
    """What happens when both players are dealt a hand yaku."""

    DEALER = "dealer"  # the dealer's counts
    DRAW = "draw"  # the round is drawn, counts as played, and the same dealer deals


class TableRedeal(enum.Enum):
    """Which deals to the table are dealt again (a redeal is not a round)."""

    NONE = "none"
    FOUR_OF_A_MONTH = "four-of-a-month"
    FOUR_OR_PAIRS = "four-or-pairs"  # four of a month, or four pairs


class FirstDealer(enum.Enum):
    """How the first dealer is chosen."""

    COIN = "coin"  # a fair coin flip
    DRAW_MONTH = "draw-month"  # each draws a card; the earlier month deals; the same month draws again
    DRAW_MONTH_RANK = "draw-month-rank"  # as above, but in the same month the higher kind deals


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Every rule the engine needs, explicit. Compare with ``==``; prove with :attr:`fingerprint`."""

    preset: str
    rounds: int
    scoring: Scoring
    pool: int
    doubling: Doubling
    koikoi_multiplier: KoiKoiMultiplier
    after_koikoi: AfterKoiKoi
    decision_on: DecisionOn
    auto_stop: AutoStop
    exhausted: Exhausted
    dealer_bonus: int
    sake_as_plain: bool
    viewing_yaku: bool
    rain_in_sanko: bool
    tane_void_with_inoshikacho: bool
    tan_void_with_akatan_aotan: bool
    akatan_aotan: AkatanAotan
    set_extras: bool
    hand_yaku: bool
    both_hand_yaku: BothHandYaku
    table_redeal: TableRedeal
    gaji: bool
    hand_exchange: bool
    deal_pattern: DealPattern
    first_dealer: FirstDealer

    def __post_init__(self) -> None:
        if self.rounds not in (3, 6, 12):
            raise RuleSetError(f"rounds must be 3, 6 or 12, not {self.rounds}")
        if not 1 <= self.pool <= 1000:
            raise RuleSetError(f"pool must be between 1 and 1000 points, not {self.pool}")
        if not 1 <= self.dealer_bonus <= 100:
            raise RuleSetError(f"dealer-bonus must be between 1 and 100 points, not {self.dealer_bonus}")

    # -- identity -------------------------------------------------------------

    def options(self) -> dict[str, str]:
        """Every option but the preset name, as ``kebab-name: text value``, in a fixed order."""
        out: dict[str, str] = {}
        for field in dataclasses.fields(self):
            if field.name != "preset":
                out[_kebab(field.name)] = _format_value(getattr(self, field.name))
        return out

    @property
    def fingerprint(self) -> str:
        """SHA-256 of the options in canonical text, hex. The preset name is not part of it:

        two rule sets with the same options are the same rules whatever they are called.
        """
        text = "koikoi-rules/1\n" + "".join(f"{k}={v}\n" for k, v in self.options().items())
        return hashlib.sha256(text.encode()).hexdigest()

    def format(self) -> str:
        """The preset and the options that differ from it: ``nintendo`` or ``nintendo rounds=6``."""
        base = preset(self.preset)
        mine, theirs = self.options(), base.options()
        changed = [f"{k}={v}" for k, v in mine.items() if theirs[k] != v]
        return " ".join([self.preset, *changed])

    def differences(self, other: RuleSet) -> list[tuple[str, str, str]]:
        """The options where ``other`` differs: (name, our value, their value)."""
        mine, theirs = self.options(), other.options()
        return [(k, mine[k], theirs[k]) for k in mine if mine[k] != theirs[k]]

    def with_overrides(self, assignments: Iterable[str]) -> RuleSet:
        """Apply ``NAME=VALUE`` overrides, one at a time, each checked."""
        rules = self
        for assignment in assignments:
            name, sep, value = assignment.partition("=")
            if not sep:
                raise RuleSetError(f"expected NAME=VALUE, got {assignment!r}")
            rules = rules.with_option(name.strip(), value.strip())
        return rules

    def with_option(self, name: str, value: str) -> RuleSet:
        """One option changed; an unknown name or a bad value is a :class:`RuleSetError`."""
        attr = name.replace("-", "_")
        fields = {f.name: f for f in dataclasses.fields(self)}
        if attr not in fields or attr == "preset":
            import difflib

            close = difflib.get_close_matches(_kebab(attr), [_kebab(f) for f in fields if f != "preset"])
            hint = f"; did you mean {close[0]}?" if close else "; see `koikoi rules` for the list"
            raise RuleSetError(f"unknown rule option {name!r}{hint}")
        current = getattr(self, attr)
        return dataclasses.replace(self, **{attr: _parse_value(name, type(current), value)})


def _kebab(name: str) -> str:
    return name.replace("_", "-")


def _format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, enum.Enum):
        return str(value.value)
    return str(value)


_TRUE = {"on", "true", "yes", "1"}
_FALSE = {"off", "false", "no", "0"}


def _parse_value(name: str, kind: type, text: str) -> Any:
    low = text.lower()
    if kind is bool:
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        raise RuleSetError(f"option {name} takes on or off, not {text!r}")
    if kind is int:
        try:
            return int(low)
        except ValueError:
            raise RuleSetError(f"option {name} takes a whole number, not {text!r}") from None
    if issubclass(kind, enum.Enum):
        for member in kind:
            if str(member.value) == low:
                return member
        choices = ", ".join(str(m.value) for m in kind)
        raise RuleSetError(f"option {name} takes one of {choices}, not {text!r}")
    raise RuleSetError(f"option {name} cannot be set")  # pragma: no cover - every field type is above


# -- presets --------------------------------------------------------------------

_LEMME = RuleSet(
    preset="lemme",
    rounds=6,
    scoring=Scoring.POOL,
    pool=25,
    doubling=Doubling.AT_8,
    koikoi_multiplier=KoiKoiMultiplier.ALL_CALLS,
    after_koikoi=AfterKoiKoi.CONTINUE,
    decision_on=DecisionOn.RISE,
    auto_stop=AutoStop.BOTH_HANDS_EMPTY,
    exhausted=Exhausted.DRAW,
    dealer_bonus=6,
    sake_as_plain=False,
    viewing_yaku=True,
    rain_in_sanko=False,
    tane_void_with_inoshikacho=False,
    tan_void_with_akatan_aotan=False,
    akatan_aotan=AkatanAotan.CHOFUKU,
    set_extras=True,
    hand_yaku=True,
    both_hand_yaku=BothHandYaku.DEALER,
    table_redeal=TableRedeal.FOUR_OF_A_MONTH,
    gaji=False,
    hand_exchange=False,
    deal_pattern=DealPattern.EIGHT,
    first_dealer=FirstDealer.COIN,
)

PRESETS: dict[str, RuleSet] = {
    "nintendo": dataclasses.replace(
        _LEMME,
        preset="nintendo",
        rounds=12,
        scoring=Scoring.CUMULATIVE,
        doubling=Doubling.AT_7,
        koikoi_multiplier=KoiKoiMultiplier.LOSER_CALLED,
        after_koikoi=AfterKoiKoi.NEXT_YAKU_ENDS,
        exhausted=Exhausted.NO_GAME,
        sake_as_plain=True,
        tane_void_with_inoshikacho=True,
        tan_void_with_akatan_aotan=True,
        first_dealer=FirstDealer.DRAW_MONTH_RANK,
    ),
    "lemme": _LEMME,
    "rulebook": dataclasses.replace(
        _LEMME,
        preset="rulebook",
        rounds=12,
        scoring=Scoring.CUMULATIVE,
        doubling=Doubling.AT_7,
        koikoi_multiplier=KoiKoiMultiplier.RULEBOOK,
        decision_on=DecisionOn.NEW_YAKU,
        rain_in_sanko=True,
        akatan_aotan=AkatanAotan.BOTH,
        table_redeal=TableRedeal.FOUR_OR_PAIRS,
        gaji=True,
        hand_exchange=True,
        deal_pattern=DealPattern.FOUR_FOUR,
        first_dealer=FirstDealer.DRAW_MONTH,
    ),
    "qdan": dataclasses.replace(
        _LEMME,
        preset="qdan",
        rounds=12,
        scoring=Scoring.CUMULATIVE,
        doubling=Doubling.AT_7,
        koikoi_multiplier=KoiKoiMultiplier.LOSER_CALLED,
        decision_on=DecisionOn.NEW_YAKU,
        auto_stop=AutoStop.OWN_HAND_EMPTY,
        exhausted=Exhausted.LAST_CALLER,
        sake_as_plain=True,
        akatan_aotan=AkatanAotan.BOTH,
        set_extras=False,
    ),
    "gameweave": dataclasses.replace(
        _LEMME,
        preset="gameweave",
        rounds=12,
        scoring=Scoring.CUMULATIVE,
        doubling=Doubling.AT_7,
        koikoi_multiplier=KoiKoiMultiplier.LOSER_CALLED,
        auto_stop=AutoStop.OWN_HAND_EMPTY,
        exhausted=Exhausted.LAST_CALLER,
        sake_as_plain=True,
        akatan_aotan=AkatanAotan.BOTH,
        hand_yaku=False,
        both_hand_yaku=BothHandYaku.DRAW,
        deal_pattern=DealPattern.TWO_TWO,
    ),
}


def preset(name: str) -> RuleSet:
    """A preset by name; an unknown name lists the presets."""
    try:
        return PRESETS[name.strip().lower()]
    except KeyError:
        raise RuleSetError(f"unknown rule preset {name!r}; choose one of {', '.join(PRESETS)}") from None


def parse_rules(text: str) -> RuleSet:
    """The inverse of :meth:`RuleSet.format`: a preset name, then ``NAME=VALUE`` overrides."""
    words = text.split()
    if not words:
        raise RuleSetError("empty rule set: name a preset")
    return preset(words[0]).with_overrides(words[1:])
