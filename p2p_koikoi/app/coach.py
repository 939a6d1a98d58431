"""The coach: what the strong bot would play here and why, in one line; and a review of a finished match.

A person learns Koi-Koi faster when told why a move is good, so the hint is
the strong bot's own search (:func:`~p2p_koikoi.bots.strong.evaluate`, on the
seat's view and nothing else) put into words: what the move takes, how far
that brings a yaku (``2/3 towards Akatan``) and what it keeps from the other
player (``keeps the Cherry curtain away from Bot``). At a Koi-Koi decision the
hint gives the call with the chance the search estimates that a Koi-Koi wins
the round again, and says plainly when a Koi-Koi can only lose
(:func:`pointless_koikoi`).

:func:`review` replays a finished match and asks the same search, at every
decision of either seat, what each legal move is worth in points on average;
where the bot's choice was worth clearly more than the move played, the move
is marked with the difference.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

from p2p_koikoi.app.replay import Replay
from p2p_koikoi.app.tracker import Progress, progress, short_name
from p2p_koikoi.bots.base import MatchContext
from p2p_koikoi.bots.heuristics import card_worths
from p2p_koikoi.bots.match_value import MatchValue
from p2p_koikoi.bots.strong import LEVELS, Level, MoveValue, evaluate
from p2p_koikoi.engine import (
    CHANCE,
    AnyAction,
    CallKoiKoi,
    CallStop,
    Card,
    ChooseCapture,
    IllegalActionError,
    Kind,
    Phase,
    Play,
    Round,
    RuleSet,
    cards_of,
)
from p2p_koikoi.engine.cards import month_mask
from p2p_koikoi.engine.rules import Scoring
from p2p_koikoi.record.transcript import start_round
from p2p_koikoi.referee.events import PlayedRound

__all__ = ["ReviewMark", "hint", "judge", "noise", "pointless_koikoi", "review"]

# The search behind a hint: the default bot's budget, so a hint comes as fast as the bot's move, with a
# looser time cap, so that the same position gets the same hint on a busy machine too.
HINT_LEVEL = Level("hint", LEVELS["normal"].playouts, 5.0)
# A review gives every move the same playouts, this many each (a fair comparison of any two).
REVIEW_PLAYOUTS_PER_MOVE = 200
# A move is marked when the bot's choice was worth at least this many more points on average.
REVIEW_MARGIN = 1.0
# ... and by more than the comparison's own noise: this many standard errors of the difference, world by world.
# A round's points spread by about 10 either way, so at 200 playouts a move the difference of two moves is
# uncertain by some 0.7 points: a lone 1.2 can be luck (issue 28 item 18).
REVIEW_NOISE_Z = 2.0
# A gap above the margin but inside the noise is played again, the two moves alone, with this many times the
# playouts: the review then marks it, or not, on the longer count.
REVIEW_CONFIRM = 8


def _the(cards: int) -> str:
    names = [f"the {c.display_name}" for c in cards_of(cards)]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _taken(view: Round, action: AnyAction) -> tuple[int, int]:
    """The table cards ``action`` takes, and every card it puts into the seat's captures."""
    if isinstance(action, Play):
        taken = action.target.bit if action.target is not None else view.table & month_mask(action.card.month)
        return taken, taken | action.card.bit if taken else 0
    if isinstance(action, ChooseCapture):
        pending = view.pending_draw
        return action.target.bit, action.target.bit | (pending.bit if pending is not None else 0)
    return 0, 0


def _towards(rules: RuleSet, before: int, after: int, theirs: int = 0) -> str:
    """The yaku ``after`` brings closest (``makes Akatan`` or ``2/3 towards Akatan``), or nothing; never
    one that ``theirs`` (the other seat's captures) has made impossible."""
    old = {p.yaku: p for p in progress(before, rules, theirs=theirs)}

    def gained(p: Progress) -> bool:
        was = old.get(p.yaku)
        return was is None or (p.made and not was.made) or (not p.made and p.have > was.have)

    news = [p for p in progress(after, rules, theirs=theirs) if gained(p)]
    if not news:
        return ""
    best = news[0]  # the tracker lists yaku made first, then the closest
    return f"makes {short_name(best.yaku)}" if best.made else f"{best.have}/{best.need} towards {short_name(best.yaku)}"


