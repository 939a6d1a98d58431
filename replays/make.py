"""Make the sample matches in this folder again: ``python replays/make.py`` (under a minute), and their
expected ``koikoi verify --json`` reports (``protocol/vectors/samples-verify.json``).

Over TCP, between real ``koikoi`` processes:

- ``<preset>.koikoi``, one per rule preset: a host and a guest played by bots, over loopback TCP,
  three rounds each; the host's copy of the record is kept. Each ends ``finished``.
- ``crash-killed-guest.koikoi``: a real 12-round match whose guest process is killed (SIGKILL)
  in the middle of the match; the guest's record is kept as the crash left it.

In memory, two sessions signed by real keys (what two processes over TCP cannot be steered to do):

- ``cheat-stacked-deck.koikoi``: the host is our own session with one step altered: in round 1 it
  re-orders its first deck pass after proving it (stacking the deck). The proof no longer covers the
  deck it sends, so the honest guest refuses that very entry (``bad-shuffle-proof``) before play
  starts, ends the match blaming the host, and notes why. The guest's record is kept (both peers run
  the real runner, in memory).
- the rare deals, each a whole ``rulebook`` match whose seed (a label, as ``tests/test_spec_words.py``
  pins them) deals the case; the host's record is kept: ``tied-dealer-draw.koikoi`` (the first-dealer
  draw is a tie: a second draw), ``redeal.koikoi`` (round 1's first table holds four of a month: two
  ``result`` entries with outcome ``redeal``, then the round dealt again), ``gaji-hiki.koikoi`` and
  ``gaji-no-hiki.koikoi`` (a Gaji played onto a month of three, answered ``hiki CARD`` / ``no-hiki``),
  ``hand-exchange.koikoi`` (the non-dealer swaps hands);
- ``ending-*.koikoi``, one per ending of SPEC.md section 6 that a whole match does not show, each a
  ``nintendo`` match stopped in round 1 where the guest owes its second move (``ending-declined``: where
  it owes its answer to the rules): ``ending-quit`` (the guest
  quits: its forfeit), ``ending-claim`` (the host claims the guest's silence: won by silence, claimed),
  ``ending-claim-refuted`` (the same claim, answered by the guest's ``here``; the match then plays to its
  end), ``ending-crossing-withdrawn`` (the guest's move crosses the host's claim: the guest's record
  keeps the move and a ``withdrawn`` note, then the claim and the move written again; finished),
  ``ending-adjourned`` (the host adjourns: nobody wins), ``ending-concession`` (the guest, owing, says it
  cannot go on: its own record, its forfeit), ``ending-declined`` (the guest declines the rules),
  ``ending-baseless-accusation`` (the guest accuses the host of a deal cheat with its real secret: the
  evidence shows nothing, the guest's forfeit), ``ending-integrity-accusation`` (the guest accuses the
  host of a bad signature: no evidence can exist, the guest's forfeit); the host's record is kept but
  where said;
- ``cheat-false-no-hiki.koikoi``: the host answers the guest's Gaji play with ``no-hiki`` while it
  holds the fourth card of that month; only the audit of the round shows it
  (``audit:gaji-blocked-by-hiki``, blamed on the host); the guest's record;
- ``cut-copy-winner.koikoi`` and ``cut-copy-loser.koikoi``: two copies of one match, verified together:
  the winner's whole record, and the loser's copy cut where the winner owed an entry and ended with the
  loser's own claim of the winner's silence. The loser signed entries on both branches: its copy falls.

``v2/nintendo.koikoi`` is a record of protocol version 2 (koikoi 0.2), kept as it was made: this program
does not verify it, and says so in one line (exit code 2). It is not made again.

The keys and secrets of the TCP samples and of the stacked deck are fresh every time, so those files
differ from run to run; what they show does not. The samples made from a label are the same bytes at
every run but for the header's date.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import trio
import trio.testing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.app.players import BotPlayer
from p2p_koikoi.app.records import verify_paths
from p2p_koikoi.bots import RandomAgent
from p2p_koikoi.engine import PRESETS, preset
from p2p_koikoi.engine.cards import Card
from p2p_koikoi.fairness import DealContext, Deck, FairDeal
from p2p_koikoi.net.framed import FramedChannel
from p2p_koikoi.net.handshake import greet_as_guest, greet_as_host
from p2p_koikoi.net.runner import run_match
from p2p_koikoi.record.writer import RecordWriter
from p2p_koikoi.referee import Claim, Stage
from p2p_koikoi.session.match_session import SOFTWARE, MatchSession, Waiting
from p2p_koikoi.testing import SessionPair, decide, deterministic_entropy
from p2p_koikoi.testing.copies import cut_copy
from p2p_koikoi.wire import RemoteProtocolError, SignedEntry, public_bytes

HERE = Path(__file__).resolve().parent
VECTORS = HERE.parent / "protocol" / "vectors" / "samples-verify.json"
KOIKOI = [sys.executable, "-m", "p2p_koikoi"]

# Labels that deal the rare cases (tests/test_spec_words.py pins the same ones).
TIE = ("rulebook", "tie and redeal 0")
REDEAL = ("rulebook", "tie and redeal 124")
HIKI = ("rulebook", "gaji 23")
NO_HIKI = ("rulebook", "gaji 31")
FALSE_NO_HIKI = "false no-hiki 0"  # rulebook: the host holds the fourth card of the month a Gaji play aims at

# ------------------------------------------------------------------------- two koikoi processes over TCP


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_pair(
    work: Path, rules: str, rounds: int | None, seed: int
) -> tuple[subprocess.Popen[str], subprocess.Popen[str]]:
    """A host and a guest ``koikoi`` process, bots on both seats, each with its own home and record folder."""
    port = free_port()
    extra = ["--rounds", str(rounds)] if rounds else []
    listen = ["--port", str(port), "--bind", "127.0.0.1", "--rules", rules, *extra]
    host = subprocess.Popen(
        [*KOIKOI, "host", *listen, "--bot", "greedy", "--seed", str(seed), "--replay-dir", str(work / "host"), "-q"],
        env={**os.environ, "KOIKOI_HOME": str(work / "home-host")},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.05)
    bot = ["--bot", "greedy", "--seed", str(seed + 1)]
    guest = subprocess.Popen(
        [*KOIKOI, "join", f"127.0.0.1:{port}", *bot, "--replay-dir", str(work / "guest"), "--quiet"],
        env={**os.environ, "KOIKOI_HOME": str(work / "home-guest")},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    return host, guest


def one_record(folder: Path) -> Path:
    (path,) = sorted(folder.glob("*.koikoi"))
    return path


def preset_sample(name: str, seed: int, tries: int = 5) -> Path:
    """A whole match under preset ``name``; one that ended before its third round (a preset with a points
    limit can) is played again, so the sample shows three deals."""
    from p2p_koikoi.record.reader import read_record

    target = HERE / f"{name}.koikoi"
    for attempt in range(tries):
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            host, guest = start_pair(work, name, 3, seed + 100 * attempt)
            guest.communicate(timeout=120)
            host.communicate(timeout=60)
            if host.returncode or guest.returncode:
                raise SystemExit(f"{name}: the match failed (host {host.returncode}, guest {guest.returncode})")
            shutil.copyfile(one_record(work / "host"), target)
        counted = {e.entry.body[0] for e in read_record(target).entries if e.entry.kind == "result"}
        if len(counted) >= 3:
            return target
    raise SystemExit(f"{name}: no match in {tries} tries played three rounds")


def crash_sample(seed: int) -> Path:
    """Kill the guest process mid-match, as a power cut would."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        host, guest = start_pair(work, "nintendo", None, seed)
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                records = list((work / "guest").glob("*.koikoi"))
                if records and records[0].stat().st_size > 100_000:
                    break
                time.sleep(0.02)
            guest.send_signal(signal.SIGKILL)
            guest.wait(timeout=30)
        finally:
            for process in (guest, host):
                if process.poll() is None:
                    process.kill()
                process.communicate(timeout=30)
        target = HERE / "crash-killed-guest.koikoi"
        shutil.copyfile(one_record(work / "guest"), target)
    return target


