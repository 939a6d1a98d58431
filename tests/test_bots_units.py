"""The parts of the bots one at a time: the greedy rules, the worlds, the rollouts, the match value, the search."""

from __future__ import annotations

import random

import pytest
from builders import build_round, cards
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from p2p_koikoi.bots import MatchContext
from p2p_koikoi.bots.determinize import Determinizer
from p2p_koikoi.bots.greedy import GreedyAgent
from p2p_koikoi.bots.heuristics import card_worths, cards_to_rise, koikoi_pays
from p2p_koikoi.bots.match_value import MatchValue
from p2p_koikoi.bots.rollout import Rollout
from p2p_koikoi.bots.strong import Level, StrongAgent
from p2p_koikoi.engine import (
    CHANCE,
    PRESETS,
    AnyAction,
    CallKoiKoi,
    CallStop,
    Card,
    Deal,
    Exchange,
    OutcomeKind,
    Phase,
    Play,
    Round,
    RoundOutcome,
    preset,
)
from p2p_koikoi.engine.rules import Scoring

C = Card.parse
NINTENDO = preset("nintendo")
PLAIN = NINTENDO.with_overrides(["hand-yaku=off"])


def ctx(rnd: Round, seat: int, points: tuple[int, int] | None = None, round_number: int = 1) -> MatchContext:
    if points is None:
        start = rnd.rules.pool if rnd.rules.scoring is Scoring.POOL else 0
        points = (start, start)
    return MatchContext(rnd.rules, seat, points, round_number)


def ask(agent: GreedyAgent | StrongAgent, rnd: Round, **kw: object) -> AnyAction:
    seat = rnd.to_act
    view = rnd.view(seat)
    return agent.choose(view, view.legal_actions(), ctx(rnd, seat, **kw))  # type: ignore[arg-type]


# -- greedy ----------------------------------------------------------------------------


def test_greedy_takes_the_most_valuable_capture() -> None:
    r = build_round(PLAIN, hand0="pine-plain-1 maple-plain-1", hand1="", table="pine-crane maple-plain-2")
    assert ask(GreedyAgent(1), r) == Play(C("pine-plain-1"))


def test_greedy_takes_a_yaku_now_over_a_bright() -> None:
    r = build_round(
        PLAIN,
        hand0="cherry-plain-1 paulownia-plain-1",
        hand1="",
        table="cherry-ribbon paulownia-phoenix",
    )
    r.captures[0] = cards("pine-ribbon plum-ribbon")  # two poem ribbons: the cherry one makes Akatan
    assert ask(GreedyAgent(1), r) == Play(C("cherry-plain-1"))


def test_greedy_throws_away_the_card_worth_least() -> None:
    hand = "pine-crane cherry-curtain pampas-moon willow-rain paulownia-phoenix plum-warbler peony-butterflies"
    table = "maple-plain-1 maple-plain-2 iris-plain-1 iris-plain-2 wisteria-plain-1 wisteria-plain-2 clover-plain-1"
    r = build_round(PLAIN, hand0=hand + " paulownia-plain-1", hand1="", table=table + " chrysanthemum-plain-1")
    assert ask(GreedyAgent(1), r) == Play(C("paulownia-plain-1"))


def test_greedy_chases_the_yaku_it_is_closest_to() -> None:
    # Two table cards it can take, a plain with a plain or an animal with a plain; holding four animals
    # (one from Tane), the animal weighs more than the plain would.
    r = build_round(PLAIN, hand0="iris-plain-1 wisteria-plain-1", hand1="", table="iris-bridge wisteria-ribbon")
    r.captures[0] = cards("plum-warbler pampas-geese willow-swallow clover-boar")
    assert ask(GreedyAgent(1), r) == Play(C("iris-plain-1"))


def test_greedy_keeps_the_hands_at_the_exchange() -> None:
    r = build_round(preset("rulebook"), hand0="", hand1="", table="")
    assert r.phase is Phase.EXCHANGE
    assert ask(GreedyAgent(1), r) == Exchange(False)


def test_the_simple_koikoi_rule() -> None:
    rules = PLAIN
    two_lights = cards("pine-crane cherry-curtain")
    sake = cards("chrysanthemum-sake pampas-moon")  # Tsukimi made, Hanami one card away
    assert cards_to_rise(rules, sake, 0) == 1
    assert cards_to_rise(rules, 0, 0) == 2  # Hanami or Tsukimi: two cards
    assert koikoi_pays(rules, 6, 5, sake, 0)
    assert not koikoi_pays(rules, 3, 5, sake, 0), "too few cards left"
    assert not koikoi_pays(rules, 6, 7, sake, 0), "already doubled"
    assert not koikoi_pays(rules, 6, 5, sake, two_lights), "the other seat is one light from Sanko"


def test_worths_rise_near_a_yaku_and_vanish_when_it_is_dead() -> None:
    rules = PLAIN
    fresh = card_worths(rules, 0, 0)
    near = card_worths(rules, cards("pine-ribbon plum-ribbon"), 0)
    dead = card_worths(rules, cards("pine-ribbon"), cards("plum-ribbon"))
    cherry = C("cherry-ribbon")
    assert near[cherry] > fresh[cherry] > dead[cherry]
    assert card_worths(rules, 0, cards("pine-ribbon plum-ribbon"))[cherry] > fresh[cherry], "denial counts too"


# -- worlds and rollouts --------------------------------------------------------------------


