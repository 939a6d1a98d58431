"""protocol/GAME.md against the engine: its tables are current, and its rules in words are the code's.

Three kinds of check:

- every generated table is what :mod:`p2p_koikoi.engine.gamedoc` makes now;
- the tables are read back out of the Markdown and compared with the code they describe (the deal
  positions and the reveal order with ``deal_layout`` and ``reveal_plan``, the card table with
  :class:`Card`, the kind order with the first-dealer draw, the outcomes with rounds that really end
  that way);
- the yaku and the count are implemented a second time here from GAME.md's words and the card table
  read from the Markdown alone, and compared with the engine on random captures and rule sets.

``protocol/vectors/actions.json`` (one action of every kind, canonical, with texts that parse to the same
action but are not canonical) is rebuilt from :data:`ACTIONS` and parsed and formatted through
``p2p_koikoi/engine/actions.py``. To regenerate it: ``python tests/test_game_doc.py --write``.
"""

from __future__ import annotations

import json
import random
import re
import sys
from typing import Any

import pytest
from builders import build_round
from game_model import ROOT, card_table, game_md, generated, model_count, model_yaku, section, table_rows
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p_koikoi.engine import (
    Action,
    CallKoiKoi,
    CallStop,
    ChooseCapture,
    ClaimHandYaku,
    Draw,
    EngineError,
    Exchange,
    IllegalActionError,
    PassHandYaku,
    Play,
    Round,
    RuleId,
    RuleSet,
    RuleSetError,
    Yaku,
    YakuTable,
    parse_rules,
    preset,
    score_yaku,
)
from p2p_koikoi.engine.cards import Card, Kind, cards_of, parse_cards
from p2p_koikoi.engine.deal import Deal, DealPattern, deal_layout
from p2p_koikoi.engine.gamedoc import (
    COUNT_ORDER,
    NUMBERS,
    OPTION_SECTIONS,
    OUTCOMES,
    PHASES,
    RULE_IDS,
    parse_ranges,
    render,
    slug,
    stale_blocks,
)
from p2p_koikoi.engine.match import first_dealer_by_draw
from p2p_koikoi.engine.round import OutcomeKind, Phase
from p2p_koikoi.engine.rules import PRESETS, FirstDealer
from p2p_koikoi.fairness import DRAW_POSITIONS, reveal_plan

ACTIONS_JSON = ROOT / "protocol" / "vectors" / "actions.json"


# -- the document is current -----------------------------------------------------------------


def test_every_generated_table_is_current() -> None:
    text = game_md()
    assert stale_blocks(text) == [], "run: python -m p2p_koikoi.engine.gamedoc"
    assert render(text) == text


def test_every_option_has_its_section_and_every_link_resolves() -> None:
    text = game_md()
    headings = {slug(h) for h in re.findall(r"^#+ (.+)$", text, re.M)}
    assert set(OPTION_SECTIONS) == set(preset("lemme").options())
    for option, title in OPTION_SECTIONS.items():
        assert slug(title) in headings, (option, title)
        assert f"`{option}" in section(title), f"section {title!r} never names {option}"
    for anchor in re.findall(r"\]\(#([^)]+)\)", text):
        assert anchor in headings, anchor
    for other in (ROOT / "protocol").glob("*.md"):
        for anchor in re.findall(r"\]\(GAME\.md#([^)]+)\)", other.read_text(encoding="utf-8")):
            assert anchor in headings, (other.name, anchor)


@pytest.mark.parametrize(
    ("option", "good", "bad"),
    [
        ("rounds", ["3", "6", "12"], ["4", "0"]),
        ("pool", ["1", "1000"], ["0", "1001"]),
        ("dealer-bonus", ["1", "100"], ["0", "101"]),
    ],
)
def test_the_numbers_an_option_takes(option: str, good: list[str], bad: list[str]) -> None:
    for value in good:
        assert value in NUMBERS[option]
        preset("lemme").with_option(option, value)
    for value in bad:
        with pytest.raises(RuleSetError):
            preset("lemme").with_option(option, value)