def crash_sample_cut_mid_round(seed: int, tries: int = 6) -> Path:
    """The kill lands wherever the match is; the sample shows a round cut short, so kill again until it does."""
    from p2p_koikoi.app.replay import load_replay

    for attempt in range(tries):
        target = crash_sample(seed + attempt)
        if load_replay(target).rounds[-1].played.deal is None:
            return target
    raise SystemExit(f"no kill in {tries} tries cut a round short")


# ------------------------------------------------------------- the stacked deck: the real runner, in memory


class StackingDeal(FairDeal):
    """Seat 0's side of a deal, with its first deck pass re-ordered after it was computed (and proved)."""

    def _make_pass(self, number: int, received: Sequence[bytes]) -> Deck:
        honest = super()._make_pass(number, received)
        if number != 1:
            return honest
        points = list(honest.points)
        points[0], points[30] = points[30], points[0]  # the order it wants, not the one it proved
        return Deck(1, tuple(points), honest.proof)


class StackingHost(MatchSession):
    """The host's session, stacking the deck of round 1 (and playing honestly otherwise)."""

    def new_deal(
        self, context: DealContext, seat: int, keys: tuple[bytes, bytes], secret: bytes, **layout: Any
    ) -> FairDeal:
        if context.round == 1 and context.redeal == 0:
            return StackingDeal(context, seat, keys, secret, **layout)
        return super().new_deal(context, seat, keys, secret, **layout)


