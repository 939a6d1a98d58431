"""Words that help a person decide: what each choice takes, what Koi-Koi risks under the rules in
play, and how far each yaku under way is from its points. The table and plain mode both use them,
so the two never tell a different story."""

from __future__ import annotations

from p2p_koikoi.app.shobu import Factors, count_factors
from p2p_koikoi.app.tracker import Progress, progress, short_name
from p2p_koikoi.app.words import count
from p2p_koikoi.engine import (
    AnyAction,
    CallKoiKoi,
    CallStop,
    Card,
    ChooseCapture,
    ClaimHandYaku,
    Exchange,
    PassHandYaku,
    Play,
    Round,
    RuleSet,
    Yaku,
    cards_of,
)
from p2p_koikoi.engine.cards import month_mask
from p2p_koikoi.engine.ruledoc import yaku_rows
from p2p_koikoi.engine.rules import AfterKoiKoi

__all__ = ["choice_words", "decision_order", "koikoi_risk", "tracker_words", "yaku_points"]


def _names(cards: int) -> str:
    return ", ".join(c.display_name for c in cards_of(cards))


def choice_words(action: AnyAction, view: Round | None = None) -> str:
    """A choice as a person reads it, with what it takes: ``play Pine plain, takes Pine crane``."""
    if isinstance(action, Play):
        if action.target is not None:
            return f"play {action.card.display_name}, takes {action.target.display_name}"
        if view is None:
            return f"play {action.card.display_name}"
        taken = view.table & month_mask(action.card.month)
        return f"play {action.card.display_name}, " + (f"takes {_names(taken)}" if taken else "to the table")
    if isinstance(action, ChooseCapture):
        return f"take {action.target.display_name}"
    if isinstance(action, CallStop):
        return "Shōbu (stop and score now)"
    if isinstance(action, CallKoiKoi):
        return "Koi-Koi (play on for more, at a risk)"
    if isinstance(action, Exchange):
        return "exchange hands with the dealer" if action.swap else "keep the hands as dealt"
    if isinstance(action, ClaimHandYaku):
        return f"show {action.yaku.display_name} and score it"
    if isinstance(action, PassHandYaku):
        return "do not show a hand yaku"
    return str(action)


def decision_order(legal: list[AnyAction]) -> list[AnyAction]:
    """The choices in the order the table offers them: Shōbu before Koi-Koi."""
    return sorted(legal, key=lambda a: 0 if isinstance(a, CallStop) else 1 if isinstance(a, CallKoiKoi) else 2)


def koikoi_risk(view: Round, seat: int, rules: RuleSet, them: str) -> str:
    """What calling Koi-Koi now risks and promises under ``rules``, in one sentence, with the factors the
    engine's count would apply (the Koi-Koi multiplier and the doubling for size together: ``at ×2 (×4
    with 7 points or more)``), so the warning is the count the round's result would make."""
    mine, theirs = view.calls[seat] + 1, view.calls[1 - seat]
    their_count = count_factors(rules, theirs, mine)
    our_count = count_factors(rules, mine, theirs)
    risk = f"if {them} scores before you, {them} takes the round"
    if their_count != Factors(1):
        risk += f" at {their_count.words()}"
    if rules.after_koikoi is AfterKoiKoi.NEXT_YAKU_ENDS:
        gain = "your next yaku ends the round"
    else:
        gain = "you may stop or call again at your next yaku"
    if our_count.small > 1:
        gain += f", and your score then counts {our_count.words()}"
    return f"Koi-Koi: {risk}; {gain}."


def yaku_points(rules: RuleSet) -> dict[Yaku, int]:
    """Each yaku's points at its smallest, under ``rules``."""
    return {row.yaku: row.points for row in yaku_rows(rules)}


def tracker_words(caps: int, rules: RuleSet, *, theirs: int = 0, short: bool = False) -> list[tuple[Progress, str]]:
    """The yaku tracker with points: ``✓ Tane 1 point``, ``Tan 4/5 → 1 point at 5``; ``short`` (the
    table's narrow column) says ``Tan 4/5 → 1 pt``, since ``/5`` already says at how many. Sankō says
    when the Rain man is among the captures but does not count for it. A yaku ``theirs`` (the other
    player's captures) has made impossible is left out: it is not under way any more."""
    points = yaku_points(rules)
    return [(item, _tracked(item, points, rules, caps, short)) for item in progress(caps, rules, theirs=theirs)]


def _tracked(item: Progress, points: dict[Yaku, int], rules: RuleSet, caps: int, short: bool) -> str:
    unit = "pt" if short else "point"
    if item.made:
        return f"✓ {short_name(item.yaku)} {count(item.points or 0, unit)}"
    text = f"{item} → {count(points.get(item.yaku, 1), unit)}" + ("" if short else f" at {item.need}")
    if item.yaku is Yaku.SANKO and not rules.rain_in_sanko and caps & Card.WILLOW_RAIN.bit:
        text += " (not Rain)" if short else " (the Rain man does not count)"
    return text
