"""Rule sets in words: what each option means, and why each preset reads its source as it does.

``koikoi rules`` prints a rule set with :func:`describe`. ``python -m
p2p_koikoi.engine.ruledoc`` writes ``protocol/RULESETS.md``, the options x
presets table with every reading of an ambiguous source and its reason; a test
keeps the file in step with the code.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass

from p2p_koikoi.engine.cards import Card, Kind, Role
from p2p_koikoi.engine.rules import PRESETS, AkatanAotan, RuleSet
from p2p_koikoi.engine.yaku import HAND_YAKU_POINTS, Yaku, YakuTable

__all__ = ["OPTIONS", "READINGS", "YakuRow", "describe", "markdown", "yaku_rows", "yaku_table_lines"]

# name -> (what it decides, {value: what that value means})
OPTIONS: dict[str, tuple[str, dict[str, str]]] = {
    "rounds": ("Rounds in a match (drawn and hand-yaku rounds count, redeals do not).", {}),
    "scoring": (
        "How round scores make up the match.",
        {
            "cumulative": "each player's scores add up; the higher total wins, equal totals draw",
            "pool": "both start with a pool; the loser pays, capped at what it has left; 0 loses at once",
        },
    ),
    "pool": ("Points each player starts with under pool scoring.", {}),
    "doubling": (
        "When the base (the winner's yaku added up) is doubled for its size.",
        {"7": "a base of 7 or more doubles", "8": "a base of 8 or more doubles", "never": "no doubling for size"},
    ),
    "koikoi-multiplier": (
        "How Koi-Koi calls multiply the winner's score.",
        {
            "none": "calls never multiply",
            "loser-called": "x2 if the loser had called Koi-Koi; the winner's own calls add nothing",
            "all-calls": "x(1 + every call by both players this round)",
            "rulebook": "x(1 + the winner's calls), and x2 more if the loser had called",
        },
    ),
    "after-koikoi": (
        "What a Koi-Koi call leads to.",
        {
            "continue": "play goes on; both players may call again on each later rise",
            "next-yaku-ends": "the next rise by either player ends the round at once for that player",
        },
    ),
    "decision-on": (
        "What offers Koi-Koi or Shōbu at the end of a turn.",
        {
            "rise": "the player's yaku total is higher than at its last decision (a new yaku or a +1 card)",
            "new-yaku": "the player holds a yaku it did not hold at its last decision",
        },
    ),
    "auto-stop": (
        "When a rise ends the round without a prompt.",
        {
            "own-hand-empty": "on the turn that empties the player's own hand",
            "both-hands-empty": "only on the last turn of the round, with both hands empty",
        },
    ),
    "exhausted": (
        "What happens when both hands run out and nobody stopped.",
        {
            "draw": "a drawn round: nobody scores and the same dealer deals again",
            "no-game": "no game: nobody scores and the deal passes to the other player",
            "last-caller": "the last Koi-Koi caller scores what it holds and deals next; nobody called: a draw",
            "dealer-bonus": "the dealer scores dealer-bonus points and deals again",
        },
    ),
    "dealer-bonus": ("Points the dealer scores under exhausted=dealer-bonus.", {}),
    "sake-as-plain": ("Whether the sake cup also counts as a plain for Kasu.", {}),
    "viewing-yaku": ("Whether Hanami and Tsukimi (Flower and Moon Viewing) count.", {}),
    "rain-in-sanko": ("Whether three lights including the rain man make Sankō.", {}),
    "tane-void-with-inoshikacho": ("Whether Tane is void once Inoshikachō is made.", {}),
    "tan-void-with-akatan-aotan": ("Whether Tan is void once Akatan, Aotan or Chōfuku is made.", {}),
    "akatan-aotan": (
        "How the three poem ribbons and the three blue ribbons combine.",
        {
            "chofuku": "both sets score Chōfuku (10) in place of Akatan and Aotan",
            "both": "Akatan and Aotan simply add up",
            "triad": "Akatan and Aotan add up, plus the Triad (+3)",
        },
    ),
    "set-extras": ("Whether Inoshikachō, Akatan, Aotan and Chōfuku score +1 for each further card of their kind.", {}),
    "hand-yaku": ("Whether Teshi and Kuttsuki in the dealt hand score 6 and end the round.", {}),
    "both-hand-yaku": (
        "What happens when both players are dealt a hand yaku.",
        {"dealer": "the dealer's counts", "draw": "a drawn round that counts as played; the same dealer deals"},
    ),
    "table-redeal": (
        "Which deals to the table are dealt again (a redeal is not a round).",
        {
            "none": "never",
            "four-of-a-month": "all four cards of a month on the table",
            "four-or-pairs": "four of a month, or four pairs, on the table",
        },
    ),
    "gaji": ("The rulebook's Gaji: the lightning card played from hand may take any table card.", {}),
    "hand-exchange": ("The rulebook's right of the non-dealer to swap hands with the dealer before looking.", {}),
    "deal-pattern": (
        "How the 8-8-8 deal is dealt (it fixes which deck positions go where).",
        {
            "8-8-8": "8 to the non-dealer, 8 to the table, 8 to the dealer",
            "4-4": "4 to the non-dealer, 4 to the dealer, 4 to the table, twice",
            "2-2": "2 to the non-dealer, 2 to the table, 2 to the dealer, four times",
        },
    ),
    "first-dealer": (
        "How the first dealer is chosen.",
        {
            "coin": "a fair coin flip",
            "draw-month": "each turns over a card; the earlier month deals; the same month draws again",
            "draw-month-rank": "as draw-month, but in the same month the higher kind deals; two plains draw again",
        },
    ),
}

# preset -> [(option or topic, reading, reason)]
READINGS: dict[str, list[tuple[str, str, str]]] = {
    "nintendo": [
        (
            "source",
            "Nintendo's rules as 004 sets them out point by point.",
            "004's side-by-side table is the only statement of them in the sources.",
        ),
        (
            "doubling, koikoi-multiplier",
            "x2 at 7 or more, then x2 more if the loser had called (x4 together).",
            "004 example 8 applies both doublings, as Japanese Wikipedia counts them.",
        ),
        (
            "after-koikoi",
            "next-yaku-ends: after a call, the next rise by either player ends the round.",
            "004: 'the round ends as soon as either player makes a yaku'; we read 'makes a yaku' as the same "
            "rise that offers a decision, so the caller's +1 card ends it too.",
        ),
        (
            "decision-on, auto-stop",
            "rise, both-hands-empty (as lemme).",
            "004 is silent; 000 says the game follows Nintendo's rules except where it lists a difference, "
            "and these are not listed.",
        ),
        (
            "hand-yaku, both-hand-yaku, table-redeal, deal-pattern",
            "as lemme: on, dealer, four-of-a-month, 8-8-8.",
            "000: 'the deal, matching by month, the yaku and their points, the hand yaku' follow Nintendo's rules.",
        ),
        (
            "first-dealer",
            "draw-month-rank.",
            "000 describes the traditional draw (earlier month, then higher value, two plains draw again) and "
            "says only the online game flips a coin instead.",
        ),
        ("exhausted", "no-game: nobody scores and the deal passes.", "004: 'No game; the dealer changes'."),
    ],
    "lemme": [
        ("source", "The online game of 000 and 004.", ""),
        ("rounds", "6.", "000: 6 unless the room changes it; practice plays 6."),
        (
            "auto-stop",
            "both-hands-empty.",
            "000/004: 'on the last turn, with both hands empty, only Shobu is offered'; the dealer's last "
            "turn empties only its own hand, so a Koi-Koi is still offered there.",
        ),
        (
            "set-extras",
            "on: Inoshikacho, Akatan, Aotan and Chofuku score +1 a further card.",
            "000's yaku table ('5 pts +1') and 004 example 3 (Akatan with two more ribbons is 7).",
        ),
    ],
    "rulebook": [
        ("source", "The rulebook printed with a physical set (001).", ""),
        (
            "hanami",
            "The curtain and the sake cup.",
            "001 prints Hanami as 'Moon card and Sake card', the same cards as its Tsukimi; its own caption "
            "says 'Viewing the Cherry Blossoms', and the cherry card in question is the curtain.",
        ),
        ("rounds", "12.", "001: '6 or 12 rounds (one round for one month of the year)'; 12 is the full year."),
        (
            "koikoi-multiplier",
            "rulebook: x(1 + the winner's calls), x2 more if the loser had called.",
            "001: a second yaku after a call doubles, a third triples; an opponent who scores after a call doubles.",
        ),
        ("decision-on", "new-yaku.", "001 offers the call when a player 'makes a Yaku', and counts by yaku made."),
        ("rain-in-sanko", "on.", "001's Sankou is 'three among Crane, Curtain, Moon, Phoenix, Man'."),
        (
            "akatan-aotan",
            "both (the Triad is an option: akatan-aotan=triad).",
            "001 lists Akatan and Aotan separately, 'all Yaku combinations are added', and the Triad is under "
            "'Optional Rules'.",
        ),
        (
            "set-extras",
            "on, counting every further ribbon (a blue one counts for Akatan too).",
            "001: '+1 point per additional ribbon card' for Akatan and Aotan, '+1 per additional animal' for "
            "Inoshikachou.",
        ),
        ("sake-as-plain", "off.", "001's Kasu is '10 (out of 24)': the 24 plains without the sake cup."),
        (
            "table-redeal",
            "four-or-pairs.",
            "001: 'If 4 cards of the same month Teshi or 4 pairs ... are in Ba, the round is canceled'.",
        ),
        (
            "gaji",
            "on: played from hand, the lightning may take any one table card; the holder also gets that "
            "month's cards left on the table at the round's end (before the count). Not when the other player has "
            "played a November card from hand this round, and not onto a month of three when the other player "
            "holds the fourth (Hiki).",
            "001's Gaji section. 'Played by the other player' is read as played from hand, the only play 001 "
            "calls playing; a drawn lightning is no wildcard, since 001 speaks of the Gaji 'in a player's hand'.",
        ),
        ("hand-exchange", "on: the non-dealer may swap hands before anyone looks.", "001's preparation."),
        ("deal-pattern, first-dealer", "4-4; draw-month (the same month draws again).", "001's preparation."),
        ("exhausted", "draw: same dealer.", "001: 'No points are scored ... the Oya is the same player'."),
        ("both-hand-yaku", "dealer (as lemme).", "001 is silent."),
    ],
    "qdan": [
        ("source", "Qdan's online game (002) with its default house rules.", ""),
        (
            "set-extras",
            "off: Inoshikacho, Akatan and Aotan score a flat 5.",
            "002 lists them at 5 with no '+1', and gives '+1 for each extra card' only to Tane, Tan and Kasu.",
        ),
        ("akatan-aotan", "both.", "002 has no Chofuku; every yaku but the brights adds up."),
        ("decision-on", "new-yaku.", "002: 'As soon as your captures form a new yaku, choose'."),
        ("auto-stop", "own-hand-empty.", "002: 'If your hand is empty you cannot continue, so the round stops there'."),
        (
            "exhausted",
            "last-caller.",
            "002: 'a player who called koi-koi scores what they hold ... if both called, the last to call does'.",
        ),
        (
            "table-redeal",
            "four-of-a-month.",
            "002 is silent; it follows 'the standard reference rules', and "
            "without a redeal four cards of a month on the table could never be taken.",
        ),
        ("both-hand-yaku", "dealer (as lemme).", "002 is silent."),
    ],
    "gameweave": [
        ("source", "Gameweave's online game (003).", ""),
        (
            "exhausted",
            "last-caller.",
            "003's list after 'the round is scored from the last Koi-Koi call:' is cut off; its surrounding text "
            "('A Koi-Koi call stays marked on that player for the rest of the round') and the 002 rule it matches "
            "support: the last caller scores what it holds; with no call the round is drawn (same dealer).",
        ),
        (
            "akatan-aotan, yaku points",
            "both, with the yaku points of 000's table (GAME.md, Yaku, lists them by preset).",
            "003 gives no points; 'Every other yaku stacks', so there is no Chofuku.",
        ),
        (
            "red ribbons",
            "Akatan and Aotan count; the plain red ribbons and the willow ribbon count only for Tan.",
            "003: 'There is no red-ribbon yaku. The willow ribbon is an ordinary ribbon.' read together: no yaku "
            "of the plain red ribbons (as some hwatu games have), since the page tracks Boar-Deer-Butterfly and "
            "otherwise plays the usual yaku.",
        ),
        (
            "auto-stop",
            "own-hand-empty.",
            "003: 'If the rise happens on the turn that empties your hand, you Stop automatically'.",
        ),
        ("hand-yaku, both-hand-yaku", "off by default; if on, both: a draw.", "003's lobby option."),
    ],
}


@dataclass(frozen=True, slots=True)
class YakuRow:
    """One yaku under a rule set: the cards that make it, its points, and what each further card adds."""

    yaku: Yaku
    cards: str
    points: int
    extra: str = ""


def _cards(kind: Kind | None = None, role: Role | None = None) -> list[Card]:
    return [c for c in Card if (kind is None or c.kind is kind) and (role is None or c.role is role)]


_LIGHTS = _cards(Kind.BRIGHT)
_DRY = [c for c in _LIGHTS if c is not Card.WILLOW_RAIN]
_INO = [Card.CLOVER_BOAR, Card.MAPLE_DEER, Card.PEONY_BUTTERFLIES]
_ANIMALS = [c for c in _cards(Kind.ANIMAL) if c not in _INO]  # none of them completes Inoshikacho
_POEM = _cards(role=Role.POEM_RIBBON)
_BLUE = _cards(role=Role.BLUE_RIBBON)
_RIBBONS = _cards(Kind.RIBBON, Role.NONE)
_PLAINS = _cards(Kind.PLAIN)


class _Rows:
    """Builds :class:`YakuRow` s by asking the engine's :class:`YakuTable` what a pile scores."""

    def __init__(self, rules: RuleSet) -> None:
        self.table = YakuTable(rules)
        self.rows: list[YakuRow] = []

    def points(self, yaku: Yaku, cards: Sequence[Card]) -> int:
        return next(y.points for y in self.table.score(sum(c.bit for c in cards)) if y.yaku is yaku)

    def add(self, yaku: Yaku, words: str, cards: Sequence[Card], more: Card | None = None, each: str = "") -> None:
        base = self.points(yaku, cards)
        extra = ""
        if more is not None and self.points(yaku, [*cards, more]) > base:
            extra = f"+{self.points(yaku, [*cards, more]) - base} for each further {each}"
        self.rows.append(YakuRow(yaku, words, base, extra))


