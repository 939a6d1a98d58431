"""Every yaku, and every combination rule, under every preset."""

from __future__ import annotations

import pytest
from builders import cards

from p2p_koikoi.engine import PRESETS, YakuTable, preset

LIGHTS5 = "pine-crane cherry-curtain pampas-moon willow-rain paulownia-phoenix"
ANIMALS5 = "plum-warbler wisteria-cuckoo iris-bridge pampas-geese willow-swallow"
RIBBONS5 = "wisteria-ribbon iris-ribbon clover-ribbon willow-ribbon pine-ribbon"
PLAINS10 = (
    "pine-plain-1 pine-plain-2 plum-plain-1 plum-plain-2 cherry-plain-1 cherry-plain-2 "
    "wisteria-plain-1 wisteria-plain-2 iris-plain-1 iris-plain-2"
)
POEM = "pine-ribbon plum-ribbon cherry-ribbon"
BLUE = "peony-ribbon chrysanthemum-ribbon maple-ribbon"
ISC = "clover-boar maple-deer peony-butterflies"


def yaku(name: str, text: str) -> dict[str, int]:
    return {y.yaku.value: y.points for y in YakuTable(preset(name)).score(cards(text))}


ALL = list(PRESETS)


@pytest.mark.parametrize("name", ALL)
def test_lights(name: str) -> None:
    assert yaku(name, LIGHTS5) == {"goko": 10}
    assert yaku(name, "pine-crane cherry-curtain pampas-moon paulownia-phoenix") == {"shiko": 8}
    assert yaku(name, "pine-crane cherry-curtain pampas-moon willow-rain") == {"ame-shiko": 7}
    assert yaku(name, "pine-crane cherry-curtain paulownia-phoenix") == {"sanko": 5}
    rain_three = yaku(name, "pine-crane willow-rain paulownia-phoenix")
    assert rain_three == ({"sanko": 5} if name == "rulebook" else {})
    assert yaku(name, "pine-crane paulownia-phoenix") == {}


@pytest.mark.parametrize("name", ALL)
def test_viewing(name: str) -> None:
    assert yaku(name, "cherry-curtain chrysanthemum-sake") == {"hanami": 5}
    assert yaku(name, "pampas-moon chrysanthemum-sake") == {"tsukimi": 5}
    assert yaku(name, "cherry-curtain pampas-moon chrysanthemum-sake") == {"hanami": 5, "tsukimi": 5}
    off = preset(name).with_overrides(["viewing-yaku=off"])
    assert YakuTable(off).score(cards("cherry-curtain pampas-moon chrysanthemum-sake")) == []


def test_viewing_beside_three_lights_with_the_rain_gameweave() -> None:
    """003: three brights with the rain man score no brights yaku; the viewings still score, together."""
    got = yaku("gameweave", "cherry-curtain pampas-moon willow-rain chrysanthemum-sake")
    assert got == {"hanami": 5, "tsukimi": 5}


@pytest.mark.parametrize("name", ALL)
def test_inoshikacho_and_tane(name: str) -> None:
    assert yaku(name, ISC) == {"inoshikacho": 5}
    two_more = yaku(name, ISC + " plum-warbler iris-bridge")
    if name == "nintendo":
        assert two_more == {"inoshikacho": 7}  # Tane is void beside Inoshikacho
    elif name == "qdan":
        assert two_more == {"inoshikacho": 5, "tane": 1}  # no +1 on the set; Tane counts the extras
    else:
        assert two_more == {"inoshikacho": 7, "tane": 1}
    assert yaku(name, ANIMALS5) == {"tane": 1}
    assert yaku(name, ANIMALS5 + " chrysanthemum-sake") == {"tane": 2}


@pytest.mark.parametrize("name", ALL)
def test_ribbons(name: str) -> None:
    assert yaku(name, POEM) == {"akatan": 5}
    assert yaku(name, BLUE) == {"aotan": 5}
    assert yaku(name, RIBBONS5) == {"tan": 1}
    assert yaku(name, RIBBONS5 + " peony-ribbon") == {"tan": 2}
    both = yaku(name, POEM + " " + BLUE)
    expected = {
        "nintendo": {"akatan-aotan": 10},
        "lemme": {"akatan-aotan": 10, "tan": 2},
        "rulebook": {"akatan": 8, "aotan": 8, "tan": 2},
        "qdan": {"akatan": 5, "aotan": 5, "tan": 2},
        "gameweave": {"akatan": 8, "aotan": 8, "tan": 2},
    }[name]
    assert both == expected


def test_the_rulebook_triad() -> None:
    triad = preset("rulebook").with_overrides(["akatan-aotan=triad"])
    got = {y.yaku.value: y.points for y in YakuTable(triad).score(cards(POEM + " " + BLUE))}
    assert got == {"akatan": 8, "aotan": 8, "triad": 3, "tan": 2}


def test_no_red_ribbon_yaku_and_the_willow_ribbon_is_ordinary_gameweave() -> None:
    plain_reds = "wisteria-ribbon iris-ribbon clover-ribbon"
    assert yaku("gameweave", plain_reds) == {}
    assert yaku("gameweave", BLUE + " willow-ribbon") == {"aotan": 6}


@pytest.mark.parametrize("name", ALL)
def test_kasu_and_the_sake_cup(name: str) -> None:
    assert yaku(name, PLAINS10) == {"kasu": 1}
    assert yaku(name, PLAINS10 + " willow-lightning paulownia-plain-1") == {"kasu": 3}
    nine = PLAINS10.rsplit(" ", 1)[0]
    with_sake = yaku(name, nine + " chrysanthemum-sake")
    sake_plain = preset(name).sake_as_plain
    assert sake_plain == (name in ("nintendo", "qdan", "gameweave"))
    assert with_sake == ({"kasu": 1} if sake_plain else {})


def test_sake_counts_for_several_yaku_at_once_nintendo() -> None:
    got = yaku(
        "nintendo",
        "cherry-curtain pampas-moon chrysanthemum-sake "
        + ANIMALS5.rsplit(" ", 1)[0]
        + " "
        + PLAINS10.rsplit(" ", 1)[0],
    )
    assert got == {"hanami": 5, "tsukimi": 5, "tane": 1, "kasu": 1}


@pytest.mark.parametrize("name", ALL)
def test_an_empty_pile_has_no_yaku(name: str) -> None:
    assert yaku(name, "") == {}


def test_the_cards_of_each_yaku_are_reported() -> None:
    table = YakuTable(preset("lemme"))
    (ino,) = table.score(cards(ISC))
    assert ino.cards == cards(ISC)
    hanami = next(y for y in table.score(cards(LIGHTS5 + " chrysanthemum-sake")) if y.yaku.value == "hanami")
    assert hanami.cards == cards("cherry-curtain chrysanthemum-sake")
