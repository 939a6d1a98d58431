"""Benchmark of the fair deal: prints CPU times, never asserts.

Run from the repository root with the project's environment::

    .venv/bin/python bench/deal.py [--repeat N] [--no-mentalpoker]

It prints, as CPU time (``time.process_time``) of this one process:

- raw group operations: a ristretto255 scalar multiplication and point check
  (libsodium through rbcl, what the protocol uses), PyNaCl's Ed25519
  multiplication and point check (the alternative), a 2048-bit ``pow``;
- one 48-card pass (shuffle, lock) and the check of a received deck;
- a full round deal for both sides in one process: secrets to commitments,
  the four proved passes, the initial reveals of both hands and the table;
  without the audit and with it;
- the proofs (protocol version 2): prove and verify one shuffle-pass proof
  (targets: at most 100 ms each) and one lock-pass proof, the check of a key
  against its commitment; a whole proof-carrying round (commitments, four
  proved passes, the initial reveals, 8 shows and 16 draws, the audit) as CPU
  per side (target: at most 150 ms), its proof bytes, and the floor: the
  group operations it needs, counted, times the measured cost of one;
- the deal's critical path, as wall-clock time: a shuffle proof made and
  checked on one core and on two (``fairness/spread.py``), and the locking
  of one round's deck from the first commitment to the last checked pass,
  everything either seat does in turn while the other waits, with seat 0's
  first pass made beforehand, during the previous round (``fairness/ahead.py``),
  or not; issue 12 asks for that pipelining;
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

from p2p_koikoi.fairness import DealContext, Deck, FairDeal, Message, Step, group, spread
from p2p_koikoi.fairness.ahead import PassAhead
from p2p_koikoi.fairness.cardpoints import CARD_POINTS
from p2p_koikoi.fairness.derive import Contribution, binding, derive_contribution
from p2p_koikoi.fairness.dleq import LockStatement, prove_lock, verify_lock
from p2p_koikoi.fairness.passproof import key_matches, make_pass
from p2p_koikoi.fairness.shuffle import deck_problem, lock, shuffle
from p2p_koikoi.fairness.shuffle_proof import ShuffleStatement, prove_shuffle, verify_shuffle

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


# -- the proofs ---------------------------------------------------------------------------------

GROUP_OPERATIONS = {
    "mul": "variable-base multiplication",
    "mul_any": "variable-base multiplication",
    "mul_base": "fixed-base multiplication",
    "mul_base_any": "fixed-base multiplication",
    "add": "point addition",
    "sub": "point addition",
    "is_valid_point": "point decode",
    "is_valid_element": "point decode",
}


class Meter:
    """CPU time and group operations per seat, over the calls made on that seat's FairDeal."""

    def __init__(self) -> None:
        self.seat = 0
        self.cpu = [0.0, 0.0]
        self.counts: list[dict[str, int]] = [{}, {}]
        self._saved: dict[str, Callable[..., object]] = {}

    def __enter__(self) -> Meter:
        for name, kind in GROUP_OPERATIONS.items():
            original = getattr(group, name)
            self._saved[name] = original

            def counted(*args: object, _original: Callable[..., object] = original, _kind: str = kind) -> object:
                counts = self.counts[self.seat]
                counts[_kind] = counts.get(_kind, 0) + 1
                return _original(*args)

            setattr(group, name, counted)
        return self

    def __exit__(self, *exc: object) -> None:
        for name, original in self._saved.items():
            setattr(group, name, original)

    def call(self, seat: int, fn: Callable[..., Step], *args: object) -> Step:
        self.seat = seat
        start = time.process_time()
        try:
            return fn(*args)
        finally:
            self.cpu[seat] += time.process_time() - start


def metered_round(meter: Meter, round_number: int) -> int:
    """A whole round, both sides in one process, each call charged to its seat; returns proof bytes."""
    context = DealContext(match_id=b"bench-match-0002", round=round_number)
    sides = tuple(FairDeal(context, s, IDENTITY_KEYS, os.urandom(32)) for s in (0, 1))

    def run(steps: list[tuple[int, Step]]) -> None:
        outbox = [(seat, m) for seat, step in steps for m in step.send]
        while outbox:
            sender, message = outbox.pop(0)
            step = meter.call(1 - sender, sides[1 - sender].receive, message)
            outbox.extend((1 - sender, m) for m in step.send)

    def on_both(call: Callable[[FairDeal], Step]) -> None:
        run([(seat, meter.call(seat, call, sides[seat])) for seat in (0, 1)])

    on_both(FairDeal.start)
    on_both(FairDeal.reveal_initial)
    for turn in range(8):
        for seat in (0, 1):
            position = sides[seat].plan.hand(seat)[turn]
            run([(seat, meter.call(seat, sides[seat].show, [position]))])
            on_both(FairDeal.draw)
    on_both(FairDeal.reveal_secret)
    assert sides[0].report is not None and sides[0].report == sides[1].report
    return sum(len(m.proof) for _, m in sides[0].transcript if isinstance(m, Deck))