def yaku_rows(rules: RuleSet) -> list[YakuRow]:
    """The yaku table of ``rules``, its points computed by the engine's own :class:`YakuTable` on the
    smallest pile that makes each yaku (and one card more, for the extras), so it cannot drift."""
    r = _Rows(rules)
    r.add(Yaku.GOKO, "all five Lights", _LIGHTS)
    r.add(Yaku.SHIKO, "four Lights, not the Rain man", _DRY[:4])
    r.add(Yaku.AME_SHIKO, "four Lights with the Rain man", [Card.WILLOW_RAIN, *_DRY[:3]])
    sanko = "any three Lights" if rules.rain_in_sanko else "three Lights, not the Rain man (he does not count)"
    r.add(Yaku.SANKO, sanko, _DRY[:3])
    if rules.viewing_yaku:
        sake = Card.CHRYSANTHEMUM_SAKE
        r.add(Yaku.HANAMI, "Cherry curtain and Chrysanthemum sake cup", [Card.CHERRY_CURTAIN, sake])
        r.add(Yaku.TSUKIMI, "Pampas moon and Chrysanthemum sake cup", [Card.PAMPAS_MOON, sake])
    r.add(Yaku.INOSHIKACHO, "Clover boar, Maple deer, Peony butterflies", _INO, _ANIMALS[0], "Animal")
    if rules.akatan_aotan is AkatanAotan.CHOFUKU:
        r.add(Yaku.AKATAN_AOTAN, "the three poem and the three blue ribbons", _POEM + _BLUE, _RIBBONS[0], "Ribbon")
    r.add(Yaku.AKATAN, "the three red poem ribbons (Pine, Plum, Cherry)", _POEM, _RIBBONS[0], "Ribbon")
    r.add(Yaku.AOTAN, "the three blue ribbons (Peony, Chrysanthemum, Maple)", _BLUE, _RIBBONS[0], "Ribbon")
    if rules.akatan_aotan is AkatanAotan.TRIAD:
        r.add(Yaku.TRIAD, "both Akatan and Aotan, on top of them", _POEM + _BLUE)
    void = " (none once Inoshikachō is made)" if rules.tane_void_with_inoshikacho else ""
    r.add(Yaku.TANE, "five Animals" + void, _ANIMALS[:5], _ANIMALS[5], "Animal")
    void = " (none once Akatan, Aotan or Chōfuku is made)" if rules.tan_void_with_akatan_aotan else ""
    r.add(Yaku.TAN, "five Ribbons" + void, [*_RIBBONS, _POEM[0]], _POEM[1], "Ribbon")
    sake_too = " (the sake cup counts as one)" if rules.sake_as_plain else ""
    r.add(Yaku.KASU, "ten Plains" + sake_too, _PLAINS[:10], _PLAINS[10], "Plain")
    if rules.hand_yaku:
        r.rows.append(YakuRow(Yaku.TESHI, "dealt: all four cards of a month in hand", HAND_YAKU_POINTS))
        r.rows.append(YakuRow(Yaku.KUTTSUKI, "dealt: four pairs of months in hand", HAND_YAKU_POINTS))
    return r.rows


