"""``koikoi history`` in words (pure: a :class:`~p2p_koikoi.app.history.History` in, lines out).

The table first says what was counted and what was left out, and why, so nobody reads a total without
knowing what it rests on; then one line per opponent; ``--ratings`` adds the Glicko-2 ratings, and says how
many results rest on a claim of silence (signed by one seat alone).
"""

from __future__ import annotations

from rich.text import Text

from p2p_koikoi.app.history import Counted, History, Opponent, Result, Way
from p2p_koikoi.app.ratings import Ratings
from p2p_koikoi.ui.history_plot import plot

__all__ = ["match_words", "render_opponent", "render_ratings", "render_summary", "render_table"]

_HEADS = ("opponent", "played", "won", "lost", "drawn", "forfeits won/lost", "silence won/lost", "points for/against")
_RESULT = {Result.WIN: "won", Result.LOSS: "lost", Result.DRAW: "drawn"}
_WAY = {Way.COUNT: "", Way.FORFEIT: " by forfeit", Way.SILENCE: " by silence", Way.VIOLATION: " by a proven cheat"}


def match_words(match: Counted) -> str:
    """``2026-01-01 00:02 UTC, won by silence (claimed), 5 to 3, koikoi replay 3``."""
    claimed = " (claimed)" if match.claimed else ""
    return (
        f"{match.date}, {_RESULT[match.result]}{_WAY[match.way]}{claimed}, "
        f"{match.points_for} to {match.points_against}, koikoi replay {match.number}"
    )


def render_summary(history: History) -> list[str]:
    """What was counted, and every reason a record was left out, with how many."""
    head = f"{history.counted} of {history.records} records counted in {history.folder} (you are {history.identity})."
    reasons = [f"{len(items)} {why.value}" for why, items in history.left_by_reason().items()]
    if not reasons:
        return [head, "None left out."]
    return [head, f"Left out {len(history.left)}: {'; '.join(reasons)}."]


def _cells(opponent: Opponent) -> tuple[str, ...]:
    claimed = sum(1 for m in opponent.matches if m.claimed)
    silence = f"{opponent.count(Result.WIN, Way.SILENCE)}/{opponent.count(Result.LOSS, Way.SILENCE)}"
    return (
        opponent.label,
        str(len(opponent.matches)),
        str(opponent.count(Result.WIN)),
        str(opponent.count(Result.LOSS)),
        str(opponent.count(Result.DRAW)),
        f"{opponent.count(Result.WIN, Way.FORFEIT)}/{opponent.count(Result.LOSS, Way.FORFEIT)}",
        silence + (f" ({claimed} claimed)" if claimed else ""),
        f"{opponent.points_for}/{opponent.points_against}",
    )


def render_table(history: History) -> list[str]:
    """One line per opponent, then its last match on the line under it."""
    if not history.opponents:
        return ["No match counted yet: play one (koikoi play, koikoi host, koikoi join)."]
    rows = [_HEADS, *(_cells(o) for o in history.opponents)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(_HEADS))]
    lines = []
    for index, row in enumerate(rows):
        cells = [row[0].ljust(widths[0])] + [cell.rjust(width) for cell, width in zip(row[1:], widths[1:], strict=True)]
        lines.append("  ".join(cells).rstrip())
        if index:
            lines.append("    last: " + match_words(history.opponents[index - 1].matches[-1]))
    return lines + _shared_names(history)


def _shared_names(history: History) -> list[str]:
    """One line for each name more than one key goes by (anyone can send any name): the fingerprints beside
    it tell them apart."""
    keys: dict[str, list[str]] = {}
    for opponent in history.opponents:
        name = opponent.name or opponent.sent_name
        if name is not None:
            keys.setdefault(name.casefold(), []).append(name)
    return [
        f"Note: {len(names)} keys go by the name {names[0]!r}: they are told apart by fingerprint."
        for names in keys.values()
        if len(names) > 1
    ]


def render_ratings(history: History) -> list[str]:
    """Our rating and every opponent's, with the deviation."""
    ratings: Ratings = history.ratings
    lines = [f"Ratings (Glicko-2, tau {ratings.tau:g}, over {ratings.games} results in the order played):"]
    labels = ["you", *(o.label for o in history.opponents)]
    width = max(len(label) for label in labels)
    lines.append(f"  {'you':<{width}}  {ratings.ours.format()}  (volatility {ratings.ours.volatility:.5f})")
    for opponent in history.opponents:
        rating = ratings.opponents.get(opponent.key)
        if rating is not None:
            lines.append(f"  {opponent.label:<{width}}  {rating.format()}")
    if ratings.claimed:
        results = "result rests" if ratings.claimed == 1 else "results rest"
        lines.append(
            f"  {ratings.claimed} of these {results} on a claim of the other's silence (signed by one seat alone)."
        )
    return lines


def render_opponent(history: History, opponent: Opponent, *, ascii: bool = False, width: int = 60) -> list[Text]:
    """One opponent: the totals, each match, and the running points difference as a plot."""
    rows = [_HEADS, _cells(opponent)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(_HEADS))]
    lines = [Text(line) for line in render_summary(history)]
    lines.append(Text(""))
    for row in rows:
        lines.append(
            Text(
                "  ".join(
                    cell.rjust(w) if i else cell.ljust(w) for i, (cell, w) in enumerate(zip(row, widths, strict=True))
                )
            )
        )
    rating = history.ratings.opponents.get(opponent.key)
    if rating is not None:
        lines.append(Text(f"Rating {rating.format()}; yours {history.ratings.ours.format()} (Glicko-2)."))
    lines.append(Text(""))
    lines.extend(Text(f"  {match_words(m)}") for m in opponent.matches[-10:])
    if len(opponent.matches) > 10:
        lines.insert(-10, Text(f"  ... {len(opponent.matches) - 10} earlier matches (--json lists them all)"))
    lines.append(Text(""))
    lines.append(Text(f"Points ahead (+) or behind (-) of {opponent.label}, match by match:"))
    lines.extend(plot(opponent.running_difference(), width=width, ascii=ascii))
    return lines