def cheat_sample() -> Path:
    target = HERE / "cheat-stacked-deck.koikoi"
    target.unlink(missing_ok=True)

    async def main() -> None:
        a, b = trio.testing.memory_stream_pair()
        ca, cb = FramedChannel(a), FramedChannel(b)
        k0, k1 = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
        record = RecordWriter(HERE, lambda: target.name, seat=1)

        async def host() -> None:
            greeting = await greet_as_host(ca, public_bytes(k0))
            session = StackingHost(0, k0, greeting.peer_key, greeting.nonces, rules=preset("lemme"))
            await run_match(ca, session, BotPlayer(RandomAgent(1), 0))

        async def guest() -> None:
            greeting = await greet_as_guest(cb, public_bytes(k1))
            session = MatchSession(1, k1, greeting.peer_key, greeting.nonces)
            await run_match(cb, session, BotPlayer(RandomAgent(2), 1), record)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(host)
            nursery.start_soon(guest)
        record.close()

    trio.run(main)
    return target


# ------------------------------------------------------------------ two sessions stepped by hand, in memory


def named(name: str) -> Callable[[], str]:
    return lambda: name


class Table:
    """Two sessions of one match piped in memory, each seat writing its own record as the runner does
    (entries as they join its chain, a ``withdrawn`` note when a crossing goodbye displaced some, a note
    when it caught the other seat). Keys, nonces, secrets and bots come from ``label`` exactly as in
    ``tests/record_support.play_match``, so a label found there deals the same match here."""

    def __init__(
        self,
        rules: str,
        label: str,
        *,
        folder: Path,
        sessions: tuple[type[MatchSession], type[MatchSession]] = (MatchSession, MatchSession),
    ) -> None:
        seed = deterministic_entropy(label.encode())
        keys = (Ed25519PrivateKey.from_private_bytes(seed(32)), Ed25519PrivateKey.from_private_bytes(seed(32)))
        entropy = deterministic_entropy(label.encode())
        nonces = (entropy(32), entropy(32))
        offered = preset(rules).with_option("rounds", "3")
        host = sessions[0](0, keys[0], public_bytes(keys[1]), nonces, rules=offered, master_secret=entropy(32))
        guest = sessions[1](1, keys[1], public_bytes(keys[0]), nonces, master_secret=entropy(32))
        self.pair = SessionPair(host, guest, keys)
        self.agents = (RandomAgent(len(label)), RandomAgent(len(label) + 1))
        self.records = tuple(
            RecordWriter(folder, named(f"{whose}.koikoi"), seat=seat, software=SOFTWARE)
            for seat, whose in enumerate(("host", "guest"))
        )
        self.gone = [False, False]  # a seat whose runner stopped taking entries (it caught the other)

    @property
    def sessions(self) -> tuple[MatchSession, MatchSession]:
        return self.pair.sessions

    def sync(self, seat: int) -> None:
        session, record = self.sessions[seat], self.records[seat]
        for place in session.take_withdrawals():
            record.withdraw(place)
        record.sync(session.chain.entries)

    def deliver(self, *, lose: int | None = None) -> bool:
        """Everything in flight reaches the other seat (``lose``: what that seat sent is lost instead)."""
        moved = False
        for seat, session in enumerate(self.sessions):
            self.sync(seat)
            for signed in session.take_outgoing():
                other = 1 - seat
                if seat == lose or self.gone[other] or not self.sessions[other].takes_entries:
                    continue
                moved = True
                try:
                    self.sessions[other].receive(signed)
                except RemoteProtocolError as exc:
                    self.gone[other] = True
                    self.sync(other)
                    chained = any(e.data == signed.data for e in self.sessions[other].chain.entries[-3:])
                    evidence = b"" if chained else signed.data + signed.signature
                    self.records[other].note(exc.reason, exc.blame, str(exc), evidence)
                self.sync(other)
        return moved

    def step(self) -> bool:
        """Deliver every entry in flight, or when none is, make every decision due; False when nothing moved."""
        if self.deliver():
            return True
        moved = False
        for seat, session in enumerate(self.sessions):
            if not self.gone[seat]:
                moved = decide(session, self.agents[seat]) or moved
        self.deliver()
        return moved

    def play(self, until: Callable[[Table], bool] = lambda table: False, limit: int = 20_000) -> None:
        """Play until ``until`` holds at a moment with nothing in flight, or until nothing moves."""
        for _ in range(limit):
            if not any(s.outgoing for s in self.sessions) and until(self):
                return
            if not self.step():
                return
        raise SystemExit("the sample match does not end")

    def keep(self, seat: int, name: str) -> Path:
        """Close both records and keep ``seat``'s as ``name``."""
        for record in self.records:
            record.close()
        source = self.records[seat].path
        assert source is not None
        target = HERE / name
        shutil.copyfile(source, target)
        return target


