"""protocol/GAME.md's tables, made from the engine so the rules in words cannot drift from the code.

GAME.md is prose written by hand with generated tables in it, each between
``<!-- generated: NAME -->`` and ``<!-- end: NAME -->``. ``python -m
p2p_koikoi.engine.gamedoc`` rewrites every table in place (``--check`` only
reports a stale one); ``tests/test_game_doc.py`` fails when a table differs from
what this module makes, and checks the words around the tables against the code.

The yaku points are not copied from anywhere: each is what :class:`YakuTable`
scores for a witness pile of captures under each preset, so a change to the
yaku code changes the document.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from p2p_koikoi.engine.cards import Card, Kind, Month, Role, cards_of, parse_cards
from p2p_koikoi.engine.deal import DealPattern, deal_layout
from p2p_koikoi.engine.errors import RuleId
from p2p_koikoi.engine.match import first_dealer_by_draw
from p2p_koikoi.engine.round import OutcomeKind, Phase
from p2p_koikoi.engine.ruledoc import OPTIONS
from p2p_koikoi.engine.rules import PRESETS, FirstDealer
from p2p_koikoi.engine.yaku import (
    ANIMALS,
    BLUE,
    BOAR_DEER_BUTTERFLIES,
    BRIGHTS,
    HAND_YAKU_POINTS,
    PLAINS,
    POEM,
    RIBBONS,
    Yaku,
    YakuTable,
)

__all__ = [
    "BLOCKS",
    "COUNT_ORDER",
    "NUMBERS",
    "OPTION_SECTIONS",
    "OUTCOMES",
    "PHASES",
    "RULE_IDS",
    "YAKU_WITNESSES",
    "blocks",
    "parse_ranges",
    "ranges",
    "render",
    "slug",
    "stale_blocks",
]

GAME_MD = Path(__file__).resolve().parents[2] / "protocol" / "GAME.md"

_BLOCK = re.compile(r"(<!-- generated: (?P<name>[a-z-]+) -->\n)(?P<body>.*?)(<!-- end: (?P=name) -->)", re.S)

_ROLE_NOTES: dict[Role, str] = {
    Role.CRANE: "light; Gokō, Shikō, Sankō",
    Role.CURTAIN: "light; Gokō, Shikō, Sankō; Hanami",
    Role.MOON: "light; Gokō, Shikō, Sankō; Tsukimi",
    Role.RAIN: "the rain man: light; Gokō and Ame-Shikō, Sankō only with `rain-in-sanko=on`",
    Role.PHOENIX: "light; Gokō, Shikō, Sankō",
    Role.SAKE_CUP: "animal (Tane); Hanami and Tsukimi; also a plain for Kasu with `sake-as-plain=on`",
    Role.BOAR: "Inoshikachō",
    Role.DEER: "Inoshikachō",
    Role.BUTTERFLIES: "Inoshikachō",
    Role.POEM_RIBBON: "Akatan",
    Role.BLUE_RIBBON: "Aotan",
    Role.LIGHTNING: "a plain; the rulebook's Gaji wildcard with `gaji=on`",
    Role.NONE: "",
}

# outcome -> (when, who wins, who deals next, whether it counts as a round). The winner and next-dealer
# words are keys a test checks against rounds that really end that way.
WINNER_WORDS = {
    "caller": "the seat that called Shōbu",
    "riser": "the seat whose rise ended the round",
    "claimer": "the seat whose hand yaku counts",
    "last-caller": "the last seat to call Koi-Koi",
    "dealer": "the dealer",
    "none": "nobody",
}
NEXT_DEALER_WORDS = {"winner": "the winner", "dealer": "the same dealer", "other": "the other seat"}

OUTCOMES: dict[OutcomeKind, tuple[str, str, str, bool]] = {
    OutcomeKind.STOP: ("a player answered a decision with `stop` (Shōbu)", "caller", "winner", True),
    OutcomeKind.AUTO_STOP: (
        "a rise ended the round with no decision offered (`after-koikoi`, `auto-stop`)",
        "riser",
        "winner",
        True,
    ),
    OutcomeKind.HAND_YAKU: ("a dealt Teshi or Kuttsuki was claimed", "claimer", "winner", True),
    OutcomeKind.HAND_YAKU_DRAW: (
        "both seats claimed a hand yaku and `both-hand-yaku=draw`",
        "none",
        "dealer",
        True,
    ),
    OutcomeKind.DRAWN: (
        "the hands ran out with nobody stopped: `exhausted=draw`, or `last-caller` with no call",
        "none",
        "dealer",
        True,
    ),
    OutcomeKind.NO_GAME: ("the hands ran out with nobody stopped, `exhausted=no-game`", "none", "other", True),
    OutcomeKind.LAST_CALLER: (
        "the hands ran out with nobody stopped, `exhausted=last-caller`, and someone called Koi-Koi",
        "last-caller",
        "winner",
        True,
    ),
    OutcomeKind.DEALER_BONUS: (
        "the hands ran out with nobody stopped, `exhausted=dealer-bonus`",
        "dealer",
        "winner",
        True,
    ),
    OutcomeKind.REDEAL: ("the table as dealt must be dealt again (`table-redeal`)", "none", "dealer", False),
}

# The engine's rule ids: why an action is illegal. A peer names one in `illegal-move:RULE` (and the audit in
# `audit:RULE`); a test checks this list is every id the engine raises.
RULE_IDS: dict[RuleId, str] = {
    RuleId.ROUND_OVER: "the round is over",
    RuleId.NOT_YOUR_TURN: "another seat (or chance) is to act",
    RuleId.WRONG_PHASE: "that kind of action is not one of this phase's (see the phases above)",
    RuleId.CARD_NOT_IN_HAND: "a played or claimed card is not in the seat's hand",
    RuleId.TARGET_DOES_NOT_MATCH: "the named table card is not of the played (or drawn) card's month",
    RuleId.TARGET_NOT_ON_TABLE: "the Gaji's target is not on the table",
    RuleId.CHOOSE_CAPTURE: "the card matches two table cards and names neither",
    RuleId.NO_CHOICE: "the card has one or three matches and yet names one of them",
    RuleId.GAJI_AFTER_NOVEMBER: "a Gaji wildcard after the other seat has played a willow card from its hand",
    RuleId.GAJI_BLOCKED_BY_HIKI: "a Gaji wildcard onto a month of three whose fourth card the other seat holds",
    RuleId.WRONG_DRAW: "the drawn card is not the next stock card",
    RuleId.CARD_ALREADY_SEEN: "a card said to be hidden (drawn or revealed) was already seen elsewhere",
    RuleId.TOO_MANY_CARDS: "more hand cards revealed than the seat has hidden",
    RuleId.HAND_YAKU_NOT_CLAIMED: "a pass by a seat holding Teshi or Kuttsuki",
    RuleId.FALSE_HAND_YAKU: "a claim whose cards do not make the yaku named, or that the hand does not make",
}

# phase -> (who acts, what happens). The phase ids and the seat to act (-1 for chance) are what the
# round's public state names.
PHASES: dict[Phase, tuple[str, str]] = {
    Phase.EXCHANGE: ("the non-dealer", "`exchange` or `keep` (only with `hand-exchange=on`)"),
    Phase.HAND_YAKU: ("the dealer, then the non-dealer", "`claim ...` or `pass` (only with `hand-yaku=on`)"),
    Phase.PLAY: ("the seat on turn", "`play CARD` or `play CARD take TARGET`"),
    Phase.DRAW: ("chance (-1)", "`draw CARD`: the next stock card"),
    Phase.DRAW_CHOICE: ("the seat on turn", "`take TARGET`: the drawn card matched two table cards"),
    Phase.DECISION: ("the seat on turn", "`koikoi` or `stop`, after a rise"),
    Phase.OVER: ("nobody (-1)", "the round has its outcome"),
}

# yaku row -> (yaku id, what makes it, the witness captures, a card that adds one more to its count or
# None, options set on every preset for this row). Rows whose yaku a preset voids or lacks show "—".
_KASU_10 = (
    "pine-plain-1 pine-plain-2 plum-plain-1 plum-plain-2 cherry-plain-1 cherry-plain-2 "
    "wisteria-plain-1 wisteria-plain-2 iris-plain-1 iris-plain-2"
)
_SIX_RIBBONS = "pine-ribbon plum-ribbon cherry-ribbon peony-ribbon chrysanthemum-ribbon maple-ribbon"
YAKU_WITNESSES: tuple[tuple[str, str, str, str | None, tuple[str, ...]], ...] = (
    ("goko", "all five lights", "pine-crane cherry-curtain pampas-moon willow-rain paulownia-phoenix", None, ()),
    (
        "shiko",
        "the four lights other than the rain man",
        "pine-crane cherry-curtain pampas-moon paulownia-phoenix",
        None,
        (),
    ),
    (
        "ame-shiko",
        "four lights, the rain man among them",
        "pine-crane cherry-curtain pampas-moon willow-rain",
        None,
        (),
    ),
    ("sanko", "three lights, not the rain man", "pine-crane cherry-curtain pampas-moon", None, ()),
    ("sanko", "three lights, the rain man among them", "pine-crane cherry-curtain willow-rain", None, ()),
    ("hanami", "the curtain and the sake cup", "cherry-curtain chrysanthemum-sake", None, ()),
    ("tsukimi", "the moon and the sake cup", "pampas-moon chrysanthemum-sake", None, ()),
    (
        "inoshikacho",
        "the boar, the deer and the butterflies",
        "clover-boar maple-deer peony-butterflies",
        "plum-warbler",
        (),
    ),
    ("akatan", "the three poem ribbons", "pine-ribbon plum-ribbon cherry-ribbon", "wisteria-ribbon", ()),
    ("aotan", "the three blue ribbons", "peony-ribbon chrysanthemum-ribbon maple-ribbon", "wisteria-ribbon", ()),
    ("akatan-aotan", "the three poem and the three blue ribbons (Chōfuku)", _SIX_RIBBONS, "wisteria-ribbon", ()),
    ("triad", "the six ribbons above, with `akatan-aotan=triad` set", _SIX_RIBBONS, None, ("akatan-aotan=triad",)),
    (
        "tane",
        "any five animals",
        "plum-warbler wisteria-cuckoo iris-bridge pampas-geese willow-swallow",
        "clover-boar",
        (),
    ),
    (
        "tane",
        "five animals, the boar, deer and butterflies among them",
        "clover-boar maple-deer peony-butterflies plum-warbler wisteria-cuckoo",
        "iris-bridge",
        (),
    ),
    (
        "tan",
        "any five ribbons",
        "pine-ribbon wisteria-ribbon iris-ribbon clover-ribbon willow-ribbon",
        "plum-ribbon",
        (),
    ),
    (
        "tan",
        "five ribbons, the three poem ribbons among them",
        "pine-ribbon plum-ribbon cherry-ribbon wisteria-ribbon iris-ribbon",
        "clover-ribbon",
        (),
    ),
    ("kasu", "any ten plains", _KASU_10, "pampas-plain-1", ()),
    ("kasu", "nine plains and the sake cup", _KASU_10.rsplit(" ", 1)[0] + " chrysanthemum-sake", "pampas-plain-1", ()),
)

# The order in which a count lists the yaku it found (the order of a transcript's result.yaku); at most
# one of each line is found, and a test checks every count the engine makes keeps this order.
COUNT_ORDER: tuple[tuple[Yaku, ...], ...] = (
    (Yaku.GOKO, Yaku.SHIKO, Yaku.AME_SHIKO, Yaku.SANKO),
    (Yaku.HANAMI,),
    (Yaku.TSUKIMI,),
    (Yaku.INOSHIKACHO,),
    (Yaku.TANE,),
    (Yaku.AKATAN_AOTAN, Yaku.AKATAN),
    (Yaku.AOTAN,),
    (Yaku.TRIAD,),
    (Yaku.TAN,),
    (Yaku.KASU,),
    (Yaku.TESHI, Yaku.KUTTSUKI),
)

# option -> the title of the GAME.md section that says what it does
OPTION_SECTIONS: dict[str, str] = {
    "rounds": "The match",
    "scoring": "The match",
    "pool": "The match",
    "doubling": "Scoring a round",
    "koikoi-multiplier": "Scoring a round",
    "after-koikoi": "The end of a turn: Koi-Koi or Shōbu",
    "decision-on": "The end of a turn: Koi-Koi or Shōbu",
    "auto-stop": "The end of a turn: Koi-Koi or Shōbu",
    "exhausted": "When the hands run out",
    "dealer-bonus": "When the hands run out",
    "sake-as-plain": "Yaku",
    "viewing-yaku": "Yaku",
    "rain-in-sanko": "Yaku",
    "tane-void-with-inoshikacho": "Yaku",
    "tan-void-with-akatan-aotan": "Yaku",
    "akatan-aotan": "Yaku",
    "set-extras": "Yaku",
    "hand-yaku": "Hand yaku: Teshi and Kuttsuki",
    "both-hand-yaku": "Hand yaku: Teshi and Kuttsuki",
    "table-redeal": "Redeals",
    "gaji": "Gaji and Hiki",
    "hand-exchange": "The hand exchange",
    "deal-pattern": "Dealing",
    "first-dealer": "The first dealer",
}

# the numeric options and the values they take (RuleSet checks them)
NUMBERS: dict[str, str] = {"rounds": "`3`, `6`, `12`", "pool": "1 to 1000", "dealer-bonus": "1 to 100"}


def slug(title: str) -> str:
    """The anchor a Markdown renderer (GitHub's) gives a heading."""
    kept = "".join(ch for ch in title.lower() if ch.isalnum() or ch in " -_")
    return kept.replace(" ", "-")


def _row(cells: Iterable[object]) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def _table(head: list[str], rows: Iterable[Iterable[object]]) -> str:
    lines = [_row(head), _row("---" for _ in head)]
    lines += [_row(r) for r in rows]
    return "\n".join(lines)


def ranges(positions: Iterable[int]) -> str:
    """Deck positions as runs, ``0-3, 12-15``; :func:`parse_ranges` reads them back."""
    runs: list[list[int]] = []
    for p in positions:
        if runs and p == runs[-1][1] + 1:
            runs[-1][1] = p
        else:
            runs.append([p, p])
    return ", ".join(f"{a}-{b}" if a != b else str(a) for a, b in runs)


def parse_ranges(text: str) -> tuple[int, ...]:
    out: list[int] = []
    for part in text.split(","):
        a, _, b = part.strip().partition("-")
        out.extend(range(int(a), int(b or a) + 1))
    return tuple(out)


def cards_table() -> str:
    rows = [
        (int(c), f"`{c.id}`", f"{c.month.number} {c.month.id}", c.kind.id, c.role.value, _ROLE_NOTES[c.role])
        for c in Card
    ]
    return _table(["index", "id", "month", "kind", "role", "what the role does"], rows)


def months_table() -> str:
    rows = [(m.number, m.id, ", ".join(str(int(c)) for c in Card if c.month is m)) for m in Month]
    return _table(["month", "plant", "card indexes"], rows)


def groups_table() -> str:
    groups = (
        ("lights (kind `bright`)", BRIGHTS),
        ("animals (kind `animal`)", ANIMALS),
        ("ribbons (kind `ribbon`)", RIBBONS),
        ("plains (kind `plain`)", PLAINS),
        ("poem ribbons (Akatan)", POEM),
        ("blue ribbons (Aotan)", BLUE),
        ("boar, deer, butterflies (Inoshikachō)", BOAR_DEER_BUTTERFLIES),
    )
    rows = [(name, mask.bit_count(), ", ".join(str(int(c)) for c in cards_of(mask))) for name, mask in groups]
    return _table(["set", "cards", "indexes"], rows)


def kind_order_table() -> str:
    """The kinds from highest to lowest, as ``draw-month-rank`` compares them."""
    order = sorted(Kind, key=lambda k: -k.value)
    rows = [(rank + 1, k.id, k.value) for rank, k in enumerate(order)]
    return _table(["rank", "kind", "traditional value"], rows)


def dealer_draw_table() -> str:
    """Worked first-dealer draws, each decided by the engine under both drawing rules."""
    pairs = (
        ("pine-plain-1", "maple-deer"),
        ("maple-deer", "pine-plain-1"),
        ("cherry-ribbon", "cherry-curtain"),
        ("paulownia-phoenix", "paulownia-plain-2"),
        ("willow-swallow", "willow-ribbon"),
        ("paulownia-plain-1", "paulownia-plain-3"),
    )

    def word(seat: int | None) -> str:
        return "draw again" if seat is None else f"seat {seat} deals"

    rows = []
    for a, b in pairs:
        c0, c1 = Card.parse(a), Card.parse(b)
        rows.append(
            (
                f"`{a}`",
                f"`{b}`",
                word(first_dealer_by_draw(FirstDealer.DRAW_MONTH, c0, c1)),
                word(first_dealer_by_draw(FirstDealer.DRAW_MONTH_RANK, c0, c1)),
            )
        )
    return _table(["seat 0 drew (position 0)", "seat 1 drew (position 1)", "draw-month", "draw-month-rank"], rows)


def deal_table() -> str:
    rows = []
    for pattern in DealPattern:
        layout = deal_layout(pattern)
        rows.append(
            (
                f"`{pattern.value}`",
                ranges(layout.non_dealer),
                ranges(layout.table),
                ranges(layout.dealer),
                ranges(layout.stock),
            )
        )
    return _table(["pattern", "non-dealer's hand", "table", "dealer's hand", "stock (draw order)"], rows)


def phases_table() -> str:
    rows = [(f"`{phase.value}`", who, what) for phase, (who, what) in PHASES.items()]
    return _table(["phase", "who acts", "actions"], rows)


def rules_table() -> str:
    return _table(["rule id", "the action is illegal because"], ((f"`{k}`", v) for k, v in RULE_IDS.items()))


def outcomes_table() -> str:
    rows = [
        (f"`{kind.value}`", when, WINNER_WORDS[winner], NEXT_DEALER_WORDS[nxt], "yes" if counts else "no")
        for kind, (when, winner, nxt, counts) in OUTCOMES.items()
    ]
    return _table(["outcome", "when", "winner", "next dealer", "counts as a round"], rows)


def _yaku_cell(rules_name: str, yaku: Yaku, witness: str, extra: str | None, overrides: tuple[str, ...]) -> str:
    rules = PRESETS[rules_name].with_overrides(overrides)
    if yaku in (Yaku.TESHI, Yaku.KUTTSUKI):
        return str(HAND_YAKU_POINTS) if rules.hand_yaku else "off"
    table = YakuTable(rules)
    caps = parse_cards([witness])

    def points(mask: int) -> int | None:
        return next((y.points for y in table.score(mask) if y.yaku is yaku), None)

    base = points(caps)
    if base is None:
        return "—"
    if extra is None:
        return str(base)
    more = points(caps | Card.parse(extra).bit)
    step = (more or 0) - base
    return f"{base} +{step}" if step else str(base)


def yaku_table() -> str:
    names = list(PRESETS)
    rows: list[list[str]] = []
    for yaku_id, made_by, witness, extra, overrides in YAKU_WITNESSES:
        yaku = Yaku.parse(yaku_id)
        rows.append([f"`{yaku_id}`", made_by, *(_yaku_cell(n, yaku, witness, extra, overrides) for n in names)])
    for yaku, made_by in (
        (Yaku.TESHI, "four cards of one month in a dealt hand"),
        (Yaku.KUTTSUKI, "four months of two cards each in a dealt hand"),
    ):
        rows.append([f"`{yaku.value}`", made_by, *(_yaku_cell(n, yaku, "", None, ()) for n in names)])
    return _table(["yaku", "made by", *names], rows)


def count_order() -> str:
    lines = [f"{n}. " + " or ".join(f"`{y.value}`" for y in group) for n, group in enumerate(COUNT_ORDER, start=1)]
    return "\n".join(lines)


def options_table() -> str:
    names = list(PRESETS)
    rows = []
    for option in PRESETS["lemme"].options():
        values = OPTIONS[option][1]
        choices = ", ".join(f"`{v}`" for v in values) if values else NUMBERS.get(option, "`on`, `off`")
        section = OPTION_SECTIONS[option]
        rows.append(
            [f"`{option}`", choices, *(PRESETS[n].options()[option] for n in names), f"[{section}](#{slug(section)})"]
        )
    return _table(["option", "values", *names, "what it does"], rows)


def grammar() -> str:
    """The canonical action grammar (RFC 5234 ABNF), with the card and yaku ids from the engine."""
    card_ids = _alternatives([f'"{c.id}"' for c in Card], 14)
    lines = [
        "```abnf",
        '; RFC 5234 ABNF; every quoted string here is case-sensitive (RFC 7405 %s"...")',
        "action        = play / draw / take / koikoi / stop / exchange / keep / pass / claim / hiki / no-hiki",
        'play          = "play" SP card-id [SP "take" SP card-id]',
        'draw          = "draw" SP card-id',
        'take          = "take" SP card-id',
        'koikoi        = "koikoi"',
        'stop          = "stop"',
        'exchange      = "exchange"',
        'keep          = "keep"',
        'pass          = "pass"',
        _commented(
            'claim         = "claim" SP yaku-id 1*(SP card-id)', "the cards in ascending card index, each once."
        ),
        _commented("", "Only teshi with its 4 cards and kuttsuki with 8"),
        _commented("", "are legal; any other claim parses, and is the"),
        _commented("", "illegal move false-hand-yaku"),
        "yaku-id       = " + _alternatives([f'"{y.value}"' for y in Yaku], 14, per_line=6),
        _commented('hiki          = "hiki" SP card-id', "hiki and no-hiki are the protocol's answer to a"),
        _commented('no-hiki       = "no-hiki"', "Gaji play (SPEC.md section 5), not engine actions"),
        "card-id       = " + card_ids,
        "SP            = %x20",
        "```",
    ]
    return "\n".join(lines)


def _commented(rule: str, comment: str, column: int = 52) -> str:
    return f"{rule:<{column}}; {comment}"


def _alternatives(words: list[str], indent: int, per_line: int = 4) -> str:
    """ABNF alternatives, ``per_line`` a line, continuation lines indented and led by ``/``."""
    lines = [" / ".join(words[i : i + per_line]) for i in range(0, len(words), per_line)]
    return ("\n" + " " * indent + "/ ").join(lines)


BLOCKS: dict[str, Callable[[], str]] = {
    "cards": cards_table,
    "months": months_table,
    "groups": groups_table,
    "kind-order": kind_order_table,
    "dealer-draw": dealer_draw_table,
    "deal": deal_table,
    "phases": phases_table,
    "outcomes": outcomes_table,
    "rule-ids": rules_table,
    "yaku": yaku_table,
    "count-order": count_order,
    "options": options_table,
    "grammar": grammar,
}


def blocks() -> dict[str, str]:
    return {name: make() for name, make in BLOCKS.items()}


def render(text: str) -> str:
    """``text`` with every generated block replaced by what the code makes now."""
    made = blocks()

    def fill(m: re.Match[str]) -> str:
        return m.group(1) + made[m.group("name")] + "\n" + m.group(4)

    return _BLOCK.sub(fill, text)


def stale_blocks(text: str) -> list[str]:
    """The names of blocks in ``text`` that differ from the code, and of blocks it lacks."""
    made = blocks()
    found = {m.group("name"): m.group("body") for m in _BLOCK.finditer(text)}
    return [name for name in made if found.get(name) != made[name] + "\n"]


def main(argv: list[str]) -> int:
    path = GAME_MD
    text = path.read_text(encoding="utf-8")
    if argv == ["--check"]:
        stale = stale_blocks(text)
        if stale:
            print(f"{path}: stale tables: {', '.join(stale)}; run: python -m p2p_koikoi.engine.gamedoc")
            return 1
        return 0
    if argv:
        print("usage: python -m p2p_koikoi.engine.gamedoc [--check]")
        return 2
    path.write_text(render(text), encoding="utf-8")
    return 0


if __name__ == "__main__":  # pragma: no cover - the generator entry point
    sys.exit(main(sys.argv[1:]))
