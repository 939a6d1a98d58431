"""How long ``koikoi history`` takes over a folder of many records, the first time (every record checked
by ``koikoi verify``'s own walk) and the second (verdicts read from the cache, every file hashed again).

    python bench/history.py                      # 1,000 records (made first: several minutes on 2 cores)
    python bench/history.py --records 200 --keep /tmp/history-bench   # keep them for the next run

Every record is a distinct real match (``p2p_koikoi/testing/history_records.py``): its own label, so its
own deal, proofs and signatures. Copies of one record would not do: the cache keys verdicts by content, so a
thousand copies are one verdict. Most are short (a forfeit or a claim of silence early in round 1, one deal
proved and audited), one in ten is played out over three rounds, as a folder of real play would mix them.
Times are the real command in a process of its own (``python -m p2p_koikoi history``), start-up included.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

from p2p_koikoi.testing import deterministic_entropy
from p2p_koikoi.testing.history_records import Finish, MatchPlan, write_record


def key(label: str) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(deterministic_entropy(label.encode())(32))


ME = key("bench me")
THEM = [key(f"bench opponent {i}") for i in range(5)]


def plan(number: int) -> MatchPlan:
    them = THEM[number % len(THEM)]
    label = f"bench match {number}"
    kind = number % 10
    if kind == 0:
        return MatchPlan(label, (ME, them))
    if kind in (1, 2, 3):
        return MatchPlan(label, (ME, them), Finish.QUIT, actor=1)
    if kind in (4, 5):
        return MatchPlan(label, (them, ME), Finish.QUIT, actor=1, kept=1)
    if kind in (6, 7):
        return MatchPlan(label, (ME, them), Finish.CLAIM, actor=0)
    return MatchPlan(label, (them, ME), Finish.QUIT, actor=0, kept=1)


def make(args: tuple[Path, int]) -> None:
    folder, number = args
    write_record(folder, plan(number), number)


def home_with_records(home: Path, count: int, jobs: int) -> Path:
    (home / "config").mkdir(parents=True, exist_ok=True)
    pem = ME.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
    (home / "config" / "identity.pem").write_bytes(pem)
    replays = home / "data" / "replays"
    replays.mkdir(parents=True, exist_ok=True)
    have = len(list(replays.glob("*.koikoi")))
    if have < count:
        started = time.monotonic()
        with ProcessPoolExecutor(jobs) as pool:
            list(pool.map(make, [(replays, n) for n in range(have, count)], chunksize=4))
        print(f"made {count - have} records in {time.monotonic() - started:.0f} s", flush=True)
    return replays


def run(home: Path) -> tuple[float, str]:
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "p2p_koikoi", "history", "--ratings"],
        env={**os.environ, "KOIKOI_HOME": str(home)},
        capture_output=True,
        text=True,
        check=True,
    )
    return time.monotonic() - started, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes making the records")
    parser.add_argument(
        "--keep", type=Path, help="a folder to make the records in and keep them (else a temporary one)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = args.keep or Path(tmp)
        replays = home_with_records(home, args.records, args.jobs)
        (home / "data" / "history-cache.json").unlink(missing_ok=True)
        size = sum(p.stat().st_size for p in replays.glob("*.koikoi"))
        print(f"{args.records} records, {size / 1e6:.1f} MB, on {os.cpu_count()} cores")
        first, out = run(home)
        print(f"first run (every record checked): {first:.2f} s")
        second, again = run(home)
        print(f"second run (verdicts from the cache, every file hashed): {second:.2f} s")
        assert again == out, "the second run says something else"
        print(out.splitlines()[0])


if __name__ == "__main__":
    main()
