"""Whole-round flows that need a particular run of play: decisions, automatic stops and endings.

Each test finds, by a seeded search over random deals, a deal where playing the
first legal action (and Koi-Koi at every decision) leads to the situation under
test, then replays that deal under the rules being tested. The search is
deterministic, so the deal is the same on every run.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from p2p_koikoi.engine import (
    AnyAction,
    CallKoiKoi,
    Deal,
    OutcomeKind,
    Phase,
    Round,
    RuleSet,
    preset,
)

Probe = Callable[[Round], int | None]


def policy(rnd: Round) -> AnyAction:
    return CallKoiKoi() if rnd.phase is Phase.DECISION else rnd.legal_actions()[0]


def find(rules: RuleSet, probe: Probe, seed: int = 1, tries: int = 20000) -> tuple[Deal, int]:
    """A deal for which ``probe`` (playing a fresh round of it) returns a step count, and that count."""
    rng = random.Random(seed)
    for _ in range(tries):
        deck = list(range(48))
        rng.shuffle(deck)
        deal = Deal.from_deck(deck, rules.deal_pattern, 0)
        rnd = Round.from_deal(rules, 0, deal)
        if rnd.over:
            continue
        steps = probe(rnd)
        if steps is not None:
            return deal, steps
    raise AssertionError("no deal found for the scenario")  # pragma: no cover


def run(rnd: Round, steps: int) -> None:
    for _ in range(steps):
        rnd.apply(policy(rnd))


def dealer_first_rise_on_last_turn_then_drawn(rnd: Round) -> int | None:
    """The dealer's first rise comes on its last turn, nobody else ever rises, and the round is drawn."""
    steps = 0
    while rnd.phase is not Phase.DECISION and not rnd.over:
        rnd.apply(policy(rnd))
        steps += 1
    if rnd.over or rnd.to_act != rnd.dealer or rnd.hand_size(rnd.dealer) != 0:
        return None
    while not rnd.over:
        rnd.apply(policy(rnd))
    assert rnd.outcome is not None
    return steps if rnd.outcome.kind is OutcomeKind.DRAWN else None


LAST_TURN_BASE = preset("lemme").with_overrides(["hand-yaku=off"])
LAST_TURN_DEAL, LAST_TURN_STEPS = find(LAST_TURN_BASE, dealer_first_rise_on_last_turn_then_drawn)


def last_turn(*overrides: str) -> Round:
    rnd = Round.from_deal(LAST_TURN_BASE.with_overrides(overrides), 0, LAST_TURN_DEAL)
    run(rnd, LAST_TURN_STEPS)
    return rnd


def test_both_hands_empty_still_offers_koikoi_on_the_dealers_last_turn() -> None:
    rnd = last_turn("auto-stop=both-hands-empty")
    assert rnd.phase is Phase.DECISION and rnd.to_act == 0
    assert (rnd.hand_size(0), rnd.hand_size(1)) == (0, 1)


def test_a_rise_on_the_turn_that_empties_your_hand_stops_by_itself() -> None:
    rnd = last_turn("auto-stop=own-hand-empty")
    assert rnd.outcome is not None
    assert (rnd.outcome.kind, rnd.outcome.winner, rnd.outcome.next_dealer) == (OutcomeKind.AUTO_STOP, 0, 0)
    assert rnd.outcome.yaku


@pytest.mark.parametrize(
    ("exhausted", "kind", "winner", "next_dealer"),
    [
        ("draw", OutcomeKind.DRAWN, None, 0),
        ("no-game", OutcomeKind.NO_GAME, None, 1),
        ("last-caller", OutcomeKind.LAST_CALLER, 0, 0),
        ("dealer-bonus", OutcomeKind.DEALER_BONUS, 0, 0),
    ],
)
def test_hands_run_out(exhausted: str, kind: OutcomeKind, winner: int | None, next_dealer: int) -> None:
    rnd = last_turn(f"exhausted={exhausted}")
    rnd.apply(CallKoiKoi())
    while not rnd.over:
        rnd.apply(policy(rnd))
    outcome = rnd.outcome
    assert outcome is not None
    assert (outcome.kind, outcome.winner, outcome.next_dealer) == (kind, winner, next_dealer)
    assert outcome.counts
    score = outcome.score(rnd.rules, 25)
    if kind is OutcomeKind.DEALER_BONUS:
        assert score is not None and score.payment == rnd.rules.dealer_bonus == 6
    elif kind is OutcomeKind.LAST_CALLER:
        assert score is not None and outcome.yaku == tuple(rnd.yaku(0))
        assert score.base == rnd.total(0)
    else:
        assert score is None


def ends_at_the_first_rise_after_a_call(rnd: Round) -> int | None:
    steps = 0
    while not rnd.over:
        rnd.apply(policy(rnd))
        steps += 1
    assert rnd.outcome is not None
    ok = rnd.outcome.kind is OutcomeKind.AUTO_STOP and sum(rnd.outcome.calls) == 1
    return steps if ok else None


@pytest.mark.parametrize("caller_wins", [True, False])
def test_nintendo_the_next_yaku_after_a_call_ends_the_round(caller_wins: bool) -> None:
    rules = preset("nintendo").with_overrides(["hand-yaku=off"])

    def probe(rnd: Round) -> int | None:
        steps = ends_at_the_first_rise_after_a_call(rnd)
        if steps is None or rnd.outcome is None or rnd.outcome.winner is None:
            return None
        won_by_caller = rnd.outcome.calls[rnd.outcome.winner] == 1
        mid_round = rnd.hand_size(rnd.outcome.winner) > 0  # not a last-card stop, which any rules make
        return steps if won_by_caller == caller_wins and mid_round else None

    deal, steps = find(rules, probe)
    rnd = Round.from_deal(rules, 0, deal)
    decisions = 0
    for _ in range(steps):
        decisions += rnd.phase is Phase.DECISION
        rnd.apply(policy(rnd))
    assert decisions == 1 and rnd.outcome is not None
    score = rnd.outcome.score(rules)
    assert score is not None
    doubled = score.base * (2 if score.base >= 7 else 1)
    assert score.total == (doubled if caller_wins else 2 * doubled)
    # Under the same rules with play going on after a call, the same point offers a decision instead.
    cont = Round.from_deal(rules.with_overrides(["after-koikoi=continue"]), 0, deal)
    run(cont, steps)
    assert cont.phase is Phase.DECISION


def test_new_yaku_rule_offers_no_decision_for_a_plus_one() -> None:
    rise = preset("qdan").with_overrides(["hand-yaku=off", "decision-on=rise"])
    new_yaku = rise.with_overrides(["decision-on=new-yaku"])

    def probe(rnd: Round) -> int | None:
        """Steps up to the first decision offered for a rise that adds no new yaku."""
        held = [0, 0]
        steps = 0
        while not rnd.over:
            if rnd.phase is Phase.DECISION:
                seat = rnd.to_act
                bits = rnd._yaku_table.evaluate(rnd.captures[seat])[1]
                if bits & ~held[seat] == 0:
                    return steps
                held[seat] = bits
            rnd.apply(policy(rnd))
            steps += 1
        return None

    deal, steps = find(rise, probe)
    a = Round.from_deal(rise, 0, deal)
    run(a, steps)
    assert a.phase is Phase.DECISION
    b = Round.from_deal(new_yaku, 0, deal)
    run(b, steps)
    assert b.phase is not Phase.DECISION