def forward(name: str, seed: int, steps: int) -> Round:
    rules = preset(name)
    deck = list(range(48))
    rng = random.Random(seed)
    rng.shuffle(deck)
    rnd = Round.from_deal(rules, seed & 1, Deal.from_deck(deck, rules.deal_pattern, seed & 1))
    while not rnd.over and (rnd.to_act == CHANCE or steps > 0 or rnd.phase in (Phase.EXCHANGE, Phase.HAND_YAKU)):
        steps -= rnd.to_act != CHANCE
        rnd.apply(rng.choice(rnd.legal_actions()))
    return rnd


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(sorted(PRESETS)), st.integers(0, 2**32 - 1), st.integers(0, 20))
def test_a_world_fits_the_view_and_its_rollout_is_a_legal_game(name: str, seed: int, steps: int) -> None:
    rnd = forward(name, seed, steps)
    assume(not rnd.over)
    seat = rnd.to_act
    view = rnd.view(seat)
    determinizer = Determinizer(view, seat)
    hand, stock = determinizer.sample(random.Random(seed))
    world = determinizer.world(hand)
    other = 1 - seat
    assert world.hidden == [0, 0] and world.hands[seat] == view.hands[seat]
    assert world.hands[other] & view.hands[other] == view.hands[other]
    assert world.hand_size(other) == view.hand_size(other) and len(stock) == view.stock_left
    dealt = world.hands[other] & ~view.hands[other]
    assert sum(1 << c for c in stock) | dealt == view.unseen and world.public_state() == view.public_state()

    start = world.copy()
    mine, theirs = world.captures[seat], world.captures[other]
    worths = (card_worths(world.rules, mine, theirs), card_worths(world.rules, theirs, mine))
    record: list[tuple[int, AnyAction]] = []
    outcome = Rollout(worths, world.rules.gaji, epsilon=0.3).play(world, stock, random.Random(seed), record)
    for who, action in record:
        start.apply(action, who)  # every rollout move passes the checked path
    assert start.outcome == outcome


def test_a_search_needs_its_own_hand() -> None:
    r = build_round(preset("rulebook"), hand0="", hand1="", table="")
    with pytest.raises(ValueError):
        Determinizer(r.view(1), 1)


# -- the match value --------------------------------------------------------------------------


def outcome(winner: int | None) -> RoundOutcome:
    return RoundOutcome(OutcomeKind.STOP, winner, (), (0, 0), next_dealer=0, counts=True)


def test_match_value_is_the_chance_of_winning_the_match() -> None:
    early = MatchValue(MatchContext(NINTENDO, 0, (0, 0), 1))
    assert early.of_payment(None, 0) == 0.5
    assert early.of_payment(0, 1) < early.of_payment(0, 6) < 1.0
    assert early.of_payment(1, 6) == pytest.approx(1.0 - early.of_payment(0, 6))
    last = MatchValue(MatchContext(NINTENDO, 0, (10, 15), 12))
    assert last.of_payment(0, 5) == 0.5 and last.of_payment(0, 6) == 1.0 and last.of_payment(0, 4) == 0.0
    assert last.of_payment(None, 0) == 0.0 and last.of_outcome(outcome(None)) == 0.0


def test_match_value_under_pool_scoring() -> None:
    lemme = preset("lemme")
    value = MatchValue(MatchContext(lemme, 1, (10, 40), 2))
    assert value.of_payment(1, 10) == 1.0, "the other pool is empty: the match is won"
    assert value.of_payment(0, 40) == 0.0
    assert 0.0 < value.of_payment(1, 9) < 1.0


# -- the search ----------------------------------------------------------------------------------


def decision(rules_name: str = "nintendo") -> Round:
    """A deterministic deal played greedily to a first rise with cards still in hand."""
    rules = preset(rules_name).with_overrides(["hand-yaku=off"])
    for seed in range(500):
        deck = list(range(48))
        random.Random(seed).shuffle(deck)
        rnd = Round.from_deal(rules, 0, Deal.from_deck(deck, rules.deal_pattern, 0))
        greedy = GreedyAgent(seed)
        while not rnd.over and rnd.phase is not Phase.DECISION:
            seat = rnd.to_act
            if seat == CHANCE:
                rnd.apply(rnd.legal_actions()[0])
            else:
                rnd.apply(ask(greedy, rnd))
        if rnd.phase is Phase.DECISION and rnd.hand_size(rnd.to_act) >= 4 and rnd.total(rnd.to_act) < 7:
            other = 1 - rnd.to_act
            if cards_to_rise(rules, rnd.captures[other], rnd.captures[rnd.to_act]) == 1:
                return rnd
    raise AssertionError("no decision found")  # pragma: no cover


def test_strong_plays_for_the_match_not_the_round() -> None:
    rnd = decision()
    seat, total = rnd.to_act, rnd.total(rnd.to_act)
    bot = StrongAgent(1, Level("test", 200, 30.0))
    # The last round, behind by more than the yaku is worth: Shobu loses the match, Koi-Koi may not.
    assert ask(bot, rnd, points=(0, total + 1) if seat == 0 else (total + 1, 0), round_number=12) == CallKoiKoi()
    # The last round, already ahead, and the other seat one card from a yaku: Shobu wins the match.
    assert ask(bot, rnd, points=(1, 0) if seat == 0 else (0, 1), round_number=12) == CallStop()


def test_strong_is_deterministic_for_a_seed_and_the_time_cap_is_a_safety_net() -> None:
    rnd = forward("nintendo", 3, 2)
    first = ask(StrongAgent(5, Level("test", 100, 30.0)), rnd)
    assert ask(StrongAgent(5, Level("test", 100, 30.0)), rnd) == first
    hurried = StrongAgent(5, Level("test", 10_000, 0.0))
    assert ask(hurried, rnd) in rnd.view(rnd.to_act).legal_actions()
    assert hurried.capped == 1
