"""A full 12-round match between two bots over loopback TCP, with the whole protocol.

Two processes (one per peer, as in real play) run the handshake, the fair deal
of every round with its audit, signed entries checked by both sides, and the
records, then the figures are printed: wall time per match and per round,
bytes sent, entries. Records go to a tmpfs folder (fsync is nearly free
there), to the disk under /tmp (fsync costs a few ms on this machine), or
nowhere, so the cost of durability shows separately.

    python bench/match.py [--matches 5] [--bot random] [--rules nintendo]

Target: under 0.4 s per 12-round match. For comparison, an existing Koi-Koi bot
server over socket.io plays about 2.5 games/s with no cryptography at all.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.app.players import BotPlayer
from p2p_koikoi.bots.registry import make_agent
from p2p_koikoi.engine import OutcomeKind, parse_rules
from p2p_koikoi.net.runner import MatchReport, run_match
from p2p_koikoi.net.tcp import Address, dial, listen
from p2p_koikoi.record.writer import RecordWriter
from p2p_koikoi.session.match_session import MatchSession
from p2p_koikoi.wire import public_bytes


def _record(directory: str | None, seat: int, tag: str) -> RecordWriter | None:
    if directory is None:
        return None
    return RecordWriter(Path(directory), lambda: f"{tag}-{seat}.koikoi", seat=seat)


def host_process(rules_text: str, bot: str, seed: int, ports: Any, results: Any, directory: str | None) -> None:
    async def main() -> None:
        key = Ed25519PrivateKey.generate()

        async def on_listening(addresses: list[Address]) -> None:
            ports.put(addresses[0].port)

        async def admit(channel: Any, greeting: Any, peer: str) -> Any:
            return greeting

        channel, greeting = await listen(public_bytes(key), admit, port=0, bind="127.0.0.1", on_listening=on_listening)
        session = MatchSession(0, key, greeting.peer_key, greeting.nonces, rules=parse_rules(rules_text))
        record = _record(directory, 0, f"m{seed}")
        start = time.perf_counter()
        report = await run_match(channel, session, BotPlayer(make_agent(bot, seed), 0), record)
        wall = time.perf_counter() - start
        if record is not None:
            record.close()
        assert session.match is not None
        rounds = sum(1 for r in session.match.results if r.outcome.kind is not OutcomeKind.REDEAL)
        results.put(("host", wall, time.process_time(), rounds, _summary(report)))

    trio.run(main)


def guest_process(bot: str, seed: int, port: int, results: Any, directory: str | None) -> None:
    async def main() -> None:
        key = Ed25519PrivateKey.generate()
        start = time.perf_counter()
        channel, greeting = await dial(Address("127.0.0.1", port), public_bytes(key))
        session = MatchSession(1, key, greeting.peer_key, greeting.nonces)
        record = _record(directory, 1, f"m{seed}")
        report = await run_match(channel, session, BotPlayer(make_agent(bot, seed + 1), 1), record)
        wall = time.perf_counter() - start
        if record is not None:
            record.close()
        results.put(("guest", wall, time.process_time(), 0, _summary(report)))

    trio.run(main)


def _summary(report: MatchReport) -> dict[str, Any]:
    return {"ended_by": report.ended_by, "sent": report.bytes_sent, "entries": report.entries}


def one_match(rules_text: str, bot: str, seed: int, directory: str | None) -> dict[str, Any]:
    ctx = mp.get_context("spawn")
    ports, results = ctx.Queue(), ctx.Queue()
    host = ctx.Process(target=host_process, args=(rules_text, bot, seed, ports, results, directory))
    host.start()
    port = ports.get(timeout=30)
    guest = ctx.Process(target=guest_process, args=(bot, seed, port, results, directory))
    guest.start()
    out: dict[str, Any] = {}
    for _ in range(2):
        who, wall, cpu, rounds, summary = results.get(timeout=300)
        out[who] = {"wall": wall, "cpu": cpu, "rounds": rounds, **summary}
    host.join()
    guest.join()
    if out["host"]["ended_by"] != "match-over" or out["guest"]["ended_by"] != "match-over":
        raise SystemExit(f"a match did not finish: {out}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=5)
    parser.add_argument("--bot", default="random")
    parser.add_argument("--rules", default="nintendo")
    args = parser.parse_args()
    rules_text = parse_rules(args.rules).with_option("rounds", "12").format()
    shm = Path("/dev/shm") if Path("/dev/shm").is_dir() else None
    places: list[tuple[str, str | None]] = [("no record", None)]
    if shm is not None:
        places.append(("record on tmpfs", tempfile.mkdtemp(prefix="koikoi-bench-", dir=shm)))
    places.append(("record on disk", tempfile.mkdtemp(prefix="koikoi-bench-")))
    print(
        f"{args.matches} matches of {rules_text} (12 rounds), {args.bot} vs {args.bot}, two processes over loopback TCP"
    )
    print(
        f"{'records':<16} {'s/match':>8} {'best':>7} {'ms/round':>9} {'matches/s':>10} {'KB sent':>8} "
        f"{'entries':>8} {'cpu s (host+guest)':>19}"
    )
    for label, directory in places:
        walls, per_round, sent, entries, cpu = [], [], [], [], []
        for seed in range(args.matches):
            out = one_match(rules_text, args.bot, seed, directory)
            # The guest's wall clock runs from its dial to the end: the whole match as a player sees it.
            wall = out["guest"]["wall"]
            walls.append(wall)
            per_round.append(wall / max(1, out["host"]["rounds"]))
            sent.append(out["host"]["sent"] + out["guest"]["sent"])
            entries.append(out["host"]["entries"])
            cpu.append(out["host"]["cpu"] + out["guest"]["cpu"])
        print(
            f"{label:<16} {statistics.mean(walls):>8.3f} {min(walls):>7.3f} {1000 * statistics.mean(per_round):>9.1f} "
            f"{1 / statistics.mean(walls):>10.2f} {statistics.mean(sent) / 1024:>8.1f} "
            f"{statistics.mean(entries):>8.0f} "
            f"{statistics.mean(cpu):>19.2f}"
        )
        if directory is not None:
            shutil.rmtree(directory, ignore_errors=True)
    print("target: < 0.4 s per 12-round match; reference: a socket.io bot server, ~2.5 games/s without crypto")


if __name__ == "__main__":
    main()