def test_the_rules_text_and_the_fingerprints_are_as_written() -> None:
    """GAME.md, "Rule options": the rules text, the rules fingerprint and the key fingerprint."""
    import hashlib

    from p2p_koikoi.record.identity_names import fingerprint, short_fingerprint

    rules = preset("rulebook").with_overrides(["akatan-aotan=triad", "rounds=6"])
    assert rules.format() == "rulebook rounds=6 akatan-aotan=triad"
    assert preset("nintendo").with_overrides(["rounds=3"]).format() == "nintendo rounds=3"
    assert parse_rules("RULEBOOK akatan-aotan=triad rounds=6") == rules
    assert parse_rules("nintendo rounds=6 rounds=3").rounds == 3
    assert all(parse_rules(f"lemme gaji={v}").gaji for v in ("on", "true", "yes", "1"))
    assert not any(parse_rules(f"rulebook gaji={v}").gaji for v in ("off", "false", "no", "0"))
    text = "koikoi-rules/1\n" + "".join(f"{name}={value}\n" for name, value in rules.options().items())
    assert hashlib.sha256(text.encode()).hexdigest() == rules.fingerprint
    assert (
        rules.with_overrides([]).fingerprint
        == parse_rules("lemme " + " ".join(f"{k}={v}" for k, v in rules.options().items())).fingerprint
    )
    key = bytes(range(32))
    digest = hashlib.sha256(b"p2p-koikoi/fingerprint/v1\x00" + key).hexdigest()
    assert fingerprint(key) == ":".join(digest[i : i + 4] for i in range(0, 32, 4))
    assert re.fullmatch(r"([0-9a-f]{4}:){7}[0-9a-f]{4}", fingerprint(key))
    assert short_fingerprint(key) == digest[:8]


# -- cards -----------------------------------------------------------------------------------


def test_the_card_table_is_the_engine_s() -> None:
    table = card_table()
    assert sorted(table) == list(range(48))
    for card in Card:
        assert table[card] == (card.id, card.month.number, card.kind.id, card.role.value)
        assert table[card][1] == card // 4 + 1, "index i is month i div 4"


# -- dealing and the reveal order ------------------------------------------------------------------


def test_the_deal_table_and_the_dealing_words_are_the_layout() -> None:
    rows = {pattern: cells for pattern, *cells in table_rows(generated("deal"))}
    words = dict(re.findall(r"^- `([\d-]+)`[^:]*: (.+)$", section("Dealing"), re.M))
    for pattern in DealPattern:
        layout = deal_layout(pattern)
        non_dealer, table, dealer, stock = (parse_ranges(c) for c in rows[pattern.value])
        assert (non_dealer, table, dealer, stock) == (layout.non_dealer, layout.table, layout.dealer, layout.stock)
        assert stock == tuple(range(24, 48)) and non_dealer[0] == 0, "the non-dealer's hand is dealt first"
        # "8 to the non-dealer, 8 to the table, 8 to the dealer", "... then the same again", "four times over"
        text = words[pattern.value]
        steps = re.findall(r"(\d+) to the (non-dealer|table|dealer)", text)
        steps *= 2 if "the same again" in text else 4 if "four times" in text else 1
        places: dict[str, list[int]] = {"non-dealer": [], "table": [], "dealer": []}
        position = 0
        for count, where in steps:
            places[where] += range(position, position + int(count))
            position += int(count)
        assert (tuple(places["non-dealer"]), tuple(places["table"]), tuple(places["dealer"])) == (
            layout.non_dealer,
            layout.table,
            layout.dealer,
        )


@pytest.mark.parametrize("pattern", list(DealPattern))
@pytest.mark.parametrize("dealer", [0, 1])
@pytest.mark.parametrize("exchanged", [False, True])
def test_the_reveal_order_in_words_is_the_reveal_plan(pattern: DealPattern, dealer: int, exchanged: bool) -> None:
    """GAME.md, "The reveal order": the table, the other seat's hand, one stock position per draw; the
    hands by seat follow who deals, and the exchange swaps them."""
    layout = deal_layout(pattern)
    plan = reveal_plan(pattern, dealer, exchanged=exchanged)
    owned = {dealer: layout.dealer, 1 - dealer: layout.non_dealer}
    if exchanged:
        owned = {0: owned[1], 1: owned[0]}
    assert plan.hands == (owned[0], owned[1])
    for seat in (0, 1):
        groups = plan.release_groups(seat)
        assert groups[0] == tuple(sorted(layout.table))
        assert groups[1] == tuple(sorted(owned[1 - seat]))
        assert groups[2:] == tuple((p,) for p in range(24, 48))
    deck = list(range(48))
    random.Random(pattern.value).shuffle(deck)
    deal = Deal.from_deck(deck, pattern, dealer)
    assert deal.hands[dealer] == sum(1 << deck[p] for p in layout.dealer)
    assert deal.hands[1 - dealer] == sum(1 << deck[p] for p in layout.non_dealer)
    assert [int(c) for c in deal.stock] == deck[24:]


