"""Benchmark of the fair deal: prints CPU times, never asserts.

Run from the repository root with the project's environment::

    .venv/bin/python bench/deal.py [--repeat N] [--no-mentalpoker]

It prints, as CPU time (``time.process_time``) of this one process:

- raw group operations: a ristretto255 scalar multiplication and point check
  (libsodium through rbcl, what the protocol uses), PyNaCl's Ed25519
  multiplication and point check (the alternative), a 2048-bit ``pow``;
- one 48-card pass (shuffle, lock) and the check of a received deck;
- a full round deal for both sides in one process: secrets to commitments,
  the four passes, the initial reveals of both hands and the table; without
  the audit (the 15 ms target) and with it;
- the same kind of deal with the PyPI package ``mentalpoker`` 0.5.0 (52 cards,
  two players, four passes and 32 card decodes), measured in a subprocess in
  its own virtual environment ``bench/.venv-mentalpoker``, which this script
  creates and fills on first use; and the ratio of the two. If that fails,
  the reason is printed and our figures still are.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import nacl.bindings as nacl_bindings

from p2p_koikoi.fairness import DealContext, FairDeal, Message, Step, group
from p2p_koikoi.fairness.cardpoints import CARD_POINTS
from p2p_koikoi.fairness.derive import Contribution, derive_contribution
from p2p_koikoi.fairness.shuffle import deck_problem, lock, shuffle

HERE = Path(__file__).resolve().parent
MENTALPOKER_VENV = HERE / ".venv-mentalpoker"
MENTALPOKER_PACKAGES = ["mentalpoker==0.5.0", "ecdsa"]  # 0.5.0 imports ecdsa without requiring it

IDENTITY_KEYS = (bytes([1]) * 32, bytes([2]) * 32)


def cpu(fn: Callable[[], object], repeat: int, inner: int = 1) -> tuple[float, float]:
    """(best, median) CPU seconds per call of ``fn``, after one warm-up call, without GC pauses."""
    fn()
    times = []
    gc.collect()
    gc.disable()
    try:
        for _ in range(repeat):
            start = time.process_time()
            for _ in range(inner):
                fn()
            times.append((time.process_time() - start) / inner)
    finally:
        gc.enable()
    return min(times), statistics.median(times)


def fmt(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:8.1f} µs"
    return f"{seconds * 1e3:8.2f} ms"


def row(label: str, figures: tuple[float, float], note: str = "") -> None:
    best, median = figures
    print(f"  {label:<52} {fmt(median)} median  {fmt(best)} best  {note}")


# -- the deal, both sides in one process -------------------------------------------------------


def deliver(sides: tuple[FairDeal, FairDeal], outbox: list[tuple[int, Message]]) -> None:
    while outbox:
        sender, message = outbox.pop(0)
        step = sides[1 - sender].receive(message)
        outbox.extend((1 - sender, m) for m in step.send)


def both(sides: tuple[FairDeal, FairDeal], steps: tuple[Step, Step]) -> None:
    outbox = [(seat, m) for seat in (0, 1) for m in steps[seat].send]
    deliver(sides, outbox)


def deal(counter: list[int], audit: bool) -> None:
    counter[0] += 1
    context = DealContext(match_id=b"bench-match-0001", round=counter[0])
    secrets = (os.urandom(32), os.urandom(32))
    sides = (
        FairDeal(context, 0, IDENTITY_KEYS, secrets[0]),
        FairDeal(context, 1, IDENTITY_KEYS, secrets[1]),
    )
    both(sides, (sides[0].start(), sides[1].start()))
    both(sides, (sides[0].reveal_initial(), sides[1].reveal_initial()))
    assert len(sides[0].known) == len(sides[1].known) == 16
    if audit:
        both(sides, (sides[0].reveal_secret(), sides[1].reveal_secret()))
        assert sides[0].report is not None and sides[0].report == sides[1].report


# -- mentalpoker, in its own environment --------------------------------------------------------

MENTALPOKER_SCRIPT = r"""
import json, statistics, sys, time
from mentalpoker import DealerEC

def deal():
    alice, bob = DealerEC(), DealerEC()
    deck = alice.shuffle(alice.new_deck)   # A masks and shuffles
    deck = bob.shuffle(deck)               # B masks and shuffles
    deck = alice.deal(deck)                # A swaps its mask for per-card keys
    deck = bob.deal(deck)                  # B does the same
    # the same reveals as our deal: 8 cards to each player, 8 public cards decoded by both
    keys = lambda i: [alice.get_card_key(i), bob.get_card_key(i)]
    for i in range(16):
        alice.reveal_card(deck[i], keys(i))
    for i in range(16, 24):
        alice.reveal_card(deck[i], keys(i))
        bob.reveal_card(deck[i], keys(i))

repeat = int(sys.argv[1])
times = []
for _ in range(repeat):
    start = time.process_time()
    deal()
    times.append(time.process_time() - start)
