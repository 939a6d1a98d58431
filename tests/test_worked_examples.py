"""The ten worked examples of the scoring page (004), under both `lemme` and `nintendo`.

Each example states this game's (lemme's) result and Nintendo's; where the page
says Nintendo's case cannot happen, the engine must refuse the request.
"""

from __future__ import annotations

import pytest

from p2p_koikoi.engine import ScoreRequestError, parse_cards, preset, score_captures, score_hand
from p2p_koikoi.engine.scoring import RoundScore

LEMME = preset("lemme")
NINTENDO = preset("nintendo")
LEMME_NO_DOUBLING = LEMME.with_overrides(["doubling=never"])


def caps(text: str) -> int:
    return parse_cards([text])


def names(score: RoundScore) -> list[tuple[str, int]]:
    return [(y.yaku.value, y.points) for y in score.yaku]


# (example, cards, winner calls, loser calls, loser points, lemme payment, nintendo payment or None if impossible)
EXAMPLES = [
    (1, "clover-boar maple-deer peony-butterflies", 0, 0, 25, 5, 5),
    (2, "pine-crane cherry-curtain paulownia-phoenix chrysanthemum-sake", 0, 0, 25, 20, 20),
    (3, "pine-ribbon plum-ribbon cherry-ribbon wisteria-ribbon clover-ribbon", 0, 0, 25, 16, 14),
    (4, "pine-crane cherry-curtain pampas-moon willow-rain", 0, 0, 25, 7, 14),
    (5, "pampas-moon chrysanthemum-sake cherry-curtain", 1, 0, 25, 25, 20),
    (7, "peony-ribbon chrysanthemum-ribbon maple-ribbon willow-ribbon", 1, 1, 25, 18, None),
    (
        9,
        "pine-ribbon plum-ribbon cherry-ribbon peony-ribbon chrysanthemum-ribbon maple-ribbon wisteria-ribbon",
        0,
        0,
        25,
        25,
        22,
    ),
]


@pytest.mark.parametrize(("number", "cards", "wc", "lc", "left", "lemme", "nintendo"), EXAMPLES)
def test_example_lemme(number: int, cards: str, wc: int, lc: int, left: int, lemme: int, nintendo: int | None) -> None:
    score = score_captures(caps(cards), LEMME, winner_calls=wc, loser_calls=lc, loser_points=left)
    assert score.payment == lemme


@pytest.mark.parametrize(("number", "cards", "wc", "lc", "left", "lemme", "nintendo"), EXAMPLES)
def test_example_nintendo(
    number: int, cards: str, wc: int, lc: int, left: int, lemme: int, nintendo: int | None
) -> None:
    if nintendo is None:
        with pytest.raises(ScoreRequestError):
            score_captures(caps(cards), NINTENDO, winner_calls=wc, loser_calls=lc)
    else:
        assert score_captures(caps(cards), NINTENDO, winner_calls=wc, loser_calls=lc).payment == nintendo


def test_example_1_inoshikacho_below_eight() -> None:
    s = score_captures(caps("clover-boar maple-deer peony-butterflies"), LEMME)
    assert names(s) == [("inoshikacho", 5)]
    assert [(st.step, st.value) for st in s.steps] == [
        ("base", 5),
        ("doubling", 5),
        ("koikoi", 5),
        ("cap", 5),
        ("payment", 5),
    ]


def test_example_2_two_yaku_add_up() -> None:
    s = score_captures(caps("pine-crane cherry-curtain paulownia-phoenix chrysanthemum-sake"), LEMME)
    assert names(s) == [("sanko", 5), ("hanami", 5)]
    assert (s.base, s.total) == (10, 20)


def test_example_3_tan_beside_akatan() -> None:
    cards = caps("pine-ribbon plum-ribbon cherry-ribbon wisteria-ribbon clover-ribbon")
    s = score_captures(cards, LEMME)
    assert names(s) == [("akatan", 7), ("tan", 1)]
    assert (s.base, s.total) == (8, 16)
    n = score_captures(cards, NINTENDO)
    assert names(n) == [("akatan", 7)]
    assert (n.base, n.total) == (7, 14)


def test_example_4_ame_shiko_just_under_the_line() -> None:
    cards = caps("pine-crane cherry-curtain pampas-moon willow-rain")
    assert names(score_captures(cards, LEMME)) == [("ame-shiko", 7)]
    assert score_captures(cards, LEMME).total == 7
    assert score_captures(cards, NINTENDO).total == 14


