"""What the table shows that is worked out in the app layer: the yaku tracker, what Shōbu would pay
now, the Koi-Koi multiplier, and following a round from the session's events."""

from __future__ import annotations

import random
import re

import pytest

from p2p_koikoi.app.decision import koikoi_risk, tracker_words
from p2p_koikoi.app.follow import follow
from p2p_koikoi.app.shobu import koikoi_multiplier, shobu_now
from p2p_koikoi.app.tracker import progress
from p2p_koikoi.bots import RandomAgent
from p2p_koikoi.bots.base import MatchContext
from p2p_koikoi.engine import CHANCE, PRESETS, Deal, Phase, Round, Yaku, parse_cards, preset, score_captures
from p2p_koikoi.engine.rules import Doubling


def tracker(cards: str, rules_name: str = "lemme") -> list[str]:
    return [str(p) for p in progress(parse_cards([cards]) if cards else 0, preset(rules_name))]


def test_progress_shows_each_family_under_way() -> None:
    assert tracker("clover-boar maple-deer") == ["Inoshikachō 2/3", "Tane 2/5"]
    ribbons = "pine-ribbon wisteria-ribbon iris-ribbon clover-ribbon"
    assert tracker(ribbons)[:2] == ["Tan 4/5", "Akatan 1/3"]
    assert tracker("") == []


def test_made_yaku_come_first_with_their_points() -> None:
    out = tracker("clover-boar maple-deer peony-butterflies pine-ribbon")
    assert out[0] == "Inoshikachō 5"
    assert "Inoshikachō 2/3" not in out
    assert "Tane 3/5" in out


def test_the_rules_shape_the_tracker() -> None:
    # Sankō leaves the rain man out, unless the rules count it.
    assert "Sankō 1/3" in tracker("pine-crane willow-rain", "nintendo")
    assert "Sankō 2/3" in tracker("pine-crane willow-rain", "rulebook")
    # The sake cup is a plain too under Nintendo's rules, not under Lemme's.
    assert "Kasu 1/10" in tracker("chrysanthemum-sake", "nintendo")
    assert not any(t.startswith("Kasu") for t in tracker("chrysanthemum-sake", "lemme"))
    # No viewing yaku, no Hanami to track.
    no_viewing = progress(parse_cards(["cherry-curtain"]), preset("lemme").with_option("viewing-yaku", "off"))
    assert all(p.yaku is not Yaku.HANAMI for p in no_viewing)


def dead(cards: str, theirs: str, rules_name: str = "lemme") -> list[str]:
    return [str(p) for p in progress(parse_cards([cards]), preset(rules_name), theirs=parse_cards([theirs]))]


def test_a_yaku_the_other_player_has_made_impossible_is_not_under_way() -> None:
    """Issue 28 item 8, the three cases a newcomer saw: each player held one of the two Hanami cards;
    the Deer and the Butterflies were on opposite sides; the other side held the Cherry poem ribbon."""
    assert "Hanami 1/2" in tracker("cherry-curtain")
    assert "Hanami 1/2" not in dead("cherry-curtain", "chrysanthemum-sake")
    assert not any(
        t.startswith(("Hanami", "Tsukimi")) for t in dead("chrysanthemum-sake", "cherry-curtain pampas-moon")
    )
    assert "Tsukimi 1/2" in dead("chrysanthemum-sake", "cherry-curtain")  # the Moon is still out there
    assert "Inoshikachō 1/3" not in dead("maple-deer", "peony-butterflies")
    assert dead("pine-ribbon wisteria-ribbon", "cherry-ribbon") == ["Tan 2/5"]
    # a family of many: dead only once too few are left out of the other's captures
    five = "clover-boar maple-deer peony-butterflies wisteria-cuckoo iris-bridge"
    assert "Tane 1/5" in dead("plum-warbler", five.rsplit(" ", 1)[0])
    assert "Tane 1/5" not in dead("plum-warbler", five)
    assert "Tane 1/5" not in dead("plum-warbler", f"{five} pampas-geese")


def test_the_short_tracker_line_fits_its_column() -> None:
    """Issue 28 item 16: at 80 columns the tracker's column is 30 cells, and ``→ 5 pts at 3`` was cut;
    the short line says the points once (``/3`` already says at how many)."""
    rules = preset("lemme")
    words = [w for _, w in tracker_words(parse_cards(["clover-boar"]), rules, short=True)]
    assert words[0] == "Inoshikachō 1/3 → 5 pts"
    long = [w for _, w in tracker_words(parse_cards(["clover-boar"]), rules)]
    assert long[0] == "Inoshikachō 1/3 → 5 points at 3"


