"""The running points difference against one opponent as a small column plot (pure: numbers in, lines out).

People would rather look at who has been ahead than read a column of numbers, so ``koikoi history NAME``
draws one column per match (the points for less the points against, added up so far), above the zero line
while we are ahead and below it while we are behind. It is drawn with rich ``Text`` (the project's one
rendering library; the plotting packages on the registry would add a dependency for one small chart), in
Unicode blocks, or in ``#`` and ``-`` for a terminal that cannot show them (``TERM=dumb``).

>>> [line.plain for line in plot([2, -1, 3], height=3, ascii=True)]
['  3 |# #', '  0 |---', ' -1 | # ', '     1 3']
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

__all__ = ["plot"]

_GLYPHS = {False: ("█", "─", "│"), True: ("#", "-", "|")}


def _split(top: int, bottom: int, height: int) -> tuple[int, int]:
    """How many rows go above the zero line and how many below it, in proportion to the values'
    reach either way (at least one each way that has a value)."""
    rows = max(height - 1, (top > 0) + (bottom < 0))
    if bottom == 0:
        return (rows if top > 0 else 0), 0
    if top == 0:
        return 0, rows
    up = min(rows - 1, max(1, round(rows * top / (top - bottom))))
    return up, rows - up


def _bar(value: int, reach: int, rows: int) -> int:
    """How many rows a bar of ``value`` fills, where ``reach`` fills ``rows`` (never 0 for a value not 0)."""
    return 0 if value == 0 else max(1, round(abs(value) * rows / reach))


def _footer(first: int, last: int, columns: int) -> str:
    """The numbers of the first and the last match shown, under the first and the last column."""
    a, b = str(first), str(last)
    if columns == 1:
        return a
    if columns < len(a) + len(b) + 1:
        return f"{a}-{b}"
    return a + " " * (columns - len(a) - len(b)) + b


def plot(values: Sequence[int], *, height: int = 8, width: int = 60, ascii: bool = False) -> list[Text]:
    """The lines of the plot: a label column, then one column per match (the last ``width`` of them), and
    under it the numbers of the first and the last match shown."""
    first = max(0, len(values) - width)
    shown = list(values[first:])
    if not shown:
        return []
    top, bottom = max(0, *shown), min(0, *shown)
    up, down = _split(top, bottom, height)
    block, axis, bar = _GLYPHS[ascii]
    labels = {0: str(top), up: "0", up + down: str(bottom)}
    margin = max(len(label) for label in labels.values()) + 1
    bars = [_bar(v, top if v > 0 else -bottom, up if v > 0 else down) for v in shown]
    lines = []
    for r in range(up + down + 1):
        line = Text(f"{labels.get(r, ''):>{margin}} {bar}")
        for value, size in zip(shown, bars, strict=True):
            if r == up:
                line.append(axis)
            elif (value > 0 and up - size <= r < up) or (value < 0 and up < r <= up + size):
                line.append(block, style="green" if value > 0 else "red")
            else:
                line.append(" ")
        lines.append(line)
    lines.append(Text(" " * (margin + 2) + _footer(first + 1, len(values), len(shown))))
    return lines
