"""How a card looks: its plant and its kind in a small cell, a short label for capture lists,
a colour by kind, and the full facts the ``?`` key shows.

A new player matches cards by plant and scores them by kind, so every cell shows both,
in words; the colour only repeats what the words say (a terminal without colour loses
nothing).
"""

from __future__ import annotations

from rich.text import Text

from p2p_koikoi.engine import Card, Kind, Role, RuleSet

__all__ = [
    "CELL",
    "KIND_NAMES",
    "card_cell",
    "card_facts",
    "card_style",
    "cell_width",
    "kind_label",
    "plant",
    "short_label",
]

CELL = 10  # columns per card cell, the gap included: eight cards fill 80 columns

_PLANTS = (
    "Pine",
    "Plum",
    "Cherry",
    "Wisteria",
    "Iris",
    "Peony",
    "Clover",
    "Pampas",
    "Chrysanth",
    "Maple",
    "Willow",
    "Paulownia",
)

KIND_NAMES = {Kind.BRIGHT: "Brights", Kind.ANIMAL: "Animals", Kind.RIBBON: "Ribbons", Kind.PLAIN: "Plains"}

_STYLES = {
    Kind.BRIGHT: "bold yellow",
    Kind.ANIMAL: "bold green",
    Kind.RIBBON: "red",
    Kind.PLAIN: "default",
}


def plant(card: Card) -> str:
    """The plant of the card's month, at most nine letters (``Chrysanth`` for the chrysanthemum)."""
    return _PLANTS[card.month]


def kind_label(card: Card) -> str:
    """The kind in a word, naming the two ribbon sets that make yaku of their own."""
    if card.role is Role.POEM_RIBBON:
        return "Poem rib."
    if card.role is Role.BLUE_RIBBON:
        return "Blue rib."
    if card.role is Role.LIGHTNING:  # a Plain by kind, but everyone (and the log) calls it the lightning
        return "Lightning"
    return card.kind.name.capitalize()


def card_style(card: Card) -> str:
    if card.role is Role.BLUE_RIBBON:
        return "bold blue"
    if card.role is Role.POEM_RIBBON:
        return "bold red"
    return _STYLES[card.kind]


def short_label(card: Card) -> str:
    """A label for capture lists, where the kind is already the line's heading: the animal or
    bright by its picture (``Crane``, ``Sake cup``), a ribbon by its plant (``Pine poem``)."""
    if card.kind is Kind.RIBBON:
        suffix = {Role.POEM_RIBBON: " poem", Role.BLUE_RIBBON: " blue"}.get(card.role, "")
        return plant(card) + suffix
    if card.kind is Kind.PLAIN:
        return plant(card) if card.role is not Role.LIGHTNING else "Lightning"
    words = card.display_name.split(" ", 1)
    return words[1].capitalize() if len(words) == 2 else card.display_name


def cell_width(screen_width: int) -> int:
    """Columns per card cell (the gap included) on a screen this wide: eight cards fill the width,
    ten columns each from 80 up, narrower (and the words shorter) below, never under five."""
    return CELL if screen_width >= 8 * CELL else max(5, screen_width // 8)


_SHORT_PLANTS = {"Wisteria": "Wistr.", "Chrysanth": "Chrys.", "Paulownia": "Paulo."}
_SHORT_KINDS = {"Poem rib.": "Poem", "Blue rib.": "Blue", "Lightning": "Lightn"}
_TINY_KINDS = {"Bright": "Brt.", "Animal": "Anim", "Ribbon": "Rib.", "Plain": "Pln.", "Lightning": "Ltng"}


def _words_for(card: Card, room: int) -> tuple[str, str]:
    """The plant and kind in at most ``room`` letters: whole words when they fit, else short forms
    that still tell every plant and kind apart."""
    name, kind = plant(card), kind_label(card)
    if room >= 9:
        return name, kind
    if room >= 6:
        return _SHORT_PLANTS.get(name, name)[:room], _SHORT_KINDS.get(kind, kind)[:room]
    kind = _TINY_KINDS.get(kind, _SHORT_KINDS.get(kind, kind))
    return name[:room], kind[:room]


def card_cell(card: Card, *, focused: bool = False, dim: bool = False, cell: int = CELL) -> tuple[Text, Text]:
    """The two lines of a card's cell (plant, kind), each ``cell - 1`` columns wide."""
    width = cell - 1
    style = card_style(card)
    if dim:
        style = "dim"
    if focused:
        style = f"{style} reverse"
    name, kind = _words_for(card, width)
    return Text(name.ljust(width), style=style), Text(kind.ljust(width), style=style)


def card_facts(card: Card, rules: RuleSet | None) -> list[str]:
    """The card in full, for the ``?`` key: its name, month, kind and what it counts for."""
    kind = card.kind
    lines = [
        f"{card.display_name} ({card.id})",
        f"Month {card.month.number}: {card.month.name.capitalize()}. Kind: {kind.name.lower()}, worth {kind.value}.",
    ]
    lines.append(_role_text(card, rules))
    return lines


def _role_text(card: Card, rules: RuleSet | None) -> str:
    role = card.role
    viewing = rules is None or rules.viewing_yaku
    if role is Role.RAIN:
        if rules is not None and rules.rain_in_sanko:
            return "The Rain man: a Light like the others here, in Sankō too."
        return "The Rain man: a Light that Sankō leaves out; it counts in Ame-Shikō and Gokō."
    if card.kind is Kind.BRIGHT:
        extra = ""
        if viewing and role is Role.CURTAIN:
            extra = " With the Sake cup it makes Hanami (Flower Viewing)."
        if viewing and role is Role.MOON:
            extra = " With the Sake cup it makes Tsukimi (Moon Viewing)."
        return "A Light: three make Sankō, four Shikō, five Gokō." + extra
    if role is Role.SAKE_CUP:
        text = "An Animal (five make Tane)"
        if viewing:
            text += " that also completes Hanami with the Curtain and Tsukimi with the Moon"
        if rules is not None and rules.sake_as_plain:
            text += "; it counts as a Plain for Kasu too"
        return text + "."
    if role in (Role.BOAR, Role.DEER, Role.BUTTERFLIES):
        return "An Animal of Inoshikachō (Boar, Deer, Butterflies); five Animals make Tane."
    if card.kind is Kind.ANIMAL:
        return "An Animal: five make Tane."
    if role is Role.POEM_RIBBON:
        return "A red poem ribbon: the three make Akatan; five ribbons make Tan."
    if role is Role.BLUE_RIBBON:
        return "A blue ribbon: the three make Aotan; five ribbons make Tan."
    if card.kind is Kind.RIBBON:
        return "A plain ribbon: five ribbons make Tan."
    if role is Role.LIGHTNING:
        if rules is not None and rules.gaji:
            return "The Lightning: the Gaji wildcard, which can take a table card of any month; a Plain otherwise."
        return "The Lightning: despite its looks, an ordinary Plain; ten Plains make Kasu."
    return "A Plain: ten make Kasu."