def test_a_dealer_draw_opens_positions_0_and_1_for_seats_0_and_1() -> None:
    assert tuple(DRAW_POSITIONS) == (0, 1)
    vector = json.loads((ROOT / "protocol" / "vectors" / "deal-dealer-draw.json").read_text())
    drawn = [Card.parse(vector["final_deck"][p]) for p in DRAW_POSITIONS]
    assert vector["first_dealer"]["drawn"] == [c.id for c in drawn]
    for rule in (FirstDealer.DRAW_MONTH, FirstDealer.DRAW_MONTH_RANK):
        assert vector["first_dealer"][rule.value] == first_dealer_by_draw(rule, *drawn)
    assert "not the first dealer" in vector["layout_note"]


# -- the first dealer ------------------------------------------------------------------------------


def test_the_first_dealer_draw_in_words_is_the_engine_s() -> None:
    """Lower month deals; the same month: draw-month draws again, draw-month-rank lets the higher kind
    (GAME.md's kind order) deal and draws again on equal kinds. Every pair of cards."""
    rank = {kind: int(r) for r, kind, _ in table_rows(generated("kind-order"))}
    table = card_table()
    for a in range(48):
        for b in range(48):
            if a == b:
                continue
            (_, month_a, kind_a, _), (_, month_b, kind_b, _) = table[a], table[b]
            for rule in (FirstDealer.DRAW_MONTH, FirstDealer.DRAW_MONTH_RANK):
                if month_a != month_b:
                    expected: int | None = 0 if month_a < month_b else 1
                elif rule is FirstDealer.DRAW_MONTH or kind_a == kind_b:
                    expected = None
                else:
                    expected = 0 if rank[kind_a] < rank[kind_b] else 1
                assert first_dealer_by_draw(rule, Card(a), Card(b)) == expected, (rule, a, b)
    assert [Kind[k.upper()] for k in sorted(rank, key=rank.__getitem__)] == sorted(Kind, reverse=True)


# -- outcomes --------------------------------------------------------------------------------------


def _check_outcome(rnd: Round) -> OutcomeKind:
    outcome = rnd.outcome
    assert outcome is not None
    _, winner_rule, next_rule, counts = OUTCOMES[outcome.kind]
    last_seat, last_action = rnd.history[-1] if rnd.history else (None, None)
    expected_winner = {
        "caller": last_seat if isinstance(last_action, CallStop) else "no stop",
        "riser": rnd.turn,
        "claimer": outcome.winner
        if any(isinstance(a, ClaimHandYaku) and s == outcome.winner for s, a in rnd.history)
        else "no claim",
        "last-caller": rnd.last_caller,
        "dealer": rnd.dealer,
        "none": None,
    }[winner_rule]
    assert outcome.winner == expected_winner, outcome
    expected_next = {"winner": outcome.winner, "dealer": rnd.dealer, "other": 1 - rnd.dealer}[next_rule]
    assert outcome.next_dealer == expected_next, outcome
    assert outcome.counts is counts
    return outcome.kind


_PHASE_ACTIONS: dict[Phase, tuple[type, ...]] = {
    Phase.EXCHANGE: (Exchange,),
    Phase.HAND_YAKU: (ClaimHandYaku, PassHandYaku),
    Phase.PLAY: (Play,),
    Phase.DRAW: (Draw,),
    Phase.DRAW_CHOICE: (ChooseCapture,),
    Phase.DECISION: (CallKoiKoi, CallStop),
}


