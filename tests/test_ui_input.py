"""Keys: the bytes a terminal sends, decoded; and the picker that turns keys into one legal move."""

from __future__ import annotations

import random
from collections.abc import Callable

from p2p_koikoi.engine import (
    CallKoiKoi,
    CallStop,
    Card,
    ChooseCapture,
    Deal,
    Exchange,
    Phase,
    Play,
    Round,
    RuleSet,
    cards_of,
    preset,
)
from p2p_koikoi.engine.cards import month_mask
from p2p_koikoi.ui.keys import KeyDecoder
from p2p_koikoi.ui.picker import Picker


def test_keys_are_decoded_from_bytes() -> None:
    decoder = KeyDecoder()
    assert decoder.feed(b"1\x1b[C\x1b[Dq\rS? \t\x7f") == [
        "1",
        "right",
        "left",
        "q",
        "enter",
        "s",
        "?",
        "space",
        "tab",
        "backspace",
    ]
    assert decoder.feed(b"\x1bOA\x1bOB") == ["up", "down"]  # application cursor mode


def test_an_escape_sequence_split_across_reads_is_joined() -> None:
    decoder = KeyDecoder()
    assert decoder.feed(b"\x1b") == []
    assert decoder.feed(b"[") == []
    assert decoder.feed(b"B") == ["down"]
    assert decoder.feed(b"\x1b[1;5C") == []  # an unknown sequence (Ctrl-Right) is skipped whole
    assert decoder.feed(b"k") == ["k"]


def test_a_lone_escape_is_the_esc_key_once_the_wait_runs_out() -> None:
    decoder = KeyDecoder()
    assert decoder.feed(b"\x1b") == []
    assert decoder.pending
    assert decoder.flush() == ["esc"]
    assert decoder.flush() == []
    assert decoder.feed(b"\x1bx") == ["esc", "x"]


# -- the picker ---------------------------------------------------------------------------------------


def deal(seed: int, rules: RuleSet, dealer: int = 0) -> Round:
    rng = random.Random(seed)
    deck = list(range(48))
    rng.shuffle(deck)
    return Round.from_deal(rules, dealer, Deal.from_deck(deck, rules.deal_pattern, dealer))


def round_where(test: Callable[[Round], bool]) -> Round:
    """Seat 0's view at the first position (over many deals, each seat playing its first legal move)
    where ``test`` holds."""
    for seed in range(300):
        rnd = deal(seed, preset("nintendo"))
        while not rnd.over:
            if rnd.to_act == 0 and test(rnd.view(0)):
                return rnd.view(0)
            rnd.apply(rnd.legal_actions()[0])
    raise AssertionError("no such position")


def two_match(view: Round) -> bool:
    if view.phase is not Phase.PLAY:
        return False
    return any((view.table & month_mask(c.month)).bit_count() == 2 for c in cards_of(view.hands[0]))


def test_a_number_plays_that_hand_card() -> None:
    view = round_where(lambda v: v.phase is Phase.PLAY and not two_match(v))
    legal = view.legal_actions()
    picker = Picker(view, legal, 0)
    hand = picker.focus.hand
    assert picker.press("9") is None  # no ninth card
    action = picker.press("3")
    assert action == Play(hand[2]) or (isinstance(action, Play) and action.card == hand[2])
    assert action in legal


def test_the_arrows_move_and_enter_plays() -> None:
    view = round_where(lambda v: v.phase is Phase.PLAY and not two_match(v))
    picker = Picker(view, view.legal_actions(), 0)
    hand = picker.focus.hand
    assert picker.press("right") is None and picker.press("right") is None and picker.press("left") is None
    assert picker.focus.index == 1
    assert picker.press("left") is None and picker.press("left") is None
    assert picker.focus.index == len(hand) - 1  # it wraps around
    action = picker.press("enter")
    assert isinstance(action, Play) and action.card == hand[-1]


def test_two_matching_table_cards_ask_which_and_esc_puts_the_card_back() -> None:
    view = round_where(two_match)
    legal = view.legal_actions()
    picker = Picker(view, legal, 0)
    hand = picker.focus.hand
    index = next(i for i, c in enumerate(hand) if (view.table & month_mask(c.month)).bit_count() == 2)
    assert picker.press(str(index + 1)) is None
    focus = picker.focus
    assert focus.mode == "target" and focus.card == hand[index] and len(focus.targets) == 2
    assert all(t.month == hand[index].month for t in focus.targets)
    assert picker.press("esc") is None
    assert picker.focus.mode == "hand" and picker.focus.index == index
    picker.press(str(index + 1))
    action = picker.press("2")
    assert action == Play(hand[index], focus.targets[1])
    assert action in legal


def test_a_drawn_card_matching_two_takes_the_chosen_one() -> None:
    view = round_where(lambda v: v.phase is Phase.DRAW_CHOICE)
    legal = view.legal_actions()
    picker = Picker(view, legal, 0)
    assert picker.focus.mode == "draw" and picker.focus.card == view.pending_draw
    assert picker.press("esc") is None and picker.focus.mode == "draw"  # a drawn card cannot go back
    picker.press("right")
    action = picker.press("space")
    assert action == ChooseCapture(picker.focus.targets[1])
    assert action in legal


def test_koikoi_or_shobu_by_k_or_s() -> None:
    view = round_where(lambda v: v.phase is Phase.DECISION)
    legal = view.legal_actions()
    assert Picker(view, legal, 0).press("enter") is None
    assert Picker(view, legal, 0).press("1") is None
    assert Picker(view, legal, 0).press("k") == CallKoiKoi()
    assert Picker(view, legal, 0).press("s") == CallStop()


def test_anything_else_is_a_numbered_menu() -> None:
    view = deal(1, preset("rulebook"), dealer=1).view(0)  # the rulebook's non-dealer may swap hands
    legal = view.legal_actions()
    assert legal == [Exchange(False), Exchange(True)]
    picker = Picker(view, legal, 0)
    assert picker.focus.mode == "menu"
    assert picker.focus.options == ("Keep the hands as dealt", "Exchange hands with the dealer")
    assert picker.press("2") == Exchange(True)


def test_the_cursor_names_its_card() -> None:
    view = round_where(lambda v: v.phase is Phase.PLAY)
    picker = Picker(view, view.legal_actions(), 0)
    picker.press("right")
    assert picker.focus.focused_card == picker.focus.hand[1]
    assert isinstance(picker.focus.focused_card, Card)