print(json.dumps({"best": min(times), "median": statistics.median(times), "cards": 52}))
"""


def mentalpoker_python() -> Path:
    python = MENTALPOKER_VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    if not python.exists():
        print(f"  creating {MENTALPOKER_VENV.relative_to(HERE.parent)} and installing {MENTALPOKER_PACKAGES}")
        subprocess.run([sys.executable, "-m", "venv", str(MENTALPOKER_VENV)], check=True, capture_output=True)
    check = subprocess.run([str(python), "-c", "import mentalpoker, ecdsa"], capture_output=True)
    if check.returncode != 0:
        install = subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", *MENTALPOKER_PACKAGES],
            capture_output=True,
            text=True,
        )
        if install.returncode != 0:
            raise RuntimeError("pip install failed: " + (install.stderr.strip().splitlines() or ["?"])[-1])
    return python


def mentalpoker_figures(repeat: int) -> tuple[float, float]:
    """(best, median) CPU seconds of ``repeat`` mentalpoker deals in a fresh subprocess."""
    python = mentalpoker_python()
    run = subprocess.run(
        [str(python), "-c", MENTALPOKER_SCRIPT, str(repeat)], capture_output=True, text=True, timeout=600
    )
    if run.returncode != 0:
        raise RuntimeError("the mentalpoker run failed: " + (run.stderr.strip().splitlines() or ["?"])[-1])
    result = json.loads(run.stdout)
    return result["best"], result["median"]


# -- main ------------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30, help="deals measured (default 30)")
    parser.add_argument("--no-mentalpoker", action="store_true", help="skip the comparison")
    args = parser.parse_args()
    repeat = max(3, args.repeat)

    print(f"CPU time, one process, Python {sys.version.split()[0]}, {os.cpu_count()} CPUs\n")
    print("Raw operations")
    scalar = group.scalar_from_wide(os.urandom(64))
    point = CARD_POINTS[0]
    mult = cpu(lambda: group.mul(scalar, point), 15, 200)
    row("ristretto255 scalar multiplication (rbcl/libsodium)", mult)
    row("ristretto255 point check (decode)", cpu(lambda: group.is_valid_point(point), 15, 500))
    ed_point = nacl_bindings.crypto_core_ed25519_from_uniform(bytes(range(32)))
    ed_scalar = nacl_bindings.crypto_core_ed25519_scalar_reduce(os.urandom(64))
    row(
        "Ed25519 noclamp multiplication (PyNaCl/libsodium)",
        cpu(lambda: nacl_bindings.crypto_scalarmult_ed25519_noclamp(ed_scalar, ed_point), 15, 200),
        "checks the subgroup on every call",
    )
    row(
        "Ed25519 point check incl. subgroup (PyNaCl)",
        cpu(lambda: nacl_bindings.crypto_core_ed25519_is_valid_point(ed_point), 15, 200),
    )
    modulus = (1 << 2047) | 0x1D
    row("2048-bit pow (pure Python)", cpu(lambda: pow(3, modulus - 2, modulus), 3, 3))

    print("\nOne 48-card pass")
    contribution = derive_contribution(os.urandom(32), DealContext(b"bench"), IDENTITY_KEYS[0])
    masked = shuffle(CARD_POINTS, contribution)
    row("shuffle pass (permute, 48 multiplications)", cpu(lambda: shuffle(CARD_POINTS, contribution), repeat))
    row("lock pass (48 multiplications)", cpu(lambda: lock(masked, contribution), repeat))

    def fresh_factors() -> tuple[bytes, ...]:
        copy = Contribution(contribution.permutation, contribution.mask, contribution.unlock_keys)
        return copy.lock_factors

    row("lock factors (48 products, one batch inversion)", cpu(fresh_factors, repeat))
    row("check of a received deck (48 decodes, distinct)", cpu(lambda: deck_problem(masked), repeat))
    row(
        "derive a contribution and commit (HKDF)",
        cpu(lambda: FairDeal(DealContext(b"bench"), 0, IDENTITY_KEYS, os.urandom(32)), repeat),
    )

    print("\nA full round deal, both sides in one process")
    counter = [0]
    without = cpu(lambda: deal(counter, audit=False), repeat)
    row("deal without the audit (target: at most 15 ms)", without)
    full = cpu(lambda: deal(counter, audit=True), repeat)
    row("deal with the audit", full)
    # The machine's speed drifts: price a multiplication again, next to the deals.
    near = min(mult[0], cpu(lambda: group.mul(scalar, point), 15, 200)[0])
    floor = 4 * 48 * near
    print(
        f"  {'floor, 4 x 48 multiplications (best figures)':<52} {fmt(floor)}"
        f"\n  the deal without the audit costs {without[0] / near:.0f} multiplications' worth"
        f" (4 x 48 in the passes, 32 to open 2 hands and the table by both, plus checks)"
    )

    print("\nAgainst mentalpoker 0.5.0 (52 cards, four passes, 32 decodes; its own venv, subprocess)")
    if args.no_mentalpoker:
        print("  skipped (--no-mentalpoker)")
        return
    # Interleaved, so that both see the same machine even if its speed drifts.
    ours: list[float] = []
    theirs: list[float] = []
    try:
        for _ in range(5):
            theirs.append(mentalpoker_figures(1)[1])
            ours.append(cpu(lambda: deal(counter, audit=False), 5)[1])
    except (OSError, RuntimeError, subprocess.SubprocessError, ValueError) as error:
        print(f"  not measured: {error}")
        return
    mine, other = statistics.median(ours), statistics.median(theirs)
    row("mentalpoker DealerEC deal (secp256k1 via ecdsa)", (min(theirs), other))
    row("ours, deal without the audit (48 cards), interleaved", (min(ours), mine))
    print(f"  ratio mentalpoker / ours: {other / mine:.1f}x (medians of 5 interleaved runs)")
    print(f"  per card: {other / 52 / (mine / 48):.1f}x")
    print("  (mentalpoker encodes cards as i*G, so anyone can tell masked cards apart)")


if __name__ == "__main__":
    main()