def _wanted_by(rules: RuleSet, theirs: int, mine: int, cards: int) -> Card | None:
    """Of ``cards``, the one the other seat wants most: a bright, or a card of a yaku it is well on the way to."""
    worth = card_worths(rules, theirs, mine)
    begun = {
        p.yaku: p.have for p in progress(theirs, rules, theirs=mine) if not p.made and p.have >= max(1, p.need - 2)
    }
    best: tuple[float, Card] | None = None
    for card in cards_of(cards):
        after = progress(theirs | card.bit, rules, theirs=mine)
        helps = any(p.yaku in begun and (p.made or p.have > begun[p.yaku]) for p in after)
        if (card.kind is Kind.BRIGHT or helps) and (best is None or worth[card] > best[0]):
            best = (worth[card], card)
    return best[1] if best is not None else None


def explain(view: Round, seat: int, action: AnyAction, them: str) -> str:
    """One line: the move and why (what it takes, the yaku it brings closer, what it keeps from ``them``).

    "Keeps X away" names a card the other seat wants (a bright, or one of a
    yaku it has begun) that the move takes from the table, or that stays in
    hand when it could only have gone to the table for nothing.
    """
    rules = view.rules
    mine, theirs = view.captures[seat], view.captures[1 - seat]
    taken, gained = _taken(view, action)
    if isinstance(action, Play):
        head = f"play {action.card.display_name}"
    elif isinstance(action, ChooseCapture):
        head = f"take the {action.target.display_name}"
    else:
        return str(action)
    reasons: list[str] = []
    if taken:
        towards = _towards(rules, mine, mine | gained, theirs)
        reasons.append(f"takes {_the(taken)}" + (f", {towards}" if towards else ""))
        denied = _wanted_by(rules, theirs, mine, taken)
    else:
        reasons.append("nothing to take" + _least_use(view, seat, action, them))
        denied = None
    if denied is None and isinstance(action, Play):
        stuck = sum(c.bit for c in cards_of(view.hands[seat]) if not view.table & month_mask(c.month))
        denied = _wanted_by(rules, theirs, mine, stuck & ~action.card.bit)
    if denied is not None:
        reasons.append(f"keeps the {denied.display_name} away from {them}")
    return head + ": " + "; ".join(reasons)


def _least_use(view: Round, seat: int, action: AnyAction, them: str) -> str:
    """``, and it is the card Bot can use least`` when the discard is that; otherwise nothing."""
    assert isinstance(action, Play)
    worth = card_worths(view.rules, view.captures[1 - seat], view.captures[seat])
    loose = [c for c in cards_of(view.hands[seat]) if not view.table & month_mask(c.month)]
    if len(loose) > 1 and worth[action.card] <= min(worth[c] for c in loose):
        return f", and it is the card {them} can use least"
    return ""


def pointless_koikoi(view: Round, seat: int, context: MatchContext, them: str = "the other player") -> str | None:
    """Why a Koi-Koi can only lose here, or None when it may pay.

    With no card left in hand, a seat's captures cannot grow: after a Koi-Koi
    the other seat plays on, and the round ends either with its yaku (a loss)
    or with the hands run out, which pays what the rules say (nothing, the
    dealer's bonus, or the last caller). When that is no more than Shōbu pays
    now, a Koi-Koi can only lose.
    """
    if view.phase is not Phase.DECISION or view.to_act != seat or view.hand_size(seat):
        return None
    left = view.hand_size(1 - seat)
    if not left:
        return None
    value = MatchValue(context)
    stop = view.copy()
    stop.apply(CallStop(), seat)
    play_on = view.copy()
    play_on.apply(CallKoiKoi(), seat)
    play_on._exhausted(None)  # the best a Koi-Koi can bring: the other seat makes nothing and the hands run out
    assert stop.outcome is not None and play_on.outcome is not None
    if value.points(play_on.outcome) > value.points(stop.outcome):
        return None
    cards = "card" if left == 1 else "cards"
    return (
        f"Koi-Koi can only lose: your hand is empty, so you cannot add to your captures, "
        f"and {them} still has {left} {cards} to play"
    )


