"""A full 12-round match between two bots over loopback TCP, with the whole protocol.

Two processes (one per peer, as in real play) run the handshake, the fair deal
of every round with its audit, signed entries checked by both sides, and the
records, then the figures are printed: wall time per match and per round,
bytes sent, entries. Records go to a tmpfs folder (fsync is nearly free
there), to the disk under /tmp (fsync costs a few ms on this machine), or
nowhere, so the cost of durability shows separately.

    python bench/match.py [--matches 5] [--bot random] [--rules nintendo]
    python bench/match.py --vs b0c69a5 [--matches 6]

``--vs REF`` measures this tree and the commit REF side by side in one run:
REF is unpacked into a temporary folder (``git archive``), and each match is
played by a fresh process importing one tree or the other, alternating which
goes first, so both see the same load; the ratio (this tree / REF) is printed.
On a shared, noisy machine the ratio is the figure to read, not the seconds.

Target: under 0.4 s per 12-round match. For comparison, an existing Koi-Koi bot
server over socket.io plays about 2.5 games/s with no cryptography at all.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import shutil
import statistics
import subprocess
import sys
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from trees import unpacked


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


ROOT = Path(__file__).resolve().parent.parent
HEADER = (
    f"{'records':<16} {'s/match':>8} {'best':>7} {'ms/round':>9} {'matches/s':>10} {'KB sent':>8} "
    f"{'entries':>8} {'cpu s (host+guest)':>19}"
)


def places() -> list[tuple[str, str | None]]:
    """Where records go: nowhere, a tmpfs folder (if there is one), a folder on the disk."""
    shm = Path("/dev/shm") if Path("/dev/shm").is_dir() else None
    out: list[tuple[str, str | None]] = [("no record", None)]
    if shm is not None:
        out.append(("record on tmpfs", tempfile.mkdtemp(prefix="koikoi-bench-", dir=shm)))
    out.append(("record on disk", tempfile.mkdtemp(prefix="koikoi-bench-")))
    return out


def row(label: str, outs: list[dict[str, Any]]) -> str:
    walls = [o["guest"]["wall"] for o in outs]  # from the guest's dial to the end: the match a player sees
    per_round = [o["guest"]["wall"] / max(1, o["host"]["rounds"]) for o in outs]
    sent = [o["host"]["sent"] + o["guest"]["sent"] for o in outs]
    cpu = [o["host"]["cpu"] + o["guest"]["cpu"] for o in outs]
    return (
        f"{label:<16} {statistics.mean(walls):>8.3f} {min(walls):>7.3f} {1000 * statistics.mean(per_round):>9.1f} "
        f"{1 / statistics.mean(walls):>10.2f} {statistics.mean(sent) / 1024:>8.1f} "
        f"{statistics.mean(o['host']['entries'] for o in outs):>8.0f} {statistics.mean(cpu):>19.2f}"
    )


def match_in(tree: Path, rules_text: str, bot: str, seed: int, directory: str | None) -> dict[str, Any]:
    """One match played by a fresh process importing ``p2p_koikoi`` from ``tree``; it runs this same
    script, so both trees are measured the same way."""
    command = [sys.executable, str(Path(__file__).resolve()), "--one", "--rules", rules_text, "--bot", bot]
    if directory is not None:  # a folder of its own: the other tree plays the same seed
        command += ["--dir", tempfile.mkdtemp(dir=directory)]
    command += ["--seed", str(seed)]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"bench: a match under {tree} failed:\n{done.stderr}")
    return dict(json.loads(done.stdout.splitlines()[-1]))


def compare(ref: str, rules_text: str, bot: str, matches: int) -> None:
    """This tree against commit ``ref``, alternating, in one run; prints both and the ratios."""
    print(f"{matches} matches each of {rules_text} (12 rounds), {bot} vs {bot}, two processes over loopback TCP")
    print(f"this tree against {ref}, alternating; ratio = this tree / {ref} (below 1: faster)")
    print(f"{'records':<16} {'tree':<10} {'s/match':>8} {'best':>7} {'cpu s':>7} {'ratio s':>8} {'ratio cpu':>10}")
    with unpacked(ref) as other:
        trees = [("this tree", ROOT), (ref[:10], other)]
        for label, directory in places():
            outs: dict[str, list[dict[str, Any]]] = {name: [] for name, _ in trees}
            for seed in range(matches):
                for name, tree in trees if seed % 2 == 0 else trees[::-1]:
                    outs[name].append(match_in(tree, rules_text, bot, seed, directory))
            wall = {n: statistics.mean(o["guest"]["wall"] for o in outs[n]) for n in outs}
            best = {n: min(o["guest"]["wall"] for o in outs[n]) for n in outs}
            cpu = {n: statistics.mean(o["host"]["cpu"] + o["guest"]["cpu"] for o in outs[n]) for n in outs}
            mine, theirs = (name for name, _ in trees)
            for name in (mine, theirs):
                ratios = f"{wall[mine] / wall[theirs]:>8.2f} {cpu[mine] / cpu[theirs]:>10.2f}" if name == mine else ""
                print(f"{label:<16} {name:<10} {wall[name]:>8.3f} {best[name]:>7.3f} {cpu[name]:>7.2f} {ratios}")
            if directory is not None:
                shutil.rmtree(directory, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=5)
    parser.add_argument("--bot", default="random")
    parser.add_argument("--rules", default="nintendo")
    parser.add_argument("--vs", metavar="REF", help="also measure commit REF, side by side, and print the ratios")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # one match as JSON, for --vs
    parser.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--dir", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one_match(args.rules, args.bot, args.seed, args.dir)))
        return
    rules_text = parse_rules(args.rules).with_option("rounds", "12").format()
    if args.vs:
        compare(args.vs, rules_text, args.bot, args.matches)
        return
    print(
        f"{args.matches} matches of {rules_text} (12 rounds), {args.bot} vs {args.bot}, two processes over loopback TCP"
    )
    print(HEADER)
    for label, directory in places():
        print(row(label, [one_match(rules_text, args.bot, seed, directory) for seed in range(args.matches)]))
        if directory is not None:
            shutil.rmtree(directory, ignore_errors=True)
    print("target: < 0.4 s per 12-round match; reference: a socket.io bot server, ~2.5 games/s without crypto")


if __name__ == "__main__":
    main()