def test_example_5_koikoi_pays_off_and_the_cap() -> None:
    cards = caps("pampas-moon chrysanthemum-sake cherry-curtain")
    s = score_captures(cards, LEMME, winner_calls=1, loser_points=25)
    assert (s.base, s.total, s.payment) == (10, 40, 25)
    assert score_captures(cards, NINTENDO, winner_calls=1).total == 20


def test_example_6_koikoi_backfires() -> None:
    plains = caps(
        "pine-plain-1 pine-plain-2 plum-plain-1 plum-plain-2 cherry-plain-1 cherry-plain-2 "
        "wisteria-plain-1 wisteria-plain-2 iris-plain-1 iris-plain-2"
    )
    s = score_captures(plains, LEMME, loser_calls=1)
    assert names(s) == [("kasu", 1)]
    assert s.payment == 2
    assert score_captures(plains, NINTENDO, loser_calls=1).payment == 2


def test_example_7_both_called() -> None:
    cards = caps("peony-ribbon chrysanthemum-ribbon maple-ribbon willow-ribbon")
    s = score_captures(cards, LEMME, winner_calls=1, loser_calls=1)
    assert names(s) == [("aotan", 6)]
    assert s.total == 18
    with pytest.raises(ScoreRequestError, match="at most one call"):
        score_captures(cards, NINTENDO, winner_calls=1, loser_calls=1)


def test_example_8_the_doubling_setting() -> None:
    cards = caps("pine-crane cherry-curtain pampas-moon paulownia-phoenix")
    assert score_captures(cards, LEMME, winner_calls=1, loser_points=40).payment == 32
    assert score_captures(cards, LEMME_NO_DOUBLING, winner_calls=1, loser_points=40).payment == 16
    assert score_captures(cards, NINTENDO, winner_calls=1).payment == 16
    assert score_captures(cards, NINTENDO, loser_calls=1).payment == 32


def test_example_9_capped_by_what_is_left() -> None:
    cards = caps("pine-ribbon plum-ribbon cherry-ribbon peony-ribbon chrysanthemum-ribbon maple-ribbon wisteria-ribbon")
    s = score_captures(cards, LEMME, loser_points=25)
    assert names(s) == [("akatan-aotan", 11), ("tan", 3)]
    assert (s.base, s.total, s.payment) == (14, 28, 25)
    assert score_captures(cards, LEMME, loser_points=30).payment == 28
    n = score_captures(cards, NINTENDO)
    assert names(n) == [("akatan-aotan", 11)]
    assert n.total == 22


def test_example_10_dealt_teshi() -> None:
    hand = caps(
        "cherry-curtain cherry-ribbon cherry-plain-1 cherry-plain-2 "
        "pine-plain-1 plum-plain-1 iris-plain-1 maple-plain-1"
    )
    for rules in (LEMME, NINTENDO):
        s = score_hand(hand, rules)
        assert names(s) == [("teshi", 6)]
        assert s.payment == 6


def test_the_intro_count_of_000() -> None:
    """000's "scoring in brief": Hanami + Tsukimi 10, x2, one call x2 = 40, opponent with 25 pays 25."""
    s = score_captures(caps("cherry-curtain pampas-moon chrysanthemum-sake"), LEMME, winner_calls=1)
    assert [st.value for st in s.steps] == [10, 20, 40, 25, 25]


def test_doubling_table_of_004() -> None:
    """004's table: a round's score by its base with no calls, setting on, off, and Nintendo."""
    bases = {
        5: "clover-boar maple-deer peony-butterflies",
        6: "clover-boar maple-deer peony-butterflies iris-bridge",
        7: "pine-crane cherry-curtain pampas-moon willow-rain",
        8: "pine-crane cherry-curtain pampas-moon paulownia-phoenix",
        10: "pine-crane cherry-curtain pampas-moon paulownia-phoenix willow-rain",
    }
    table = {5: (5, 5, 5), 6: (6, 6, 6), 7: (7, 7, 14), 8: (16, 8, 16), 10: (20, 10, 20)}
    for base, cards in bases.items():
        got = tuple(score_captures(caps(cards), rules).total for rules in (LEMME, LEMME_NO_DOUBLING, NINTENDO))
        assert score_captures(caps(cards), LEMME).base == base
        assert got == table[base]