def hint(view: Round, legal: list[AnyAction], context: MatchContext, them: str = "the other player") -> list[str]:
    """The strong bot's advice for this decision, in a line or two (seeded by the position: the same every time)."""
    seat = context.seat
    if len(legal) == 1:
        return [f"Only one move: {explain(view, seat, legal[0], them)}."]
    seed = zlib.crc32(repr((view.public_state(), view.hands[seat])).encode())
    values = evaluate(view, legal, context, HINT_LEVEL, seed)
    if view.phase is Phase.DECISION:
        return [_koikoi_advice(view, context, values, them)]
    best = values[0]
    return [f"Hint: {explain(view, seat, best.action, them)}."]


def _koikoi_advice(view: Round, context: MatchContext, values: list[MoveValue], them: str) -> str:
    seat = context.seat
    pointless = pointless_koikoi(view, seat, context, them)
    if pointless is not None:
        return f"Hint: Shōbu. {pointless}."
    by_kind = {type(v.action): v for v in values}
    go, stop = by_kind.get(CallKoiKoi), by_kind.get(CallStop)
    if go is None or stop is None:
        return f"Hint: {values[0].action}."
    call = "Koi-Koi" if values[0] is go else "Shōbu"
    return (
        f"Hint: {call}. A Koi-Koi wins the round again in about {go.round_won:.0%} of the bot's playouts, "
        f"for {go.points:+.1f} points on average against {stop.points:+.1f} for Shōbu now; "
        f"your estimated chance to win the match: {go.chance:.0%} with Koi-Koi, {stop.chance:.0%} with Shōbu"
    )


# -- the review of a finished match -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReviewMark:
    """A move where the bot's choice was worth clearly more, in points on average over the search's playouts."""

    round_number: int
    seat: int
    played: str
    better: str
    loss: float  # expected points the move played gave away against the bot's choice
    why: str = ""  # what the search saw: each move's rounds won and points, and what the bot's choice keeps open

    def line(self, names: tuple[str, str]) -> str:
        why = f"; {self.why}" if self.why else ""
        return (
            f"Round {self.round_number}, {names[self.seat]} chose to {self.played}: the bot would {self.better} "
            f"(+{self.loss:.1f} points expected{why})"
        )


def review(replay: Replay, margin: float = REVIEW_MARGIN, seed: int = 1) -> Iterator[ReviewMark]:
    """Every decision of ``replay`` where the bot's choice was worth at least ``margin`` more points on average.

    Only rounds whose cards all came out can be reviewed (a round cut short is
    skipped). Each seat is judged from its own view, as it was at the move.
    """
    rules = replay.rules
    if rules is None:
        return
    start = rules.pool if rules.scoring is Scoring.POOL else 0
    points = (start, start)
    for shown in replay.rounds:
        played = shown.played
        if played.deal is not None and played.result is not None:
            yield from _review_round(rules, played, points, margin, seed, replay.names)
        if played.result is not None:
            points = (played.result.points[0], played.result.points[1])


def _review_round(
    rules: RuleSet,
    played: PlayedRound,
    points: tuple[int, int],
    margin: float,
    seed: int,
    names: tuple[str, str],
) -> Iterator[ReviewMark]:
    rnd = start_round(rules, played)
    for seat, action in played.actions:
        if seat != CHANCE:
            view = rnd.view(seat)
            legal = view.legal_actions()
            if len(legal) > 1 and action in legal:
                context = MatchContext(rules, seat, points, played.number)
                mark = judge(view, legal, context, action, margin, seed, names[1 - seat])
                if mark is not None:
                    yield dataclasses.replace(mark, round_number=played.number)
        try:
            rnd.apply(action, seat)
        except IllegalActionError:
            return  # a voided Gaji play (Hiki) is not in the engine's history: stop reviewing this round


