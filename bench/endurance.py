"""Endurance: many matches of two bot processes over loopback TCP, some of them killed and resumed.

Each match is `koikoi host --bot` and `koikoi join --bot` in two processes; every ``--resume-every``-th
match the guest is killed with SIGKILL mid-match and finished with `koikoi resume`. It reports the
failures (target 0), the mean and maximum match time (process start to both exits), and the peak
memory of a peer (the largest resident set of any child process, target under 100 MB).

    python bench/endurance.py [--matches 200] [--resume-every 5] [--jobs 2]
"""

from __future__ import annotations

import argparse
import resource
import signal
import statistics
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from p2p_koikoi.testing import KOIKOI, free_port, koikoi_env, spawn_host


def one_match(number: int, root: Path, resume: bool) -> tuple[bool, float, str]:
    """Play match ``number``; returns (ok, seconds, what went wrong)."""
    start = time.monotonic()
    port = free_port()
    replays = root / f"m{number}"
    env_guest = koikoi_env(root / "guest")
    host = spawn_host(root / "host", port, replays, "--bot", "random", "--seed", str(number), "-q")
    try:
        guest_args = [
            *KOIKOI,
            "join",
            f"127.0.0.1:{port}",
            "--bot",
            "greedy",
            "--seed",
            str(number + 1),
            "--replay-dir",
            str(replays),
            "-q",
        ]
        guest = subprocess.Popen(guest_args, env=env_guest, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if resume:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and guest.poll() is None:
                records = list(replays.glob("*-guest.koikoi"))
                if records and records[0].stat().st_size > 30_000:
                    break
                time.sleep(0.01)
            if guest.poll() is None:
                guest.send_signal(signal.SIGKILL)
                guest.wait(timeout=10)
                (record,) = replays.glob("*-guest.koikoi")
                guest = subprocess.Popen(
                    [*KOIKOI, "resume", str(record), "--bot", "greedy", "--seed", str(number + 1), "-q"],
                    env=env_guest,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                )
        guest_err = guest.communicate(timeout=300)[1]
        host_err = host.communicate(timeout=120)[1]
        if guest.returncode or host.returncode:
            return (
                False,
                time.monotonic() - start,
                f"exit codes {host.returncode}/{guest.returncode}: "
                + ((guest_err or b"").decode(errors="replace")[-300:] + host_err[-300:]),
            )
        hosts, guests = list(replays.glob("*-host.koikoi")), list(replays.glob("*-guest.koikoi"))
        if not hosts or not guests or hosts[0].read_bytes()[-200:] == b"":
            return False, time.monotonic() - start, "a record is missing"
        return True, time.monotonic() - start, ""
    finally:
        host.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--resume-every", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="koikoi-endurance-") as tmp:
        root = Path(tmp)
        started = time.monotonic()
        with ThreadPoolExecutor(args.jobs) as pool:
            futures = [
                pool.submit(one_match, n, root, args.resume_every > 0 and n % args.resume_every == 0)
                for n in range(args.matches)
            ]
            results = [f.result() for f in futures]
        wall = time.monotonic() - started
    failures = [(n, why) for n, (ok, _, why) in enumerate(results) if not ok]
    times = [t for _, t, _ in results]
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    resumed = sum(1 for n in range(args.matches) if args.resume_every > 0 and n % args.resume_every == 0)
    print(f"{args.matches} matches ({resumed} killed and resumed), {args.jobs} at a time, in {wall:.0f} s")
    print(f"failures: {len(failures)} (target 0)")
    for n, why in failures[:10]:
        print(f"  match {n}: {why}")
    print(f"match time (two processes, start to exit): mean {statistics.mean(times):.2f} s, max {max(times):.2f} s")
    print(f"peak memory of a peer: {peak_kb / 1024:.1f} MB (target < 100 MB)")


if __name__ == "__main__":
    main()