def proof_figures(repeat: int) -> None:
    print("\nProofs (deal protocol v2)")
    context = DealContext(b"bench-proofs", 1)
    secret = os.urandom(32)
    contribution = derive_contribution(secret, context, IDENTITY_KEYS[0])
    outputs = shuffle(CARD_POINTS, contribution)
    statement = ShuffleStatement(binding(context, IDENTITY_KEYS[0]), 1, CARD_POINTS, outputs)
    proof = prove_shuffle(statement, contribution.permutation, contribution.mask, secret)
    small = max(3, repeat // 3)
    row(
        "one shuffle-pass proof, prove (target: at most 100 ms)",
        cpu(lambda: prove_shuffle(statement, contribution.permutation, contribution.mask, secret), small),
    )
    row("one shuffle-pass proof, verify (target: at most 100 ms)", cpu(lambda: verify_shuffle(statement, proof), small))
    locked = lock(outputs, contribution)
    scalars = [group.scalar_mul(contribution.mask, key) for key in contribution.unlock_keys]
    lock_statement = LockStatement(binding(context, IDENTITY_KEYS[0]), 3, outputs, locked)
    lock_proof = prove_lock(lock_statement, scalars, secret)
    row("one lock-pass proof (48 DLEQ), prove", cpu(lambda: prove_lock(lock_statement, scalars, secret), small))
    row("one lock-pass proof (48 DLEQ), verify", cpu(lambda: verify_lock(lock_statement, lock_proof), small))
    first = make_pass(1, context, IDENTITY_KEYS[0], contribution, secret, CARD_POINTS)
    third = make_pass(3, context, IDENTITY_KEYS[0], contribution, secret, first.points)
    key = contribution.unlock_keys[5]
    row("check of one key against its commitment", cpu(lambda: key_matches(first, third, 5, key), 15, 50))
    print(f"  proof bytes: shuffle {len(proof.to_bytes())}, lock {len(lock_proof.to_bytes())}")

    rounds = max(3, repeat // 3)
    per_side: list[list[float]] = [[], []]
    with Meter() as meter:
        proof_bytes = metered_round(meter, 1)  # warm-up, and the operation counts of one round
        counts = [dict(c) for c in meter.counts]
        for number in range(2, 2 + rounds):
            meter.cpu = [0.0, 0.0]
            metered_round(meter, number)
            for seat in (0, 1):
                per_side[seat].append(meter.cpu[seat])
    print(f"  a whole round (start, 4 proved passes, initial reveals, 8 shows and 16 draws, audit), {rounds} rounds:")
    for seat in (0, 1):
        row(
            f"  CPU of seat {seat} per round (target: at most 150 ms)",
            (min(per_side[seat]), statistics.median(per_side[seat])),
        )
    print(f"  proof bytes per round: {proof_bytes} (the four Deck messages carry {proof_bytes + 4 * 1539} bytes)")
    costs = {
        "variable-base multiplication": cpu(lambda: group.mul(scalar_sample, point_sample), 15, 200)[0],
        "fixed-base multiplication": cpu(lambda: group.mul_base(scalar_sample), 15, 200)[0],
        "point addition": cpu(lambda: group.add(point_sample, point_sample), 15, 200)[0],
        "point decode": cpu(lambda: group.is_valid_point(point_sample), 15, 200)[0],
    }
    for seat in (0, 1):
        floor = sum(counts[seat].get(kind, 0) * cost for kind, cost in costs.items())
        parts = ", ".join(f"{counts[seat].get(kind, 0)} {kind}s x {fmt(cost).strip()}" for kind, cost in costs.items())
        print(f"  floor of seat {seat}: {fmt(floor).strip()} = {parts}")


scalar_sample = group.scalar_from_wide(bytes(range(64)))
point_sample = CARD_POINTS[0]


# -- the critical path, wall-clock --------------------------------------------------------------


def once(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def locked_deck(counter: list[int], made_ahead: bool) -> float:
    """Wall seconds from the commitments to a locked deck on both sides, everything in turn."""
    counter[0] += 1
    context = DealContext(match_id=b"bench-critical-path", round=counter[0])
    secrets = (os.urandom(32), os.urandom(32))
    ahead = PassAhead(IDENTITY_KEYS[0], lambda _: secrets[0]) if made_ahead else None
    if ahead is not None:
        ahead.prepare(context)
        ahead.finish()  # made during the previous round's play
    start = time.perf_counter()
    sides = (
        FairDeal(context, 0, IDENTITY_KEYS, secrets[0], ahead=ahead),
        FairDeal(context, 1, IDENTITY_KEYS, secrets[1]),
    )
    both(sides, (sides[0].start(), sides[1].start()))
    assert sides[0].final_deck is not None
    elapsed = time.perf_counter() - start
    if ahead is not None:  # the next round's pass, begun at the lock, is done before the next measurement
        ahead.finish()
    return elapsed


def critical_path_figures(repeat: int) -> None:
    """Each configuration measured in turn, round after round, so that all see the same machine."""
    print("\nThe deal's critical path (wall-clock, one process; the other core idle as in a real deal)")
    context = DealContext(b"bench-wall", 1)
    secret = os.urandom(32)
    contribution = derive_contribution(secret, context, IDENTITY_KEYS[0])
    first = make_pass(1, context, IDENTITY_KEYS[0], contribution, secret, CARD_POINTS)
    statement = ShuffleStatement(binding(context, IDENTITY_KEYS[0]), 1, CARD_POINTS, first.points)
    proof = prove_shuffle(statement, contribution.permutation, contribution.mask, secret)
    counter = [0]
    permutation, mask = contribution.permutation, contribution.mask
    measures: dict[str, Callable[[], float]] = {
        "prove": lambda: once(lambda: prove_shuffle(statement, permutation, mask, secret)),
        "verify": lambda: once(lambda: verify_shuffle(statement, proof)),
        "pass 1 in turn": lambda: locked_deck(counter, made_ahead=False),
        "pass 1 made ahead": lambda: locked_deck(counter, made_ahead=True),
    }
    times: dict[tuple[bool, str], list[float]] = {(split, name): [] for split in (False, True) for name in measures}
    for _ in range(max(5, repeat // 2)):
        for split in (False, True):
            previous = spread.set_enabled(split)
            try:
                for name, measure in measures.items():
                    times[split, name].append(measure())
            finally:
                spread.set_enabled(previous)
    for split in (False, True):
        where = "two cores" if split else "one core "
        for name in measures:
            what = (
                f"shuffle proof on {where}, {name}" if name in ("prove", "verify") else f"deck locked, {where}, {name}"
            )
            row(what, (min(times[split, name]), statistics.median(times[split, name])))


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


def raw_figures() -> float:
    """The raw group operations; returns the best CPU seconds of one ristretto255 multiplication."""
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
    return mult[0]


def pass_figures(repeat: int) -> None:
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


def round_figures(repeat: int, multiplication: float, counter: list[int]) -> None:
    print("\nA full round deal, both sides in one process")
    without = cpu(lambda: deal(counter, audit=False), repeat)
    row("deal without the audit, both sides (proved passes)", without)
    row("deal with the audit", cpu(lambda: deal(counter, audit=True), repeat))
    # The machine's speed drifts: price a multiplication again, next to the deals.
    near = min(multiplication, cpu(lambda: group.mul(scalar_sample, point_sample), 15, 200)[0])
    print(
        f"  {'floor, 4 x 48 multiplications (best figures)':<52} {fmt(4 * 48 * near)}"
        f"\n  the deal without the audit costs {without[0] / near:.0f} multiplications' worth"
        f" (4 x 48 in the passes, 32 to open 2 hands and the table by both, plus checks)"
    )


def mentalpoker_comparison(counter: list[int]) -> None:
    """Interleaved runs, so that both see the same machine even if its speed drifts."""
    print("\nAgainst mentalpoker 0.5.0 (52 cards, four passes, 32 decodes; its own venv, subprocess)")
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30, help="deals measured (default 30)")
    parser.add_argument("--no-mentalpoker", action="store_true", help="skip the comparison")
    args = parser.parse_args()
    repeat = max(3, args.repeat)
    print(f"CPU time, one process, Python {sys.version.split()[0]}, {os.cpu_count()} CPUs\n")
    spread.set_enabled(False)  # CPU figures on one core: the second thread only moves work, and adds a little
    multiplication = raw_figures()
    pass_figures(repeat)
    counter = [0]
    round_figures(repeat, multiplication, counter)
    proof_figures(repeat)
    critical_path_figures(repeat)
    if args.no_mentalpoker:
        print("\nAgainst mentalpoker 0.5.0: skipped (--no-mentalpoker)")
    else:
        mentalpoker_comparison(counter)


if __name__ == "__main__":
    main()
