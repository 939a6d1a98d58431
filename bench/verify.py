"""How fast ``koikoi verify`` is: one 12-round match, then a folder of matches on every core.

    python bench/verify.py [--matches 100] [--rules nintendo] [--repeat 7]
    python bench/verify.py --vs b0c69a5 [--rounds-of 3] [--repeat 5]

``--vs REF`` measures this tree and the commit REF side by side in one run: each tree, in a process of
its own importing it (the other tree unpacked from git into a temporary folder), plays the same seeded
12-round match and verifies its own record ``--repeat`` times, alternating which tree goes first; the
ratio of the best CPU times (this tree / REF) is the figure to read on a shared machine.

The matches are played first, in memory between two random bots (``pipe_sessions``, the whole protocol
with real keys and secrets), on every core, and written as records to a temporary folder. Then:

- one 12-round match: ``verify_file`` (read the file, audit every deal, check every entry), wall and
  CPU time, best and median of ``--repeat`` runs; target (issue 12, every proof checked) at most
  1.5 s of CPU; the CPU counts both threads where the group work is split over two cores;
- the whole folder: ``verify_paths`` on every core (one process per core), matches per second.

Nearly all the time goes to the group arithmetic of the deals (checking the four proofs of every deck
pass, about 900 scalar multiplications per deal, and the audits re-deriving both players' passes, about
200 more; 13 deals or more a match) and to the Ed25519 signatures (one per entry),
so the figures follow the machine's speed, which drifts; the CPU time of
the group work alone is printed next to them for comparison.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from p2p_koikoi.app.records import verify_file, verify_paths
from p2p_koikoi.bots import RandomAgent
from p2p_koikoi.engine import preset
from p2p_koikoi.fairness import group
from p2p_koikoi.record.writer import RecordWriter
from p2p_koikoi.testing import pipe_sessions, session_pair


def play_one(job: tuple[str, int, str]) -> tuple[str, int]:
    """Play one match and write the host's record; returns its path and its number of entries."""
    rules_name, seed, folder = job
    pair = session_pair(preset(rules_name))
    error = pipe_sessions(pair, (RandomAgent(seed), RandomAgent(seed + 1)))
    assert error is None, error
    writer = RecordWriter(Path(folder), lambda: f"match-{seed:04d}.koikoi", seat=0)
    writer.sync(pair.host.chain.entries)
    writer.close()
    assert writer.path is not None
    return str(writer.path), len(pair.host.chain.entries)


def multiplication_cost(count: int = 2000) -> float:
    scalar = group.scalar_from_wide(bytes(range(64)))
    point = group.mul_base(scalar)
    start = time.process_time()
    for _ in range(count):
        group.mul(scalar, point)
    return (time.process_time() - start) / count


def one(rules_name: str, repeat: int) -> None:
    """Play one seeded match with the tree on ``sys.path``, verify its record ``repeat`` times, print JSON."""
    import json

    from p2p_koikoi.testing import deterministic_entropy

    pair = session_pair(preset(rules_name), deterministic_entropy(b"bench verify"))
    assert pipe_sessions(pair, (RandomAgent(1), RandomAgent(2))) is None
    with tempfile.TemporaryDirectory() as tmp:
        writer = RecordWriter(Path(tmp), lambda: "match.koikoi", seat=0)
        writer.sync(pair.host.chain.entries)
        writer.close()
        assert writer.path is not None
        cpus, walls = [], []
        for _ in range(repeat):
            wall, cpu = time.perf_counter(), time.process_time()
            report = verify_file(writer.path)
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
            assert report.verdict == "verified", report.finding
        size = writer.path.stat().st_size
    print(json.dumps({"cpu": min(cpus), "wall": min(walls), "entries": len(pair.host.chain.entries), "bytes": size}))


def compare(ref: str, rules_name: str, repeat: int, runs: int) -> None:
    """This tree against commit ``ref``: alternating processes, the same match, best CPU and the ratio."""
    import json
    import subprocess

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from trees import ROOT, unpacked

    print(f"one 12-round {rules_name} match verified {repeat} times a run, {runs} runs a tree, alternating")
    with unpacked(ref) as other:
        trees = [("this tree", ROOT), (ref[:10], other)]
        results: dict[str, list[dict[str, float]]] = {name: [] for name, _ in trees}
        for n in range(runs):
            for name, tree in trees if n % 2 == 0 else reversed(trees):
                command = [sys.executable, str(Path(__file__).resolve()), "--one", "--rules", rules_name]
                command += ["--repeat", str(repeat)]
                env = {**os.environ, "PYTHONPATH": str(tree)}
                done = subprocess.run(command, env=env, capture_output=True, text=True, check=False, timeout=900)
                if done.returncode != 0:
                    raise SystemExit(f"bench: verifying under {tree} failed:\n{done.stderr}")
                results[name].append(json.loads(done.stdout.splitlines()[-1]))
    print(f"{'tree':<12} {'entries':>8} {'KB':>6} {'best cpu ms':>12} {'best wall ms':>13}")
    best = {}
    for name, outs in results.items():
        best[name] = min(o["cpu"] for o in outs)
        first = outs[0]
        print(
            f"{name:<12} {first['entries']:>8.0f} {first['bytes'] / 1024:>6.0f} {best[name] * 1000:>12.0f} "
            f"{min(o['wall'] for o in outs) * 1000:>13.0f}"
        )
    mine, theirs = best["this tree"], best[ref[:10]]
    print(f"ratio this tree / {ref[:10]}: {mine / theirs:.2f} (CPU, best of each; below 1: faster)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--rules", default="nintendo")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--vs", metavar="REF", help="measure this tree against commit REF, side by side")
    parser.add_argument("--runs", type=int, default=4, help="with --vs: processes a tree")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        one(args.rules, args.repeat)
        return
    if args.vs:
        compare(args.vs, args.rules, args.repeat, args.runs)
        return
    cores = os.cpu_count() or 1
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        jobs = [(args.rules, seed, tmp) for seed in range(1, args.matches + 1)]
        with ProcessPoolExecutor(cores) as pool:
            made = list(pool.map(play_one, jobs))
        entries = sum(n for _, n in made)
        print(
            f"played {len(made)} {args.rules} matches of {preset(args.rules).rounds} rounds "
            f"({entries} entries) on {cores} cores in {time.perf_counter() - start:.1f} s"
        )

        first = Path(made[0][0])
        walls, cpus = [], []
        for _ in range(args.repeat):
            wall, cpu = time.perf_counter(), time.process_time()
            report = verify_file(first)
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
            assert report.verdict == "verified", report.finding
        print(
            f"one {preset(args.rules).rounds}-round match ({made[0][1]} entries, {first.stat().st_size // 1024} KB, "
            f"{len(report.rounds)} deals counted): best {min(walls) * 1000:.0f} ms, "
            f"median {statistics.median(walls) * 1000:.0f} ms wall; best {min(cpus) * 1000:.0f} ms CPU "
            f"(target: at most 1500 ms)"
        )

        wall = time.perf_counter()
        reports = verify_paths([Path(tmp)])
        elapsed = time.perf_counter() - wall
        bad = [r for r in reports if r.verdict != "verified"]
        assert not bad, bad[0].finding
        print(
            f"a folder of {len(reports)} matches on {cores} cores: {elapsed:.1f} s, "
            f"{len(reports) / elapsed:.1f} matches per second"
        )
    print(f"for scale: one ristretto255 scalar multiplication costs {multiplication_cost() * 1e6:.0f} us of CPU now")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