def _play_randomly(rnd: Round, rng: random.Random) -> Round:
    """Play to the end by random legal actions, checking each phase's actor and actions against PHASES."""
    while not rnd.over:
        legal = rnd.legal_actions()
        who = PHASES[rnd.phase][0]
        declared = sum(isinstance(a, ClaimHandYaku | PassHandYaku) for _, a in rnd.history)
        expected = {
            "the non-dealer": 1 - rnd.dealer,
            "chance (-1)": -1,
            "the seat on turn": rnd.turn,
            "the dealer, then the non-dealer": rnd.dealer if declared == 0 else 1 - rnd.dealer,
        }[who]
        assert rnd.to_act == expected, (rnd.phase, who)
        assert all(isinstance(a, _PHASE_ACTIONS[rnd.phase]) for a in legal)
        rnd.apply(legal[rng.randrange(len(legal))])
    assert rnd.to_act == -1 and PHASES[Phase.OVER][0] == "nobody (-1)"
    return rnd


def test_every_outcome_ends_rounds_as_the_table_says() -> None:
    """Rounds played to their end under rule sets that reach every outcome; each outcome's winner, next
    dealer and whether it counts are the ones GAME.md's outcome table gives."""
    rng = random.Random(15)
    seen: set[OutcomeKind] = set()
    rule_sets = [
        *PRESETS.values(),
        preset("lemme").with_overrides(["exhausted=dealer-bonus"]),
        preset("lemme").with_overrides(["exhausted=last-caller"]),
    ]
    for n in range(240):
        rules = rule_sets[n % len(rule_sets)]
        deck = list(range(48))
        rng.shuffle(deck)
        dealer = n % 2
        rnd = Round.from_deal(rules, dealer, Deal.from_deck(deck, rules.deal_pattern, dealer))
        seen.add(_check_outcome(_play_randomly(rnd, rng)))
    for both in ("dealer", "draw"):
        rules = preset("lemme").with_overrides([f"both-hand-yaku={both}"])
        for hand0, hand1 in (
            ("pine-crane pine-ribbon pine-plain-1 pine-plain-2", ""),
            (
                "pine-crane pine-ribbon pine-plain-1 pine-plain-2",
                "plum-warbler plum-ribbon plum-plain-1 plum-plain-2",
            ),
        ):
            rnd = build_round(rules, dealer=1, hand0=hand0, hand1=hand1, table="")
            seen.add(_check_outcome(_play_randomly(rnd, rng)))
    assert seen == set(OutcomeKind) == set(OUTCOMES), set(OutcomeKind) - seen
    assert set(PHASES) == set(Phase)


def test_the_rule_ids_are_every_id_the_engine_raises() -> None:
    """GAME.md's rule-id table (RULE_IDS) names every RuleId, and the engine raises each of them: read from
    round.py's syntax tree, every ``IllegalActionError(RuleId.X, ...)`` and every refusal ``_gaji_refusal``
    returns."""
    import ast

    def member(node: ast.expr) -> RuleId:
        assert isinstance(node, ast.Attribute) and getattr(node.value, "id", None) == "RuleId", ast.unparse(node)
        return RuleId[node.attr]

    source = (ROOT / "p2p_koikoi" / "engine" / "round.py").read_text()
    raised: set[RuleId] = set()
    for node in ast.walk(ast.parse(source)):
        call = isinstance(node, ast.Call) and getattr(node.func, "id", None) == "IllegalActionError"
        if call and node.args and not isinstance(node.args[0], ast.Starred):
            raised.add(member(node.args[0]))
        if isinstance(node, ast.FunctionDef) and node.name == "_gaji_refusal":
            for ret in ast.walk(node):
                if isinstance(ret, ast.Return) and isinstance(ret.value, ast.Tuple):
                    raised.add(member(ret.value.elts[0]))
    assert raised == set(RULE_IDS) == set(RuleId)


# -- yaku and the count, a second time from the words ----------------------------------------------------


_OPTION_CHOICES: dict[str, list[str]] = {
    "sake-as-plain": ["on", "off"],
    "viewing-yaku": ["on", "off"],
    "rain-in-sanko": ["on", "off"],
    "tane-void-with-inoshikacho": ["on", "off"],
    "tan-void-with-akatan-aotan": ["on", "off"],
    "akatan-aotan": ["chofuku", "both", "triad"],
    "set-extras": ["on", "off"],
    "doubling": ["7", "8", "never"],
    "koikoi-multiplier": ["none", "loser-called", "all-calls", "rulebook"],
    "scoring": ["cumulative", "pool"],
}

