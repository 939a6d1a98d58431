"""``koikoi join --lan``: the games found on the LAN, listed in a stable order, and the one to join.

One game is joined as it is. Of several, the person picks one by its number; a run that cannot ask (its
input is no terminal, as with an unattended ``--bot``) refuses in one line rather than join the first it
happened to hear of, since that would be a game nobody chose. Ctrl-C at the question leaves at once.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from p2p_koikoi.cli.common import fail

if TYPE_CHECKING:
    from p2p_koikoi.net.lan import LanGame

__all__ = ["pick_lan_game"]


def pick_lan_game(say: Callable[[str], None], ask: Callable[[str], str] = input) -> LanGame | None:
    """Look for games on the LAN; the one to join, or None when there is none. ``ask``: how a line is read."""
    import trio

    from p2p_koikoi.app.netplay import find_lan_games

    games = sorted(trio.run(find_lan_games, say), key=_order)
    if len(games) <= 1:
        for line in _lines(games):
            say(line)
        return games[0] if games else None
    for line in _lines(games):
        print(line, file=sys.stderr)  # even with --quiet: the choice is made from this list
    if not sys.stdin.isatty():
        raise fail(f"{len(games)} games on the LAN and no terminal to ask which: join one by an address listed above")
    return games[_choose(len(games), ask) - 1]


def _order(game: LanGame) -> tuple[str, str, int, tuple[str, ...]]:
    """Discovery order is whatever the network delivered first; the list is sorted so that one number
    names one game from run to run."""
    return game.rules, game.fingerprint, game.port, game.addresses


def _lines(games: list[LanGame]) -> list[str]:
    from p2p_koikoi.net.tcp import Address

    return [
        f"  {number}. {game.rules}  fingerprint {game.fingerprint}  at "
        + ", ".join(str(Address(host, game.port)) for host in game.addresses)
        for number, game in enumerate(games, 1)
    ]


def _choose(count: int, ask: Callable[[str], str]) -> int:
    """A number from 1 to ``count``, asked again until one is given. Read outside any event loop, so Ctrl-C
    interrupts the read itself instead of waiting for Enter."""
    while True:
        try:
            text = ask(f"Join which game [1-{count}]? ").strip()
        except (KeyboardInterrupt, EOFError) as exc:
            print(file=sys.stderr)  # off the prompt's line
            why = "Ctrl-C" if isinstance(exc, KeyboardInterrupt) else "the input ended"
            raise fail(f"no game joined ({why}): nothing was dialled", 130 if why == "Ctrl-C" else 1) from None
        if text.isdigit() and 1 <= int(text) <= count:
            return int(text)
        print(f"Type a number from 1 to {count}, or Ctrl-C to leave.", file=sys.stderr)
