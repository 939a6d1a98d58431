"""The match: first dealer, redeals, who deals next, pools and caps, and the end of the match."""

from __future__ import annotations

import random

import pytest
from builders import cards

from p2p_koikoi.app.local_match import play_local_match
from p2p_koikoi.bots import MatchContext, RandomAgent
from p2p_koikoi.engine import (
    PRESETS,
    AnyAction,
    Card,
    ClaimHandYaku,
    Deal,
    EngineError,
    Match,
    MatchPhase,
    OutcomeKind,
    Round,
    Termination,
    Yaku,
    first_dealer_by_draw,
    preset,
)
from p2p_koikoi.engine.rules import FirstDealer

C = Card.parse


def deal_with(hand0: str = "", hand1: str = "", table: str = "", seed: int = 0) -> Deal:
    """A deal holding these cards where named, the rest shuffled."""
    h0, h1, t = cards(hand0), cards(hand1), cards(table)
    rest = [c for c in range(48) if not (h0 | h1 | t) >> c & 1]
    random.Random(seed).shuffle(rest)

    def take(mask: int) -> int:
        while mask.bit_count() < 8:
            mask |= 1 << rest.pop()
        return mask

    return Deal((take(h0), take(h1)), take(t), tuple(Card(c) for c in rest))


def test_first_dealer_by_drawing_cards() -> None:
    nin, book = FirstDealer.DRAW_MONTH_RANK, FirstDealer.DRAW_MONTH
    assert first_dealer_by_draw(nin, C("pine-plain-1"), C("plum-warbler")) == 0
    assert first_dealer_by_draw(nin, C("maple-deer"), C("plum-plain-1")) == 1
    assert first_dealer_by_draw(nin, C("pine-plain-1"), C("pine-crane")) == 1  # same month: the higher value
    assert first_dealer_by_draw(nin, C("pine-plain-1"), C("pine-plain-2")) is None  # two plains: again
    assert first_dealer_by_draw(book, C("pine-plain-1"), C("pine-crane")) is None  # rulebook: again
    with pytest.raises(EngineError):
        first_dealer_by_draw(FirstDealer.COIN, C("pine-crane"), C("plum-warbler"))


def test_a_redeal_keeps_the_round_and_the_dealer() -> None:
    match = Match(preset("lemme"))
    match.set_first_dealer(1)
    rnd = match.start_round(deal_with(table="cherry-curtain cherry-ribbon cherry-plain-1 cherry-plain-2"))
    assert rnd.outcome is not None and rnd.outcome.kind is OutcomeKind.REDEAL
    result = match.finish_round()
    assert (result.number, result.redeal, match.round_number, match.redeal, match.dealer) == (1, 0, 1, 1, 1)
    assert match.phase is MatchPhase.DEAL


def test_pool_payment_is_capped_and_an_empty_pool_ends_the_match() -> None:
    rules = preset("lemme")
    match = Match(rules)
    match.set_first_dealer(0)
    teshi = "cherry-curtain cherry-ribbon cherry-plain-1 cherry-plain-2"
    for number in range(1, 6):
        rnd = match.start_round(deal_with(hand0=teshi, seed=number))
        if rnd.over:  # a redeal of the shuffled rest: deal again
            match.finish_round()
            continue
        rnd.apply(ClaimHandYaku(Yaku.TESHI, cards(teshi)), 0)
        rnd.apply(rnd.legal_actions()[0], 1)
        result = match.finish_round()
        assert result.score is not None
        if match.phase is MatchPhase.OVER:
            break
    assert match.points == [50, 0]
    assert match.outcome is not None
    assert (match.outcome.winner, match.outcome.termination) == (0, Termination.POOL_EMPTY)
    last = match.results[-1]
    assert last.score is not None and last.score.payment == 1  # 25 - 4 * 6: capped at what was left


def test_forfeit() -> None:
    match = Match(preset("nintendo"))
    match.set_first_dealer(0)
    outcome = match.forfeit(0)
    assert (outcome.winner, outcome.termination) == (1, Termination.FORFEIT)


@pytest.mark.parametrize("name", list(PRESETS))
def test_whole_matches_between_random_agents(name: str) -> None:
    rules = preset(name)
    for seed in range(3):
        match = play_local_match(rules, (RandomAgent(seed), RandomAgent(seed + 100)), random.Random(seed))
        outcome = match.outcome
        assert outcome is not None
        counted = [r for r in match.results if r.outcome.kind is not OutcomeKind.REDEAL]
        if outcome.termination is Termination.ROUNDS_PLAYED:
            assert len(counted) == rules.rounds
        if rules.scoring.value == "pool":
            assert sum(match.points) == 2 * rules.pool
        else:
            paid = sum(r.score.payment for r in match.results if r.score is not None)
            assert sum(match.points) == paid
        # Who deals next follows each round's outcome.
        for before, after in zip(match.results, match.results[1:], strict=False):
            assert after.dealer == before.outcome.next_dealer


def test_a_local_match_hands_each_round_over_before_its_first_move() -> None:
    # A bench that reads the real cards at every move (the oracle, the discard calibration) needs the round
    # before the dealer's first play, and the very object that is then played.
    dealt: list[tuple[Round, bool]] = []

    class FirstMoveWatcher(RandomAgent):
        def choose(self, view: Round, legal: list[AnyAction], context: MatchContext) -> AnyAction:
            real, _ = dealt[-1]
            assert real.public_state() == view.public_state()
            return super().choose(view, legal, context)

    def on_round(rnd: Round) -> None:
        dealt.append((rnd, not rnd.history))

    match = play_local_match(
        preset("nintendo"), (FirstMoveWatcher(1), FirstMoveWatcher(2)), random.Random(5), on_round=on_round
    )
    assert len(dealt) == len(match.results) and all(fresh for _rnd, fresh in dealt)
    assert all(rnd.over for rnd, _fresh in dealt)
