"""Property tests over random legal games under every preset (hypothesis)."""

from __future__ import annotations

import random

from conftest import presets
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p_koikoi.engine import (
    ALL_CARDS,
    CHANCE,
    AnyAction,
    Card,
    Deal,
    Exchange,
    IllegalActionError,
    Phase,
    Play,
    Round,
    YakuTable,
    preset,
    score_yaku,
)
from p2p_koikoi.engine.playout import random_playout
from p2p_koikoi.engine.round import OutcomeKind

seeds = st.integers(min_value=0, max_value=2**32 - 1)


def dealt(name: str, seed: int, dealer: int) -> tuple[Round, Deal]:
    rules = preset(name)
    rng = random.Random(seed)
    deck = list(range(48))
    rng.shuffle(deck)
    deal = Deal.from_deck(deck, rules.deal_pattern, dealer)
    return Round.from_deal(rules, dealer, deal), deal


def accounted(rnd: Round) -> None:
    """Every card is in exactly one place: a hand, the table, a capture pile, the stock not yet drawn, or
    the drawn card waiting for its choice."""
    places = [rnd.hands[0], rnd.hands[1], rnd.table, rnd.captures[0], rnd.captures[1]]
    rest = 0
    for card in rnd._stock[rnd.stock_index :]:
        assert card is not None
        rest |= 1 << card
    places.append(rest)
    if rnd.pending_draw is not None:
        places.append(rnd.pending_draw.bit)
    union = 0
    for mask in places:
        assert union & mask == 0, "a card is in two places"
        union |= mask
    assert union == ALL_CARDS, "a card went missing"
    assert rnd.hand_size(0) <= 8 and rnd.hand_size(1) <= 8
    assert rnd.table & ~ALL_CARDS == 0
    for month in range(12):
        assert (rnd.table >> (4 * month) & 0b1111) != 0b1111 or rnd.over, "four of a month on the table mid-round"


def play_random(rnd: Round, rng: random.Random) -> list[tuple[int, AnyAction]]:
    trace = []
    while not rnd.over:
        accounted(rnd)
        legal = rnd.legal_actions()
        assert legal, "a live round always has a legal action"
        action = rng.choice(legal)
        trace.append((rnd.to_act, action))
        rnd.apply(action)
    accounted(rnd)
    return trace


@settings(max_examples=150, deadline=None)
@given(presets, seeds, st.integers(0, 1))
def test_random_games_keep_every_card_and_replay_identically(name: str, seed: int, dealer: int) -> None:
    rnd, deal = dealt(name, seed, dealer)
    trace = play_random(rnd, random.Random(seed))
    again = Round.from_deal(rnd.rules, dealer, deal)
    for seat, action in trace:
        again.apply(action, seat)
    assert again.outcome == rnd.outcome
    assert again.captures == rnd.captures and again.table == rnd.table


@settings(max_examples=150, deadline=None)
@given(presets, seeds)
def test_outcome_scores_agree_with_the_scoring_function(name: str, seed: int) -> None:
    rnd, _ = dealt(name, seed, seed & 1)
    play_random(rnd, random.Random(seed ^ 0x5A5A))
    outcome = rnd.outcome
    assert outcome is not None
    if outcome.winner is None or outcome.kind in (OutcomeKind.HAND_YAKU, OutcomeKind.DEALER_BONUS):
        return
    table = YakuTable(rnd.rules)
    assert list(outcome.yaku) == table.score(rnd.captures[outcome.winner])
    loser = 1 - outcome.winner
    left = rnd.rules.pool if rnd.rules.scoring.value == "pool" else None
    expected = score_yaku(
        table.score(rnd.captures[outcome.winner]),
        rnd.rules,
        winner_calls=outcome.calls[outcome.winner],
        loser_calls=outcome.calls[loser],
        loser_points=left,
    )
    assert outcome.score(rnd.rules, left) == expected
    assert expected.base > 0, "a round is never won with nothing"


@settings(max_examples=100, deadline=None)
@given(presets, seeds, st.data())
def test_no_illegal_action_is_accepted(name: str, seed: int, data: st.DataObject) -> None:
    """Any action outside legal_actions() is refused and changes nothing; every legal one is accepted."""
    rnd, _ = dealt(name, seed, 0)
    rng = random.Random(seed)
    every_play = [Play(c) for c in Card] + [Play(c, t) for c in Card for t in Card if c != t and (c >> 2) == (t >> 2)]
    while not rnd.over:
        legal = rnd.legal_actions()
        if rnd.phase is Phase.PLAY:
            probe = data.draw(st.sampled_from(every_play))
            if probe not in legal:
                before = (rnd.public_state(), tuple(rnd.hands), len(rnd.history))
                try:
                    rnd.apply(probe)
                except IllegalActionError:
                    pass
                else:
                    raise AssertionError(f"{probe} was accepted but is not legal")
                assert before == (rnd.public_state(), tuple(rnd.hands), len(rnd.history))
            wrong_seat = 1 - rnd.to_act
            try:
                rnd.apply(legal[0], wrong_seat)
            except IllegalActionError as exc:
                assert exc.rule == "not-your-turn"
            else:
                raise AssertionError("a move out of turn was accepted")
        rnd.apply(rng.choice(legal))


@settings(max_examples=150, deadline=None)
@given(presets, seeds)
def test_fast_playout_is_the_checked_game(name: str, seed: int) -> None:
    """A fast playout's moves, replayed through the checked apply, give the same round."""
    rnd, deal = dealt(name, seed, seed & 1)
    record: list[tuple[int, AnyAction]] = []
    outcome = random_playout(rnd, random.Random(seed), record=record)
    again = Round.from_deal(rnd.rules, seed & 1, deal)
    for seat, action in record:
        again.apply(action, CHANCE if seat == CHANCE else seat)
    assert again.outcome == outcome
    assert again.captures == rnd.captures


@settings(max_examples=60, deadline=None)
@given(presets, seeds)
def test_views_follow_the_game_without_the_hidden_cards(name: str, seed: int) -> None:
    """Each seat's view, fed only the moves it can see, stays in step with the real round."""
    rnd, _ = dealt(name, seed, 0)
    views = [rnd.view(0), rnd.view(1)]
    rng = random.Random(seed)
    while not rnd.over:
        seat = rnd.to_act
        if seat != CHANCE:
            mine = views[seat].legal_actions()
            real = rnd.legal_actions()
            assert set(real) <= set(mine), "a seat's view offers every move the round allows"
        action = rng.choice(rnd.legal_actions())
        rnd.apply(action)
        for view in views:
            view.apply(action, seat)
        if isinstance(action, Exchange):
            for s, view in enumerate(views):
                view.reveal(s, rnd.hands[s])  # the deal protocol unlocks each seat's hand after the exchange
        for s, view in enumerate(views):
            assert view.public_state() == rnd.public_state()
            assert view.hands[s] == rnd.hands[s]
            assert view.captures == rnd.captures
