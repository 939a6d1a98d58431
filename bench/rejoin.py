"""What a rejoin costs the host before it answers: finding the unfinished match, rebuilding it.

    python bench/rejoin.py [--records 1000] [--rules nintendo] [--repeat 5]

``koikoi host`` and ``koikoi join`` look through the replay folder at every greeting
(:func:`~p2p_koikoi.app.unfinished.find_unfinished`: the records that still have a secret beside them,
only their first two frames read), then rebuild the match found (:func:`restore_match`: every entry
replayed, our own written again from the master secret and compared, the deal audits done). One
12-round match is played in memory; the folder holds ``--records`` copies of it under other names,
a tenth of them with a secret beside (none of them with the peer asked for, so every one is read),
plus the one unfinished match that is found. Printed: the search, best and median of ``--repeat``,
and the rebuild of the whole match.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from p2p_koikoi.app.unfinished import find_unfinished, restore_match
from p2p_koikoi.bots import RandomAgent
from p2p_koikoi.engine import preset
from p2p_koikoi.record.format import secret_path
from p2p_koikoi.record.writer import RecordWriter, write_secret
from p2p_koikoi.testing import deterministic_entropy, pipe_sessions, session_pair
from p2p_koikoi.wire import public_bytes


def timed(repeat: int, run: Callable[[], object]) -> tuple[float, float]:
    """Best and median wall seconds of ``repeat`` calls of ``run``."""
    walls = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        walls.append(time.perf_counter() - start)
    return min(walls), statistics.median(walls)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--rules", default="nintendo")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    pair = session_pair(preset(args.rules), deterministic_entropy(b"bench rejoin"))
    assert pipe_sessions(pair, (RandomAgent(1), RandomAgent(2))) is None
    entries = pair.host.chain.entries
    cut = len(entries) - 10  # unfinished: ten entries before the end
    host_key, guest_key = (public_bytes(key) for key in pair.keys)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for n in range(args.records):
            writer = RecordWriter(folder, lambda n=n: f"other-{n:05d}.koikoi", seat=1)  # guest's copies
            writer.sync(entries)
            writer.close()
            if n % 10 == 0 and writer.path is not None:
                write_secret(secret_path(writer.path), bytes(32))
        writer = RecordWriter(folder, lambda: "unfinished.koikoi", seat=0, secret=pair.host.master_secret)
        writer.sync(entries[:cut])
        writer.close()
        found = find_unfinished(folder, host_key, guest_key)
        assert found is not None and found.name == "unfinished.koikoi"
        size = found.stat().st_size
        best, median = timed(args.repeat, lambda: find_unfinished(folder, host_key, guest_key))
        secrets = args.records // 10 + 1
        print(f"find_unfinished, {args.records + 1} records ({secrets} with a secret, {size // 1024} KB each):")
        print(f"  best {best * 1000:.1f} ms, median {median * 1000:.1f} ms")
        best, median = timed(args.repeat, lambda: restore_match(found, pair.keys[0]))
        print(f"restore_match, {cut} entries ({args.rules}, 12 rounds or fewer):")
        print(f"  best {best * 1000:.0f} ms, median {median * 1000:.0f} ms")


if __name__ == "__main__":
    main()
