"""Practice against the built-in bot: ``koikoi play``.

The bot is a second peer in the same process, connected over loopback TCP through the
whole protocol: the person hosts on ``127.0.0.1`` (a port the system picks), the bot dials
it, and the two sides run the fair deal, referee each other and sign the same chain, as two
people on two machines would. So practice exercises the network path a real match takes,
and leaves the same signed record (the person's copy) for ``koikoi verify``.
"""

from __future__ import annotations

import contextlib
import random
import signal
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

import trio

from p2p_koikoi.app.identity import bot_identity, load_identity, replay_dir
from p2p_koikoi.app.netplay import NetMatchResult
from p2p_koikoi.app.own_name import load_own_name
from p2p_koikoi.app.practice_series import BotSeat, PersonSeat
from p2p_koikoi.app.series import Again
from p2p_koikoi.app.speech import Say
from p2p_koikoi.bots.registry import canonical_spec, make_agent
from p2p_koikoi.engine import RuleSet
from p2p_koikoi.net.framed import FramedChannel
from p2p_koikoi.net.handshake import Greeting
from p2p_koikoi.net.runner import Held, MatchReport, Player, run_match
from p2p_koikoi.net.tcp import Address, dial, listen
from p2p_koikoi.record.identity_names import fingerprint
from p2p_koikoi.record.writer import RecordWriter
from p2p_koikoi.session.match_session import MatchSession
from p2p_koikoi.wire import public_bytes
from p2p_koikoi.wire.player_name import MAX_LENGTH, PlayerName

__all__ = ["DEFAULT_BOT", "PracticeOptions", "practice_match"]

DEFAULT_BOT = "strong"  # its default level answers within a second


@dataclass(frozen=True)
class PracticeOptions:
    rules: RuleSet
    bot: str = DEFAULT_BOT
    seed: int | None = None  # the bot's; the deal is always fair and random
    replay_dir: Path | None = None


def bot_name(bot: str) -> str:
    """The name the bot's seat sends, so the record says who played it: ``strong:expert`` is ``strong expert
    bot`` (a name holds no colon)."""
    return PlayerName.parse(f"{canonical_spec(bot).replace(':', ' ')} bot"[-MAX_LENGTH:]).format()


async def practice_match(
    options: PracticeOptions, player_for: Callable[[int], Player], say: Say, again: Again | None = None
) -> NetMatchResult:
    """Play a whole match, the player ``player_for(0)`` gives (seat 0, the host) against the bot (seat 1) over
    loopback TCP; with ``again``, another on the same connection each time the person wants one (the bot
    always does: :mod:`~p2p_koikoi.app.practice_series`). The last match's result, holding the ones before."""
    identity = load_identity()
    key = public_bytes(identity)
    seed = options.seed if options.seed is not None else random.SystemRandom().randrange(2**31)
    agent = make_agent(options.bot, seed)  # an unknown name fails here, before any socket opens
    bot_key = bot_identity(options.bot)
    result = NetMatchResult(None, None, fingerprint(key), fingerprint(public_bytes(bot_key)))
    listening: list[Address] = []
    ready = trio.Event()
    bot = BotSeat(bot_key, agent, bot_name(options.bot))

    async def on_listening(addresses: list[Address]) -> None:
        listening.extend(addresses)
        ready.set()

    async def admit(channel: FramedChannel, greeting: Greeting, peer: str) -> Greeting:
        return greeting  # our own bot: the match entry and its accept follow inside the runner

    async def bot_side() -> None:
        await ready.wait()
        channel, greeting = await dial(listening[0], public_bytes(bot_key))
        await bot.play(channel, MatchSession(1, bot_key, greeting.peer_key, greeting.nonces, name=bot.name))

    async def play_one(
        channel: FramedChannel, session: MatchSession, player: Player, record: RecordWriter, held: Held | None
    ) -> MatchReport:
        async with ctrl_c_asks(player):
            return await run_match(channel, session, player, record, resumable=False, held=held)

    say(f"Practice against the {options.bot} bot: {options.rules.format()}, {options.rules.rounds} rounds.")
    async with trio.open_nursery() as nursery:
        nursery.start_soon(bot_side)
        channel, greeting = await listen(key, admit, port=0, bind="127.0.0.1", on_listening=on_listening)
        own = load_own_name()
        name = own.format() if own else None
        session = MatchSession(0, identity, greeting.peer_key, greeting.nonces, rules=options.rules, name=name)
        person = PersonSeat(identity, player_for, replay_dir(options.replay_dir), play_one, again, say, name)
        result = await person.play(channel, session, result)
    return result


@runtime_checkable
class Interruptible(Protocol):
    """A player that takes Ctrl-C as ``q``: the first asks whether to leave, a second leaves."""

    def interrupt(self) -> None: ...


@contextlib.asynccontextmanager
async def ctrl_c_asks(player: Player) -> AsyncIterator[None]:
    """For the length of a practice match, Ctrl-C is ``q`` for a player that takes it: it asks first, and
    leaving writes the forfeit, so the record ends as the match did (a practice match cannot be resumed,
    so Ctrl-C must not leave one unfinished). Another player keeps Ctrl-C's usual interruption."""
    if not isinstance(player, Interruptible):
        yield
        return
    async with trio.open_nursery() as nursery:
        with trio.open_signal_receiver(signal.SIGINT) as signals:

            async def relay() -> None:
                async for _ in signals:
                    player.interrupt()

            nursery.start_soon(relay)
            try:
                yield
            finally:
                nursery.cancel_scope.cancel()