def guest_owes_its_second_move(table: Table) -> bool:
    guest = table.pair.guest
    moves = sum(1 for e in guest.chain.entries if e.entry.kind == "move" and e.entry.author == 1)
    return moves >= 1 and guest.waiting is Waiting.MOVE and guest.referee.stage is Stage.PLAY


def texts(path: Path) -> list[str]:
    """The texts of the ``move`` entries of a sample (what the tests look for too)."""
    from p2p_koikoi.record.reader import read_record

    return [str(e.entry.body[1]) for e in read_record(path).entries if e.entry.kind == "move"]


def rare_deal_samples(folder: Path) -> list[Path]:
    made = []
    for (rules, label), name in (
        (TIE, "tied-dealer-draw"),
        (REDEAL, "redeal"),
        (HIKI, "gaji-hiki"),
        (NO_HIKI, "gaji-no-hiki"),
    ):
        table = Table(rules, label, folder=folder / name)
        table.play()
        made.append(table.keep(0, f"{name}.koikoi"))
    for tries in range(20):  # a bot's choice: the first label whose match has an exchange
        table = Table("rulebook", f"hand exchange {tries}", folder=folder / f"exchange-{tries}")
        table.play()
        path = table.keep(0, "hand-exchange.koikoi")
        if "exchange" in texts(path):
            return [*made, path]
    raise SystemExit("no label dealt a hand exchange")


def send_raw_goodbye(session: MatchSession, reason: str, text: str, evidence: bytes | None = None) -> None:
    """A goodbye the session's own rules would not write (a cheat): signed and sent all the same."""
    session.sends_what_it_breaks = True
    session._write("goodbye", [reason, text, evidence])


def ending_sample(folder: Path, name: str, act: Callable[[Table], int]) -> Path:
    """A nintendo match played until the guest owes its second move; then ``act`` ends it, and returns the
    seat whose record is kept."""
    table = Table("nintendo", f"sample {name}", folder=folder / name)
    table.play(guest_owes_its_second_move)
    seat = act(table)
    table.deliver()
    return table.keep(seat, f"{name}.koikoi")


