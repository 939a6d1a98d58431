"""What the measurements asked of the search bot: discards that do not feed, reading what the other seat
passed over, and the last round played for the match."""

from __future__ import annotations

import random

from builders import build_round, cards

from p2p_koikoi.bots import MatchContext
from p2p_koikoi.bots.determinize import Determinizer
from p2p_koikoi.bots.inference import lacking_weights
from p2p_koikoi.bots.match_value import MatchValue
from p2p_koikoi.bots.rollout import MatchDecider, Rollout
from p2p_koikoi.bots.strong import Level, StrongAgent, _Search
from p2p_koikoi.engine import CHANCE, Card, Play, Round, cards_of, preset

PLAIN = preset("nintendo").with_overrides(["hand-yaku=off"])
C = Card.parse


def shown_view(mine: str, shown: str, table: str) -> Round:
    """Seat 0's view, to play, when the other seat has shown ``shown`` of its hand (its other cards unknown)."""
    known = cards(shown)
    return Round.start(PLAIN, 0, (cards(mine), known), cards(table), [None] * 24, hidden=(0, 8 - known.bit_count()))


# Nothing in this hand takes a table card: every play is a discard.
PLAINS = "wisteria-plain-1 wisteria-plain-2 iris-plain-1 iris-plain-2 peony-plain-1 peony-plain-2"
HAND = f"cherry-curtain {PLAINS} clover-plain-1"
TABLE = "pine-plain-1 pine-plain-2 plum-plain-1 plum-plain-2 pampas-plain-1 pampas-plain-2 maple-plain-1 maple-plain-2"


def test_the_bot_keeps_the_curtain_when_the_other_seat_has_shown_cherry_cards() -> None:
    view = shown_view(HAND, "cherry-ribbon cherry-plain-1", TABLE)
    context = MatchContext(PLAIN, 0, (0, 0), 1)
    for seed in range(3):
        choice = StrongAgent(seed, Level("test", 400, 30.0)).choose(view, view.legal_actions(), context)
        assert isinstance(choice, Play) and choice.card is not Card.CHERRY_CURTAIN


def test_a_rollout_discard_weighs_what_it_offers_the_other_seat() -> None:
    """Two discards worth the same to us: the one whose month the other seat may hold costs more."""
    rnd = shown_view(f"chrysanthemum-sake clover-boar {PLAINS}", "", TABLE)
    rnd.captures[1] = cards("clover-plain-1 clover-plain-2 clover-ribbon")  # every other clover card is out
    worth = [5.0] * 48
    worth[Card.CHRYSANTHEMUM_SAKE] = worth[Card.CLOVER_BOAR] = 1.0
    rollout = Rollout((worth, worth), gaji=False, epsilon=0.0)
    card, taken = rollout.pick_play(rnd, 0, False, random.Random(0))
    assert (card, taken) == (
        Card.CLOVER_BOAR,
        0,
    )  # the boar can feed nobody; the sake cup may feed a chrysanthemum card


def test_exploring_rollouts_never_throw_a_bright_away_for_nothing() -> None:
    rnd = build_round(PLAIN, hand0=HAND, hand1="", table=TABLE)
    worth = [0.0] * 48
    worth[Card.CHERRY_CURTAIN] = 5.0
    rollout = Rollout((worth, worth), gaji=False, epsilon=1.0)
    for seed in range(200):
        card, _ = rollout.pick_play(rnd, 0, True, random.Random(seed))
        assert card is not Card.CHERRY_CURTAIN


def passed_over() -> tuple[Round, int]:
    """Seat 1 throws a plain away while the Cherry curtain lies on the table: it likely has no cherry card.

    Also the table seat 1 passed over."""
    rnd = build_round(
        PLAIN,
        hand0="pine-plain-1",
        hand1="iris-plain-1",
        table="cherry-curtain",
        stock="wisteria-plain-1 peony-plain-1",
    )
    rnd.apply(Play(C("pine-plain-1")), 0)
    rnd.apply(rnd.legal_actions()[0], CHANCE)
    passed = rnd.table
    rnd.apply(Play(C("iris-plain-1")), 1)
    rnd.apply(rnd.legal_actions()[0], CHANCE)
    return rnd, passed