rule_sets = st.builds(
    lambda name, picks: PRESETS[name].with_overrides(f"{k}={v}" for k, v in picks.items()),
    st.sampled_from(list(PRESETS)),
    st.fixed_dictionaries({k: st.sampled_from(v) for k, v in _OPTION_CHOICES.items()}),
)
captures = st.one_of(
    st.sets(st.integers(0, 47), max_size=48),
    st.sets(st.sampled_from([0, 8, 28, 40, 44, 32, 20, 24, 36, 1, 5, 9, 21, 33, 37, 13, 17, 25, 42]), max_size=19),
)


@settings(max_examples=400, deadline=None)
@given(rules=rule_sets, caps=captures)
def test_the_yaku_in_words_are_the_engine_s(rules: RuleSet, caps: set[int]) -> None:
    engine = {y.yaku.value: y.points for y in YakuTable(rules).score(sum(1 << i for i in caps))}
    assert engine == model_yaku(caps, rules)


@settings(max_examples=200, deadline=None)
@given(rules=rule_sets, caps=captures)
def test_a_count_lists_its_yaku_in_the_stated_order(rules: RuleSet, caps: set[int]) -> None:
    line = {yaku: n for n, group in enumerate(COUNT_ORDER) for yaku in group}
    found = [line[y.yaku] for y in YakuTable(rules).score(sum(1 << i for i in caps))]
    assert found == sorted(set(found))


@settings(max_examples=300, deadline=None)
@given(
    rules=rule_sets,
    caps=captures,
    calls=st.tuples(st.integers(0, 8), st.integers(0, 8)),
    left=st.integers(1, 50),
)
def test_the_count_in_words_is_the_engine_s(rules: RuleSet, caps: set[int], calls: tuple[int, int], left: int) -> None:
    if rules.after_koikoi.value == "next-yaku-ends" and sum(calls) > 1:
        calls = (min(calls[0], 1), 0)
    yaku = YakuTable(rules).score(sum(1 << i for i in caps))
    pool = rules.scoring.value == "pool"
    loser_points = left if pool else None
    score = score_yaku(yaku, rules, winner_calls=calls[0], loser_calls=calls[1], loser_points=loser_points)
    base = sum(model_yaku(caps, rules).values())
    assert score.base == base
    assert (score.total, score.payment) == model_count(base, rules, calls[0], calls[1], loser_points)


# -- actions ---------------------------------------------------------------------------------------

_KUTTSUKI = (
    "pine-crane pine-plain-1 iris-bridge iris-ribbon chrysanthemum-sake chrysanthemum-plain-2 "
    "paulownia-phoenix paulownia-plain-3"
)
# (kind, canonical action, texts that parse to it but are not canonical)
ACTIONS: list[tuple[str, Any, list[str]]] = [
    ("play", Play(Card.PINE_RIBBON), ["PLAY pine-ribbon", "play  pine-ribbon", "play pine-poem", " play pine-ribbon"]),
    (
        "play-take",
        Play(Card.PINE_RIBBON, Card.PINE_CRANE),
        ["play pine-ribbon take crane", "play Pine-Ribbon take pine-crane"],
    ),
    (
        "play-gaji",
        Play(Card.WILLOW_LIGHTNING, Card.CHERRY_CURTAIN),
        ["play gaji take curtain", "play lightning take cherry-curtain"],
    ),
    ("draw", Draw(Card.WILLOW_RAIN), ["draw rain", "draw willow_rain"]),
    ("take", ChooseCapture(Card.PAMPAS_PLAIN_2), ["TAKE pampas-plain-2", "take pampas-plain-2 "]),
    ("koikoi", CallKoiKoi(), ["koi-koi", "KoiKoi"]),
    ("stop", CallStop(), ["shobu", "Stop"]),
    ("exchange", Exchange(True), ["Exchange"]),
    ("keep", Exchange(False), ["KEEP"]),
    ("pass", PassHandYaku(), ["Pass"]),
    (
        "claim-teshi",
        ClaimHandYaku(
            Yaku.TESHI,
            sum(1 << c for c in (Card.CHERRY_CURTAIN, Card.CHERRY_RIBBON, Card.CHERRY_PLAIN_1, Card.CHERRY_PLAIN_2)),
        ),
        [
            "claim teshi cherry-plain-2 cherry-plain-1 cherry-ribbon cherry-curtain",
            "claim teshi cherry-curtain,cherry-ribbon,cherry-plain-1,cherry-plain-2",
            "claim TESHI curtain cherry-poem cherry-plain-1 cherry-plain-2",
        ],
    ),
    (
        "claim-kuttsuki",
        ClaimHandYaku(Yaku.KUTTSUKI, parse_cards([_KUTTSUKI])),
        ["claim kuttsuki sake-cup " + _KUTTSUKI.replace(" chrysanthemum-sake", "")],
    ),
]
# The protocol's own answers to a Gaji play (SPEC.md section 5): the session parses them, not the engine.
SESSION_ACTIONS = [("hiki", "hiki paulownia-plain-3"), ("no-hiki", "no-hiki")]
# Texts that are no action at all.
INVALID = [
    "",
    "play",
    "play pine-crane take",
    "play pine-crane pine-ribbon",
    "play pine-pine",
    "take",
    "koikoi now",
    "claim teshi",
    "claim teshi pine-crane pine-crane pine-ribbon pine-plain-1",
    "draw 0",
]