def test_shobu_now_is_the_count_the_round_would_pay() -> None:
    rules = preset("lemme")
    caps = parse_cards(["pampas-moon chrysanthemum-sake cherry-curtain"])
    view = Round.from_deal(rules, 0, Deal.from_deck(list(range(48)), rules.deal_pattern, 0))
    view.captures[0] = caps
    view.calls[0] = 1
    score = shobu_now(view, 0, rules, (25, 20))
    assert [(s.step, s.value) for s in score.steps] == [
        ("base", 10),
        ("doubling", 20),
        ("koikoi", 40),
        ("cap", 20),
        ("payment", 20),
    ]


@pytest.mark.parametrize(
    ("rules_name", "winner_calls", "loser_calls", "factor"),
    [("lemme", 1, 1, 3), ("nintendo", 0, 1, 2), ("nintendo", 1, 0, 1), ("rulebook", 2, 1, 6), ("lemme", 0, 0, 1)],
)
def test_the_multiplier_follows_each_rule(rules_name: str, winner_calls: int, loser_calls: int, factor: int) -> None:
    assert koikoi_multiplier(preset(rules_name), winner_calls, loser_calls)[0] == factor


@pytest.mark.parametrize("rules_name", list(PRESETS))
def test_the_koikoi_warning_is_the_count_the_engine_makes(rules_name: str) -> None:
    """Issue 28 item 9: the box warned "Bot takes the round at ×2", and the 7+1 that followed cost 32
    (×2 for 7 or more, ×2 for the Koi-Koi). The warning's factors, read back from its words, must be what
    the engine's count of a real pile gives the other player after our call, small pile and large."""
    rules = preset(rules_name)
    view = Round.from_deal(rules, 0, Deal.from_deck(list(range(48)), rules.deal_pattern, 0))
    words = koikoi_risk(view, 0, rules, "Bot")
    said = re.search(r"Bot takes the round at ×(\d+)(?: \(×(\d+) with (\d+) points or more\))?;", words)
    assert said is not None, words
    small, large, threshold = int(said.group(1)), said.group(2), said.group(3)
    ribbons = parse_cards(["pine-ribbon plum-ribbon wisteria-ribbon iris-ribbon clover-ribbon"])  # Tan, 1 point
    viewing = parse_cards(["pampas-moon chrysanthemum-sake cherry-curtain"])  # 8 points or more
    tan = score_captures(ribbons, rules, winner_calls=0, loser_calls=1)
    big = score_captures(viewing, rules, winner_calls=0, loser_calls=1)
    assert tan.total == small * tan.base
    assert big.base >= 8
    assert big.total == (int(large) if large else small) * big.base
    assert (threshold is None) == (rules.doubling is Doubling.NEVER)
    if rules_name == "nintendo":  # the newcomer's case, in their words
        assert "Bot takes the round at ×2 (×4 with 7 points or more)" in words


@pytest.mark.parametrize("rules_name", list(PRESETS))
def test_following_the_events_gives_the_view_the_seat_would_be_handed(rules_name: str) -> None:
    """Seat 0's view is handed over at each of its decisions, then followed event by event; at every
    step it matches the engine's own view of that seat."""
    rules = preset(rules_name)
    for seed in range(25):
        rng = random.Random(seed)
        deck = list(range(48))
        rng.shuffle(deck)
        rnd = Round.from_deal(rules, seed % 2, Deal.from_deck(deck, rules.deal_pattern, seed % 2))
        agents = (RandomAgent(seed), RandomAgent(seed + 1))
        followed: Round | None = None
        while not rnd.over:
            seat = rnd.to_act
            if seat == 0 and rnd.phase is not Phase.EXCHANGE:
                followed = rnd.view(0)
            if seat == CHANCE:
                events = rnd.apply(rnd.legal_actions()[0])
            else:
                view = rnd.view(seat)
                action = agents[seat].choose(view, view.legal_actions(), MatchContext(rules, seat, (0, 0), 1))
                events = rnd.apply(action, seat)
            for event in events:
                followed = follow(followed, event)
            if followed is not None:
                truth = rnd.view(0)
                assert followed.public_state() == truth.public_state()
                assert followed.hands[0] == truth.hands[0]