def test_the_months_the_other_seat_passed_over_weigh_less_in_its_guessed_hand() -> None:
    rnd, passed = passed_over()
    view = rnd.view(0)
    weights = lacking_weights(view, 0)
    cherry = [c for c in cards_of(view.unseen) if c.month == Card.CHERRY_CURTAIN.month]
    assert cherry and all(weights[c] < 0.2 for c in cherry)  # a bright passed over by a discard
    months = {c.month for c in cards_of(passed)}
    assert all(weights[c] < 1.0 for c in cards_of(view.unseen) if c.month in months)
    assert all(weights[c] == 1.0 for c in cards_of(view.unseen) if c.month not in months)
    # Sampled hands hold the passed-over months far less often than a uniform guess would.
    leaning, uniform = Determinizer(view, 0, weights), Determinizer(view, 0)
    month = sum(c.bit for c in cherry)
    rng = random.Random(3)
    lean = sum((leaning.sample(rng)[0] & month).bit_count() for _ in range(2000))
    flat = sum((uniform.sample(rng)[0] & month).bit_count() for _ in range(2000))
    assert lean < 0.6 * flat


def test_a_view_without_a_history_guesses_uniformly() -> None:
    view = passed_over()[0].view(0)
    view.history = []
    assert lacking_weights(view, 0) == [1.0] * 48


def test_in_the_last_round_a_seat_behind_plays_on_and_a_seat_ahead_stops() -> None:
    rnd = build_round(PLAIN, hand0="", hand1="", table="")
    rnd.captures[0] = cards("pine-plain-1 pine-plain-2 plum-plain-1 plum-plain-2 cherry-plain-1")
    rnd.captures[0] |= cards("cherry-plain-2 wisteria-plain-1 wisteria-plain-2 iris-plain-1 iris-plain-2")
    assert rnd.total(0) == 1
    behind = MatchDecider(MatchValue(MatchContext(PLAIN, 0, (0, 5), 12)), 0)
    ahead = MatchDecider(MatchValue(MatchContext(PLAIN, 0, (5, 0), 12)), 0)
    assert behind.koikoi(rnd, 0) is True  # Shōbu pays 1 and loses the match by 4
    assert ahead.koikoi(rnd, 0) is False  # Shōbu wins the match
    # The other seat's rise seen from seat 0's search: its chance is the complement.
    them = MatchDecider(MatchValue(MatchContext(PLAIN, 1, (0, 5), 12)), 1)
    assert them.koikoi(rnd, 0) is True


def test_when_every_move_wins_the_match_the_search_still_takes_the_points() -> None:
    """Far ahead in the last round, every move wins: the match chance ties, and the round's points decide."""
    table = "cherry-curtain pampas-plain-1 pampas-plain-2 maple-plain-1 maple-plain-2 chrysanthemum-plain-1"
    view = shown_view(f"pine-plain-1 cherry-plain-1 {PLAINS}", "", f"{table} chrysanthemum-plain-2 paulownia-plain-1")
    context = MatchContext(PLAIN, 0, (500, 0), 12)  # last round of 12, 500 points ahead
    legal = view.legal_actions()
    assert legal[0] == Play(Card.PINE_PLAIN_1)  # a discard, first in the list
    for seed in range(2):
        choice = StrongAgent(seed, Level("test", 200, 30.0)).choose(view, legal, context)
        assert choice == Play(Card.CHERRY_PLAIN_1)  # takes the curtain


def test_of_two_discards_that_score_the_same_the_bright_stays_in_the_hand() -> None:
    """Moves that tie (as two cards of one month held together do in every world) keep the bright back."""
    view = shown_view(HAND, "", TABLE)
    legal = view.legal_actions()
    assert legal[0] == Play(Card.CHERRY_CURTAIN)  # first in the list: the old tie-break threw it away
    search = _Search(view, legal, MatchContext(PLAIN, 0, (0, 0), 1), Level("test", 8, 30.0), 0.1, 1)
    for i in range(len(legal)):
        search.totals[i], search.points[i], search.counts[i] = 5.0, 10, 10
    ranked = [v.action for v in search.values()]
    assert ranked[-1] == Play(Card.CHERRY_CURTAIN)
    assert ranked[0] != Play(Card.CHERRY_CURTAIN)