def quits(table: Table) -> int:
    table.pair.guest.quit("I have to go")
    return 0


def claims(table: Table) -> int:
    assert table.pair.host.peer_vanished("no word from the guest for 90 s")
    table.deliver(lose=0)  # the guest is gone for good: the claim never reaches it
    return 0


def claims_and_is_refuted(table: Table) -> int:
    assert table.pair.host.peer_vanished("no word from the guest for 90 s")
    table.deliver()  # the guest is there after all: its here refutes the claim
    assert any(e.entry.kind == "here" for e in table.pair.host.chain.entries)
    table.play()
    return 0


def crosses(table: Table) -> int:
    """The guest's move is lost in flight; each seat then claims the other's silence. The host's claim reaches
    the guest (its own is lost): the claim takes the move's place, the guest withdraws its move and its claim,
    and writes the move again after the claim, which refutes it. The match plays on to its end."""
    host, guest = table.pair.host, table.pair.guest
    assert decide(guest, table.agents[1])  # the guest moves
    assert guest.outgoing[0].entry.kind == "move"
    table.deliver(lose=1)  # lost in flight
    assert host.peer_vanished("no word from the guest for 90 s")
    assert guest.peer_vanished("no word from the host for 90 s")
    table.sync(1)
    guest.take_outgoing()  # the guest's claim is lost too
    table.deliver()  # the host's claim reaches the guest, which answers with its move again
    assert guest.chain.entries[-2].entry.kind == "goodbye" and guest.chain.entries[-2].entry.author == 0
    table.play()
    return 1


def adjourns(table: Table) -> int:
    table.pair.host.adjourn("adjourned: I will be back tomorrow")
    return 0


def concedes(table: Table) -> int:
    table.pair.guest._goodbye(Claim.PEER_GONE, "I cannot reach the host")  # the seat that owes claims: a concession
    table.deliver(lose=1)  # it could not: the concession is in its own record only
    return 1


def accuses_baselessly(table: Table) -> int:
    guest = table.pair.guest
    context = guest.referee.deal_context()
    assert context is not None
    evidence = guest.knowledge.secret_for(context)
    send_raw_goodbye(guest, "violation:not-a-card", "position 3 does not unlock to a card", evidence)
    return 0


def accuses_of_bytes(table: Table) -> int:
    send_raw_goodbye(table.pair.guest, "violation:bad-signature", "your entry 12 was badly signed")
    return 0


def declined_sample(folder: Path) -> Path:
    table = Table("nintendo", "sample ending-declined", folder=folder / "ending-declined")
    table.play(lambda t: t.pair.guest.waiting is Waiting.ACCEPT)
    table.pair.guest.decline("I do not play with these rules")
    table.deliver()
    return table.keep(0, "ending-declined.koikoi")


def ending_samples(folder: Path) -> list[Path]:
    acts = {
        "ending-quit": quits,
        "ending-claim": claims,
        "ending-claim-refuted": claims_and_is_refuted,
        "ending-crossing-withdrawn": crosses,
        "ending-adjourned": adjourns,
        "ending-concession": concedes,
        "ending-baseless-accusation": accuses_baselessly,
        "ending-integrity-accusation": accuses_of_bytes,
    }
    return [*(ending_sample(folder, name, act) for name, act in acts.items()), declined_sample(folder)]


class SaysNoHiki(MatchSession):
    """Holds the fourth card of the month a Gaji play aims at, and answers ``no-hiki`` all the same. Nobody
    sees its hand until the round's audit. So that its own referee lets the lie pass (and it plays on to the
    audit), the card is hidden from its own view of the round while the answer is judged."""

    sends_what_it_breaks = True  # at the audit, its own referee finds the lie too: its secret goes out anyway

    def _write(self, kind: str, body: list[Any]) -> SignedEntry:
        rnd = self.referee.round
        if kind != "move" or not str(body[1]).startswith("hiki ") or rnd is None:
            return super()._write(kind, body)
        card = Card.parse(str(body[1]).split()[1])
        rnd.hands[self.seat] &= ~card.bit
        rnd.hidden[self.seat] += 1
        rnd._seen &= ~card.bit
        try:
            return super()._write(kind, [body[0], "no-hiki", None, None])
        finally:
            rnd.reveal(self.seat, card.bit)