def build_actions() -> dict[str, Any]:
    return {
        "name": "actions",
        "description": "One action of every kind in its canonical text (GAME.md, Actions). Each 'not_canonical' "
        "text parses to the same action, but a receiver must refuse it (not-canonical): only 'text' may be sent. "
        "'invalid' texts are no action at all. 'session' actions are the protocol's answers to a Gaji play.",
        "actions": [
            {"kind": kind, "text": str(action), "fields": _fields(action), "not_canonical": aliases}
            for kind, action, aliases in ACTIONS
        ],
        "session": [{"kind": kind, "text": text} for kind, text in SESSION_ACTIONS],
        "invalid": INVALID,
    }


def _fields(action: Any) -> dict[str, Any]:
    if isinstance(action, Play):
        return {"card": int(action.card), **({"target": int(action.target)} if action.target is not None else {})}
    if isinstance(action, Draw):
        return {"card": int(action.card)}
    if isinstance(action, ChooseCapture):
        return {"target": int(action.target)}
    if isinstance(action, Exchange):
        return {"swap": action.swap}
    if isinstance(action, ClaimHandYaku):
        return {"yaku": action.yaku.value, "cards": [int(c) for c in cards_of(action.cards)]}
    return {}


def test_the_actions_table_names_every_action_of_the_grammar() -> None:
    rows = table_rows(section("Actions").split("<!-- end: grammar -->")[1])
    in_table = {part.strip().strip("`").split()[0] for row in rows for part in row[0].split("/")}
    alternatives = re.search(r"^action\s+= (.+)$", generated("grammar"), re.M)
    assert alternatives is not None
    assert in_table == {name.strip() for name in alternatives.group(1).split("/")}


def test_the_actions_vector_is_current() -> None:
    assert json.loads(ACTIONS_JSON.read_text()) == build_actions(), "run: python tests/test_game_doc.py --write"


def test_every_action_kind_has_a_vector() -> None:
    kinds = {type(action) for _, action, _ in ACTIONS}
    assert kinds == {Play, Draw, ChooseCapture, CallKoiKoi, CallStop, Exchange, ClaimHandYaku, PassHandYaku}
    assert {Yaku.TESHI, Yaku.KUTTSUKI} == {a.yaku for _, a, _ in ACTIONS if isinstance(a, ClaimHandYaku)}


def test_each_vector_parses_and_formats_through_the_engine() -> None:
    stored = json.loads(ACTIONS_JSON.read_text())
    grammar = _grammar_regex()
    for entry, (_, action, _) in zip(stored["actions"], ACTIONS, strict=True):
        parsed = Action.parse(entry["text"])
        assert parsed == action and str(parsed) == entry["text"]
        assert _canonical_by_the_words(grammar, entry["text"]), entry["text"]
        for alias in entry["not_canonical"]:
            assert Action.parse(alias) == action and str(Action.parse(alias)) != alias, alias
            assert not _canonical_by_the_words(grammar, alias), alias
    for entry in stored["session"]:
        assert grammar.fullmatch(entry["text"])
        with pytest.raises(EngineError):
            Action.parse(entry["text"])
        words = entry["text"].split()
        assert words[0] in ("hiki", "no-hiki") and all(Card.parse(w).id == w for w in words[1:])
    for text in stored["invalid"]:
        with pytest.raises(EngineError):
            Action.parse(text)