def yaku_table_lines(rules: RuleSet) -> list[str]:
    """The yaku table in words, one yaku a line: name, cards, points and extras."""
    out = []
    for r in yaku_rows(rules):
        points = f"{r.points} point{'' if r.points == 1 else 's'}"
        out.append(f"{r.yaku.display_name}: {r.cards}: {points}" + (f", {r.extra}" if r.extra else "") + ".")
    return out


def describe(rules: RuleSet) -> str:
    """A rule set in words, one option a line."""
    lines = [f"Rules: {rules.format()}", f"Rules fingerprint: {rules.fingerprint}"]
    for name, value in rules.options().items():
        what, meanings = OPTIONS[name]
        meaning = meanings.get(value, "")
        lines.append(f"  {name} = {value}" + (f": {meaning}" if meaning else ""))
        lines.append(f"      {what}")
    return "\n".join(lines)


def markdown() -> str:
    """protocol/RULESETS.md: the options x presets table, the meanings, and the readings."""
    names = list(PRESETS)
    out = [
        "# Rule sets",
        "",
        "Generated by `python -m p2p_koikoi.engine.ruledoc > protocol/RULESETS.md`; a test checks it is current.",
        "",
        "A rule set is every option below. Its fingerprint is the SHA-256 (hex) of the UTF-8 text",
        "`koikoi-rules/1\\n` followed by one `name=value\\n` line per option, in the order of this table;",
        "the preset's name is not part of it. Booleans are `on`/`off`.",
        "",
        "The rules text (the `match` entry's, and `koikoi rules`'): the preset's name, then `name=value` for each",
        "option that differs from the preset, in the order of this table, separated by single spaces, such as",
        "`nintendo rounds=3`. What each option does in play is in [GAME.md](GAME.md#rule-options).",
        "",
        "## Options by preset",
        "",
        "| option | " + " | ".join(names) + " |",
        "| --- | " + " | ".join("---" for _ in names) + " |",
    ]
    for option in PRESETS["lemme"].options():
        out.append(f"| `{option}` | " + " | ".join(PRESETS[n].options()[option] for n in names) + " |")
    out.append("| fingerprint | " + " | ".join(f"`{PRESETS[n].fingerprint[:16]}`" for n in names) + " |")
    out += ["", "## What each option means", ""]
    for option, (what, meanings) in OPTIONS.items():
        out.append(f"- `{option}`: {what}")
        for value, meaning in meanings.items():
            out.append(f"  - `{value}`: {meaning}")
    out += ["", "## How each source is read", ""]
    for name in names:
        out += [f"### {name}", ""]
        for topic, reading, reason in READINGS[name]:
            out.append(f"- **{topic}**: {reading}" + (f" *Why:* {reason}" if reason else ""))
        out.append("")
    return "\n".join(out)


if __name__ == "__main__":  # pragma: no cover - the generator entry point
    sys.stdout.write(markdown())
