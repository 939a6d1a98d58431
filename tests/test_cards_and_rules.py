"""Cards (ids, kinds, roles, parse/format) and rule sets (presets, overrides, fingerprints, the docs table)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from p2p_koikoi.engine import (
    PRESETS,
    Card,
    CardParseError,
    Kind,
    Month,
    Role,
    RuleSetError,
    format_cards,
    parse_cards,
    parse_rules,
    preset,
)
from p2p_koikoi.engine.ruledoc import OPTIONS, READINGS, describe, markdown

ROOT = Path(__file__).resolve().parent.parent


def test_48_cards_in_the_canonical_table() -> None:
    assert len(Card) == 48
    assert Counter(c.kind for c in Card) == {Kind.BRIGHT: 5, Kind.ANIMAL: 9, Kind.RIBBON: 10, Kind.PLAIN: 24}
    for month in Month:
        assert [c for c in Card if c.month is month] == [Card(4 * month + i) for i in range(4)]
        assert all(c.id.startswith(month.id + "-") for c in Card if c.month is month)
    assert Card.PAULOWNIA_PLAIN_3.id == "paulownia-plain-3"
    assert Card.WILLOW_LIGHTNING.kind is Kind.PLAIN and Card.WILLOW_LIGHTNING.role is Role.LIGHTNING
    assert Card.CHRYSANTHEMUM_SAKE.kind is Kind.ANIMAL and Card.CHRYSANTHEMUM_SAKE.role is Role.SAKE_CUP
    assert {c for c in Card if c.role is Role.POEM_RIBBON} == {Card.PINE_RIBBON, Card.PLUM_RIBBON, Card.CHERRY_RIBBON}
    assert {c for c in Card if c.role is Role.BLUE_RIBBON} == {
        Card.PEONY_RIBBON,
        Card.CHRYSANTHEMUM_RIBBON,
        Card.MAPLE_RIBBON,
    }
    assert all(c.display_name for c in Card)


def test_parse_and_format_are_a_pair() -> None:
    for card in Card:
        assert Card.parse(card.id) is card
        assert Card.parse(str(card)) is card
    mask = parse_cards(["pine-crane, sake-cup rain-man"])
    assert format_cards(mask) == "pine-crane chrysanthemum-sake willow-rain"
    assert parse_cards([format_cards(mask)]) == mask


def test_aliases() -> None:
    assert Card.parse("sake-cup") is Card.CHRYSANTHEMUM_SAKE
    assert Card.parse("Rain Man") is Card.WILLOW_RAIN
    assert Card.parse("gaji") is Card.WILLOW_LIGHTNING


def test_unknown_card_lists_the_closest_ids() -> None:
    with pytest.raises(CardParseError, match=r"did you mean .*pine-crane"):
        Card.parse("pine-cran")
    with pytest.raises(CardParseError, match="named twice"):
        parse_cards(["pine-crane pine-crane"])


def test_presets_are_distinct_and_fingerprints_stable() -> None:
    prints = {name: rules.fingerprint for name, rules in PRESETS.items()}
    assert len(set(prints.values())) == 5
    assert preset("nintendo").fingerprint == preset("NINTENDO").fingerprint
    # The preset name is not part of the fingerprint; the options are.
    renamed = preset("lemme").with_overrides(["rounds=12"])
    assert renamed.fingerprint != preset("lemme").fingerprint


def test_overrides_format_and_parse() -> None:
    rules = preset("lemme").with_overrides(["rounds=12", "doubling=never", "sake-as-plain=on"])
    assert rules.format() == "lemme rounds=12 doubling=never sake-as-plain=on"
    assert parse_rules(rules.format()) == rules
    assert rules.differences(preset("lemme")) == [
        ("rounds", "12", "6"),
        ("doubling", "never", "8"),
        ("sake-as-plain", "on", "off"),
    ]


@pytest.mark.parametrize(
    ("assignment", "message"),
    [
        ("rounds=5", "rounds must be 3, 6 or 12"),
        ("rounds=x", "takes a whole number"),
        ("doubling=9", "takes one of 7, 8, never"),
        ("gaji=maybe", "takes on or off"),
        ("doublin=7", "did you mean doubling"),
        ("preset=lemme", "unknown rule option"),
        ("rounds", "expected NAME=VALUE"),
    ],
)
def test_bad_overrides(assignment: str, message: str) -> None:
    with pytest.raises(RuleSetError, match=message):
        preset("nintendo").with_overrides([assignment])


def test_unknown_preset() -> None:
    with pytest.raises(RuleSetError, match="choose one of nintendo, lemme, rulebook, qdan, gameweave"):
        preset("hawaii")


def test_every_option_and_preset_is_documented() -> None:
    assert set(OPTIONS) == set(preset("lemme").options())
    assert set(READINGS) == set(PRESETS)
    for rules in PRESETS.values():
        for name, value in rules.options().items():
            meanings = OPTIONS[name][1]
            assert not meanings or value in meanings, (name, value)
        assert rules.fingerprint[:16] in describe(rules)


def test_the_rulesets_document_is_current() -> None:
    assert (ROOT / "protocol" / "RULESETS.md").read_text() == markdown(), (
        "run: python -m p2p_koikoi.engine.ruledoc > protocol/RULESETS.md"
    )