@pytest.mark.parametrize(
    "text",
    [
        "claim sanko pine-crane cherry-curtain pampas-moon",
        "claim teshi pine-crane pine-ribbon pine-plain-1",
        "claim kuttsuki pine-crane pine-ribbon pine-plain-1 pine-plain-2",
    ],
)
def test_a_claim_the_grammar_allows_but_the_rules_do_not_is_an_illegal_move(text: str) -> None:
    """GAME.md's comment on ``claim``: only Teshi with 4 cards and Kuttsuki with 8 are legal."""
    assert _canonical_by_the_words(_grammar_regex(), text)
    hand = "pine-crane pine-ribbon pine-plain-1 pine-plain-2 cherry-curtain pampas-moon"
    rnd = build_round(preset("lemme"), hand0=hand, hand1="", table="")
    with pytest.raises(IllegalActionError) as caught:
        rnd.apply(Action.parse(text), 0)
    assert caught.value.rule == "false-hand-yaku"


def test_claim_cards_are_written_in_ascending_index() -> None:
    rnd = build_round(
        preset("lemme"),
        hand0="paulownia-plain-3 paulownia-plain-1 paulownia-phoenix paulownia-plain-2",
        hand1="",
        table="",
    )
    (claim,) = rnd.legal_actions()
    assert isinstance(claim, ClaimHandYaku)
    ids = str(claim).split()[2:]
    assert ids == sorted(ids, key=lambda i: int(Card.parse(i))) == [c.id for c in sorted(Card) if c.month == 11]
    assert rnd.phase is Phase.HAND_YAKU


def _canonical_by_the_words(grammar: re.Pattern[str], text: str) -> bool:
    """The grammar, and its comment on ``claim``: the cards in ascending card index, each once."""
    if not grammar.fullmatch(text):
        return False
    indexes = [int(Card.parse(word)) for word in text.split()[2:]] if text.startswith("claim ") else []
    return indexes == sorted(set(indexes))


def _grammar_regex() -> re.Pattern[str]:
    """GAME.md's ABNF, read out of the Markdown and turned into one regular expression."""
    abnf = generated("grammar")
    rules: dict[str, str] = {}
    current = ""
    for line in abnf.splitlines():
        line = line.split(";")[0].rstrip()
        if not line or line.startswith("```"):
            continue
        m = re.match(r"^([a-zA-Z-]+)\s+= (.*)$", line)
        if m:
            current = m.group(1)
            rules[current] = m.group(2)
        elif current:
            rules[current] += " " + line.strip()

    def expand(name: str) -> str:
        if name == "SP":
            return " "
        tokens = re.findall(r'"[^"]*"|\d+\*?|[\[\]()/]|[a-zA-Z][a-zA-Z-]*', rules[name])
        regex, _ = alternation(tokens, 0)
        return regex

    def alternation(tokens: list[str], i: int) -> tuple[str, int]:
        """ABNF: alternatives of concatenations, up to a closing bracket; as a regular expression."""
        options, current = [], ""
        while i < len(tokens) and tokens[i] not in ")]":
            if tokens[i] == "/":
                options.append(current)
                current, i = "", i + 1
                continue
            element, i = repetition(tokens, i)
            current += element
        options.append(current)
        return "(?:" + "|".join(options) + ")", i

    def repetition(tokens: list[str], i: int) -> tuple[str, int]:
        token = tokens[i]
        if token[0].isdigit():
            element, i = repetition(tokens, i + 1)
            count = token[:-1] + "," if token.endswith("*") else token
            return element + "{" + count + "}", i
        if token in "([":
            inner, i = alternation(tokens, i + 1)
            return inner + ("?" if token == "[" else ""), i + 1
        if token.startswith('"'):
            return re.escape(token.strip('"')), i + 1
        return "(?:" + expand(token) + ")", i + 1

    return re.compile(expand("action"))


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_game_doc.py --write")
    ACTIONS_JSON.write_text(json.dumps(build_actions(), indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {ACTIONS_JSON}")
