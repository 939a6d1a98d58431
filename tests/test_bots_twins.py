"""Twin moves: two plains of one month play out the same, so the search tries one and its budget is not split."""

from __future__ import annotations

import random

import pytest
from test_bots_discards import PLAIN, shown_view

from p2p_koikoi.bots import MatchContext, strong
from p2p_koikoi.bots.strong import Level, StrongAgent, _Search, evaluate
from p2p_koikoi.bots.twins import move_kind, twin_groups
from p2p_koikoi.engine import PRESETS, AnyAction, Card, ChooseCapture, Kind, Play, Role, YakuTable

CONTEXT = MatchContext(PLAIN, 0, (0, 0), 1)
# Nothing in this hand takes a table card; the two Pine plains are twins, every other card is of a kind of its own.
HAND = (
    "pine-plain-1 pine-plain-2 cherry-curtain iris-bridge wisteria-plain-1 peony-plain-1 chrysanthemum-plain-1"
    " willow-swallow"
)
TABLE = (
    "plum-plain-1 plum-plain-2 pampas-plain-1 pampas-plain-2 maple-plain-1 maple-plain-2 clover-plain-1 clover-plain-2"
)


def test_two_plains_of_a_month_are_twins_and_nothing_else_is() -> None:
    assert move_kind(Play(Card.PINE_PLAIN_1)) == move_kind(Play(Card.PINE_PLAIN_2))
    assert move_kind(Play(Card.PAULOWNIA_PLAIN_1)) == move_kind(Play(Card.PAULOWNIA_PLAIN_3))
    assert move_kind(ChooseCapture(Card.IRIS_PLAIN_1)) == move_kind(ChooseCapture(Card.IRIS_PLAIN_2))
    taking = (Play(Card.WISTERIA_RIBBON, Card.WISTERIA_PLAIN_1), Play(Card.WISTERIA_RIBBON, Card.WISTERIA_PLAIN_2))
    assert move_kind(taking[0]) == move_kind(taking[1])
    assert move_kind(Play(Card.PINE_PLAIN_1)) != move_kind(Play(Card.PLUM_PLAIN_1))  # another month
    assert move_kind(Play(Card.WILLOW_LIGHTNING)) != move_kind(Play(Card.WILLOW_RIBBON))
    assert move_kind(Play(Card.CHERRY_PLAIN_1)) != move_kind(Play(Card.CHERRY_CURTAIN))
    legal = [Play(Card.PINE_PLAIN_1), Play(Card.CHERRY_CURTAIN), Play(Card.PINE_PLAIN_2), Play(Card.CHERRY_PLAIN_1)]
    assert twin_groups(legal) == [0, 1, 0, 3]


def test_no_rule_set_tells_twins_apart() -> None:
    """The claim twins rest on: swapping one plain for its twin in any pile scores the same under every preset."""
    twins = [
        (a, b)
        for a in Card
        for b in Card
        if a < b and a.kind is b.kind is Kind.PLAIN and a.role is b.role is Role.NONE and a.month == b.month
    ]
    assert len(twins) == 13  # two plains in ten months, three in the Paulownia (three pairs), none in the Willow
    rng = random.Random(7)
    for rules in PRESETS.values():
        table = YakuTable(rules)
        for _ in range(200):
            pile = rng.getrandbits(48)
            for a, b in twins:
                with_a, with_b = (pile | a.bit) & ~b.bit, (pile | b.bit) & ~a.bit
                assert table.total(with_a) == table.total(with_b), (rules.preset, a, b)


def test_the_search_tries_one_twin_and_gives_the_other_its_findings() -> None:
    view = shown_view(HAND, "", TABLE)
    legal = view.legal_actions()
    search = _Search(view, legal, CONTEXT, Level("test", 700, 30.0), 0.1, 1)
    search.best(prune=False)
    tried = [i for i, n in enumerate(search.counts) if n]
    assert len(tried) == 7 and len(legal) == 8  # the second Pine plain is never played itself
    found = {v.action: v for v in search.values()}
    one, two = found[Play(Card.PINE_PLAIN_1)], found[Play(Card.PINE_PLAIN_2)]
    assert (one.chance, one.points, one.playouts) == (two.chance, two.points, two.playouts) and one.playouts == 100
    assert len(evaluate(view, legal, CONTEXT, Level("test", 300, 30.0), 1)) == 8  # a review still sees every move


def test_twins_alone_are_played_without_a_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two plains of one month left in hand: either will do, and the bot does not search to find that out."""

    def no_search(*_args: object) -> None:
        raise AssertionError("a search was started for a choice between twins")

    monkeypatch.setattr(strong, "_Search", no_search)
    view = shown_view(HAND, "", TABLE)
    twins: list[AnyAction] = [Play(Card.PINE_PLAIN_2), Play(Card.PINE_PLAIN_1)]
    assert StrongAgent(1, Level("test", 800, 30.0)).choose(view, twins, CONTEXT) == Play(Card.PINE_PLAIN_2)
    with pytest.raises(AssertionError, match="a search was started"):  # and a real choice does search
        StrongAgent(1, Level("test", 800, 30.0)).choose(view, [*twins, Play(Card.CHERRY_CURTAIN)], CONTEXT)