def false_no_hiki_sample(folder: Path) -> Path:
    table = Table("rulebook", FALSE_NO_HIKI, folder=folder / "false-no-hiki", sessions=(SaysNoHiki, MatchSession))
    table.play()
    return table.keep(1, "cheat-false-no-hiki.koikoi")


def cut_copy_samples(folder: Path) -> list[Path]:
    """The loser's copy cut where the winner owed an entry (and the loser wrote later entries chained on it,
    which the winner's copy holds), ended with the loser's own signed claim of the winner's silence."""
    table = Table("nintendo", "sample cut copy", folder=folder / "cut-copy")
    table.play()
    end = table.pair.host.ending
    assert end is not None and end.winner is not None
    winner, loser = end.winner, 1 - end.winner
    entries = list(table.pair.host.chain.entries)
    cut = cut_copy(entries, winner, table.pair.keys[loser])
    made = []
    for seat, chain, name in ((winner, entries, "cut-copy-winner"), (loser, cut, "cut-copy-loser")):
        record = RecordWriter(folder / name, named(f"{name}.koikoi"), seat=seat, software=SOFTWARE)
        record.write(chain)
        record.close()
        assert record.path is not None
        made.append(HERE / record.path.name)
        shutil.copyfile(record.path, made[-1])
    for record in table.records:
        record.close()
    return made


# ------------------------------------------------------------------------------ the expected reports


def normalised(value: Any) -> Any:
    """A report with the folder's path taken out of every string (the file names stay)."""
    if isinstance(value, str):
        return value.replace(f"{HERE}/", "")
    if isinstance(value, list):
        return [normalised(v) for v in value]
    if isinstance(value, dict):
        return {k: normalised(v) for k, v in value.items()}
    return value


def expected_reports() -> dict[str, Any]:
    """``koikoi verify --json`` of this folder (every sample at once, so the copies of one match are
    compared), and of ``v2/nintendo.koikoi`` alone: each file's report, by its path in this folder."""
    reports = [r.to_json() for r in verify_paths([HERE], jobs=2)]
    reports += [r.to_json() for r in verify_paths([HERE / "v2" / "nintendo.koikoi"], jobs=1)]
    return {normalised(report["file"]): normalised(report) for report in reports}


def write_vectors(reports: dict[str, Any]) -> None:
    data = {
        "name": "samples-verify",
        "description": "The expected `koikoi verify --json` report of every sample record in replays/: the folder "
        "verified at once (so the two copies of one match are compared), and replays/v2/nintendo.koikoi alone. "
        "The folder's path is taken out of every string. Made by: python replays/make.py; "
        "tests/test_record_samples.py checks the program against it.",
        "reports": reports,
    }
    VECTORS.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n")


def main() -> None:
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(max_workers=1) as tcp:
        # The TCP matches are other processes: they run while this one plays the in-memory samples.
        over_tcp = tcp.submit(
            lambda: [
                *(preset_sample(name, seed) for seed, name in enumerate(PRESETS, start=1)),
                crash_sample_cut_mid_round(99),
            ]
        )
        folder = Path(tmp)
        made = [cheat_sample()]
        made += rare_deal_samples(folder)
        made += ending_samples(folder)
        made.append(false_no_hiki_sample(folder))
        made += cut_copy_samples(folder)
        made = over_tcp.result() + made
    reports = expected_reports()
    write_vectors(reports)
    for path in made:
        report = reports[path.name]
        end = report["ending"] or {}
        finding = report["failure"] or {}
        said = f"{end.get('how')}, winner {end.get('winner')}" + (
            f", {finding['reason']} blamed on {finding['blame']}" if finding else ""
        )
        print(
            f"{path.name}: {path.stat().st_size // 1024} KB, {report['entries']} entries, {report['verdict']} ({said})"
        )
    print(f"v2/nintendo.koikoi: {reports['v2/nintendo.koikoi']['problem']}")
    print(f"{len(reports)} reports in {VECTORS.relative_to(HERE.parent)}, {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