def judge(
    view: Round,
    legal: list[AnyAction],
    context: MatchContext,
    action: AnyAction,
    margin: float = REVIEW_MARGIN,
    seed: int = 1,
    them: str = "the other player",
) -> ReviewMark | None:
    """The review's mark for ``action`` in ``view`` (round 0: the caller knows the round), or None when the
    search cannot tell it from the best move.

    Every move gets the same playouts; a gap above ``margin`` that the noise
    could explain is played again, the two moves alone and for longer
    (:data:`REVIEW_CONFIRM`), and marked only if it holds there.
    """
    level = Level("review", REVIEW_PLAYOUTS_PER_MOVE * len(legal), 30.0)
    values = evaluate(view, legal, context, level, seed, prune=False)
    best, mine = values[0], next(v for v in values if v.action == action)
    if not _worse(best, mine, margin):
        return None
    if best.points - mine.points < noise(best, mine):
        longer = Level("confirm", REVIEW_PLAYOUTS_PER_MOVE * REVIEW_CONFIRM * 2, 60.0)
        again = evaluate(view, [best.action, action], context, longer, seed, prune=False)
        best, mine = next(v for v in again if v.action == best.action), next(v for v in again if v.action == action)
        if not _worse(best, mine, margin) or best.points - mine.points < noise(best, mine):
            return None
    seat = context.seat
    played = _words(view, seat, action, them, why=False)
    better = _words(view, seat, best.action, them, why=True)
    return ReviewMark(0, seat, played, better, best.points - mine.points, _why(view, seat, best, mine))


def _worse(best: MoveValue, mine: MoveValue, margin: float) -> bool:
    """Whether ``mine`` is another move, worth ``margin`` points less and a smaller match chance than ``best``."""
    return best.action != mine.action and best.points - mine.points >= margin and best.chance > mine.chance


def noise(a: MoveValue, b: MoveValue) -> float:
    """How far apart ``a`` and ``b`` (in points) could be by luck alone: :data:`REVIEW_NOISE_Z` standard errors.

    Both moves were tried in the same worlds, so the difference is taken world
    by world (common random numbers): the luck of the deal cancels, and what
    is left is the noise of the comparison itself.
    """
    diffs = [x - y for x, y in zip(a.samples, b.samples, strict=False) if x is not None and y is not None]
    if len(diffs) < 2:
        return math.inf
    return REVIEW_NOISE_Z * statistics.stdev(diffs) / math.sqrt(len(diffs))


def _why(view: Round, seat: int, best: MoveValue, mine: MoveValue) -> str:
    """Why, from the position and the search's own numbers: what the bot's choice keeps open and what the move
    played gave away (:func:`_waiting`), then how each did over the same playouts (``over 233 playouts each,
    the bot's move wins the round 89% of the time for +12.1 on average, this one 82% for +9.7``)."""
    numbers = (
        f"over {best.playouts} playouts each, the bot's move wins the round {best.round_won:.0%} of the time "
        f"for {best.points:+.1f} on average, this one {mine.round_won:.0%} for {mine.points:+.1f}"
    )
    waits = _waiting(view, seat, best.action, mine.action)
    return f"{waits}; {numbers}" if waits else numbers


def _waiting(view: Round, seat: int, better: AnyAction, played: AnyAction) -> str:
    """The best card ``played`` took that ``better`` leaves on the table: who else could take it (what the bot's
    choice risks or keeps open), and the yaku taking it made at once (what the move played gave away: the
    chance to make it later, with more)."""
    took, gained = _taken(view, played)
    left = took & ~_taken(view, better)[0]
    if not left:
        return ""
    mine, theirs = view.captures[seat], view.captures[1 - seat]
    worth = card_worths(view.rules, mine, theirs)
    card = max(cards_of(left), key=lambda c: worth[c])
    now = _towards(view.rules, mine, mine | gained, theirs)
    call = "the Koi-Koi call with it" if view.hand_size(seat) > 1 else "the end of the round (its last card)"
    given = f"; taking it now {now} at once, and {call}" if now.startswith("makes") else ""
    return _who_else(view, seat, card) + given


def _who_else(view: Round, seat: int, card: Card) -> str:
    """Whether ``card`` can wait on the table: only this seat can take it when the rest of its month is in its hand."""
    month = card.month.name.capitalize()
    rest = month_mask(card.month) & ~(view.table | view.captures[0] | view.captures[1])
    unseen = (rest & ~view.hands[seat]).bit_count()
    if not unseen:
        whose = f"the rest of {month} is in this player's hand"
        return f"the {card.display_name} can wait: nobody else can take it, {whose}"
    cards = "card" if unseen == 1 else "cards"
    return f"the {card.display_name} stays on the table, where {unseen} unseen {month} {cards} could take it"


def _words(view: Round, seat: int, action: AnyAction, them: str, *, why: bool) -> str:
    if isinstance(action, CallKoiKoi):
        return "call Koi-Koi"
    if isinstance(action, CallStop):
        return "call Shōbu"
    line = explain(view, seat, action, them)
    return line if why else line.partition(":")[0]
