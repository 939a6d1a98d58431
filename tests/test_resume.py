"""Broken networks and resume: drop the connection at every phase, reconnect and finish; a proxy that
splits and delays writes; a peer that never comes back; an outage longer than the grace; ``kill -9`` and
``koikoi resume``. The drops, the silence and the outage run on the in-memory network
(``p2p_koikoi.testing.network``) and the virtual clock, with the program's own minute of grace; the split
writes over real loopback TCP, and ``kill -9`` with the real program."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.app.continuing import GRACE, Reconnect, play_on
from p2p_koikoi.app.netplay import admit_guest
from p2p_koikoi.app.players import BotPlayer
from p2p_koikoi.bots import RandomAgent
from p2p_koikoi.engine import preset
from p2p_koikoi.net.framed import FramedChannel
from p2p_koikoi.net.handshake import Greeting
from p2p_koikoi.net.runner import MatchReport
from p2p_koikoi.net.tcp import Address, dial, listen
from p2p_koikoi.record.reader import read_record
from p2p_koikoi.record.writer import RecordWriter
from p2p_koikoi.referee import Ending
from p2p_koikoi.session.events import SessionEnd
from p2p_koikoi.session.match_session import MatchSession
from p2p_koikoi.testing import KOIKOI, CuttingProxy, free_port, koikoi_env, spawn_host
from p2p_koikoi.testing.network import memory_network
from p2p_koikoi.wire import SignedEntry, public_bytes
from tests.record_support import verify_entries

Cut = Callable[[SignedEntry], bool]
secrets_box: list[tuple[Ed25519PrivateKey, bytes]] = []  # the host's key and master secret of the last match


def deal_message(kind: int, round_number: int = 1, deck_pass: int | None = None) -> Cut:
    def cut(signed: SignedEntry) -> bool:
        e = signed.entry
        if e.kind != "deal" or e.body[0] != round_number or e.body[2][0] != kind:
            return False
        return deck_pass is None or e.body[2][1] == deck_pass

    return cut


def move(predicate: Callable[[str], bool]) -> Cut:
    return lambda s: s.entry.kind == "move" and predicate(s.entry.body[1])


PHASES: dict[str, Cut] = {
    "handshake": lambda s: s.entry.kind == "accept",
    "first-dealer": deal_message(0x01, round_number=0),
    "deal-pass-1": deal_message(0x02, deck_pass=1),
    "deal-pass-2": deal_message(0x02, deck_pass=2),
    "deal-pass-3": deal_message(0x02, deck_pass=3),
    "deal-pass-4": deal_message(0x02, deck_pass=4),
    "table-keys": deal_message(0x03),
    "mid-turn": move(lambda a: a.startswith("play")),
    "decision": move(lambda a: a in ("koikoi", "stop")),
    "audit": deal_message(0x05),
    "result": lambda s: s.entry.kind == "result",
}


async def match_through_proxy(
    tmp: Path,
    proxy_args: dict[str, object],
    rules_name: str = "lemme",
    grace: float = 20.0,
    proxy_class: type[CuttingProxy] = CuttingProxy,
) -> tuple[MatchReport, MatchReport, list[SignedEntry], list[SignedEntry], CuttingProxy]:
    rules = preset(rules_name).with_option("rounds", "3")
    k0, k1 = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    reports: dict[str, MatchReport] = {}
    chains: dict[str, list[SignedEntry]] = {}
    port_box: list[int] = []
    ready, host_done = trio.Event(), trio.Event()
    said: list[str] = []
    secrets_box.clear()

    async def on_listening(addresses: list[Address]) -> None:
        port_box.append(addresses[0].port)
        ready.set()

    async def admit(channel: FramedChannel, greeting: Greeting, peer: str) -> MatchSession:
        return await admit_guest(channel, greeting, k0, rules)

    async def host() -> None:
        channel, session = await listen(public_bytes(k0), admit, port=0, bind="127.0.0.1", on_listening=on_listening)
        record = RecordWriter(tmp, lambda: "host.koikoi", seat=0, secret=session.master_secret)
        plan = Reconnect(0, port=port_box[0], bind="127.0.0.1", grace=grace)
        reports["host"] = await play_on(channel, session, k0, BotPlayer(RandomAgent(1), 0), record, plan, said.append)
        record.close()
        chains["host"] = session.chain.entries
        secrets_box.append((k0, session.master_secret))
        host_done.set()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(host)
        await ready.wait()
        proxy = proxy_class(port_box[0], **proxy_args)  # type: ignore[arg-type]
        await nursery.start(proxy.run)
        target = Address("127.0.0.1", proxy.port)
        channel, greeting = await dial(target, public_bytes(k1))
        session = MatchSession(1, k1, greeting.peer_key, greeting.nonces)
        record = RecordWriter(tmp, lambda: "guest.koikoi", seat=1, secret=session.master_secret)
        plan = Reconnect(1, address=target, grace=grace)
        reports["guest"] = await play_on(channel, session, k1, BotPlayer(RandomAgent(2), 1), record, plan, said.append)
        record.close()
        chains["guest"] = session.chain.entries
        await host_done.wait()
        nursery.cancel_scope.cancel()
    return reports["host"], reports["guest"], chains["host"], chains["guest"], proxy


@pytest.fixture
def network_clock() -> trio.testing.MockClock:
    """The virtual clock for a match on the in-memory network: it jumps to the next timer once the run has
    been idle for 50 ms of real time, not at once, so a bot choosing in a worker thread (a few ms) is never
    skipped past a deadline of the other side's; a real wait (a grace, a backoff) still costs no more."""
    return trio.testing.MockClock(autojump_threshold=0.05)


def replay_checks(entries: list[SignedEntry], key: Ed25519PrivateKey, master_secret: bytes) -> None:
    """No move lost or applied twice: each seq once, and the host's side rebuilt from nothing but the
    chain (every guest entry checked again, every host entry written again byte for byte) ends the match."""
    assert [e.entry.seq for e in entries] == list(range(len(entries)))
    assert entries[-1].entry.kind == "goodbye" and entries[-1].entry.body[0] == "match-over"
    rebuilt = MatchSession.restore(0, key, entries, master_secret)
    assert rebuilt.ended_by is SessionEnd.MATCH_OVER


# Every phase, cut just after an entry passed and with the entry lost in flight. (Not the guest's
# ``accept`` lost in flight: the host never admitted that guest, so there is no match to resume.)
CASES = [(phase, before) for phase in PHASES for before in (False, True) if not (phase == "handshake" and before)]


@pytest.mark.parametrize(("phase", "before"), CASES, ids=[f"{p}-{'lost' if b else 'after'}" for p, b in CASES])
async def test_a_drop_at_every_phase_is_resumed_and_the_match_finishes(
    tmp_path: Path, phase: str, before: bool, network_clock: trio.testing.MockClock
) -> None:
    """On the in-memory network and the virtual clock, with the program's own reconnect grace."""
    with memory_network():
        host, guest, host_chain, guest_chain, proxy = await match_through_proxy(
            tmp_path, {"cut": PHASES[phase], "before": before}, grace=GRACE
        )
    assert proxy.cuts == 1, f"the {phase} cut never happened"
    assert (host.ended_by, guest.ended_by) == (SessionEnd.MATCH_OVER, SessionEnd.MATCH_OVER), (host.text, guest.text)
    assert [e.data for e in host_chain] == [e.data for e in guest_chain]
    replay_checks(host_chain, *secrets_box[0])
    for name in ("host.koikoi", "guest.koikoi"):
        record = read_record(tmp_path / name)
        assert [e.data for e in record.entries] == [e.data for e in host_chain]
        assert not (tmp_path / (name + ".secret")).exists(), "the secret is deleted once the match is over"


async def test_a_network_that_splits_writes_over_real_tcp(tmp_path: Path) -> None:
    """Every write split into 7-byte pieces by a real loopback proxy (the delays between pieces are in
    test_net.py, on the virtual clock, where they cost no wall time)."""
    host, guest, host_chain, guest_chain, _ = await match_through_proxy(tmp_path, {"chunk": 7, "seed": 3})
    assert (host.ended_by, guest.ended_by) == (SessionEnd.MATCH_OVER, SessionEnd.MATCH_OVER)
    assert [e.data for e in host_chain] == [e.data for e in guest_chain]


async def test_a_peer_that_never_comes_back_loses_by_its_silence_in_the_record_of_the_one_that_waited(
    tmp_path: Path, network_clock: trio.testing.MockClock
) -> None:
    """Cut mid-round and keep the proxy from forwarding again: both wait out the grace. Silence loses: a
    side the next entry is owed to signs its claim (``peer-gone``); a side that owes it first writes the
    game's move for its decision (as when a time limit runs out), then claims in its turn. Each record alone
    is its writer's win, marked as claimed (each then waited one more grace for the other to come back and
    answer); the secrets are gone, since neither match can be resumed."""

    class OneShot(CuttingProxy):
        async def _serve(self, client: trio.abc.HalfCloseableStream) -> None:
            if self.cuts:
                await trio.aclose_forcefully(client)
                return
            await super()._serve(client)

    proxy_args = {"cut": PHASES["mid-turn"]}
    with memory_network():  # the program's own grace, a minute, on the virtual clock
        host, guest, host_chain, guest_chain, _ = await match_through_proxy(
            tmp_path, proxy_args, grace=GRACE, proxy_class=OneShot
        )
    assert host.ended_by is SessionEnd.PEER_VANISHED and guest.ended_by is SessionEnd.PEER_VANISHED
    assert f"did not come back within {GRACE:g} s" in guest.text
    for seat, name, chain in ((0, "host.koikoi", host_chain), (1, "guest.koikoi", guest_chain)):
        entries = read_record(tmp_path / name).entries
        assert [e.data for e in entries] == [e.data for e in chain]
        last = entries[-1].entry
        assert (last.kind, last.author, last.body[0]) == ("goodbye", seat, "peer-gone")
        report = verify_entries(entries)
        assert report.verdict == "verified", report.finding
        assert report.ending is not None and report.ending.claimed and report.ending.winner == seat
        assert not (tmp_path / (name + ".secret")).exists(), "a match won by a claim cannot be resumed"


def test_kill_9_mid_round_then_koikoi_resume(tmp_path: Path) -> None:
    """The guest process is killed mid-round; `koikoi resume` on its record reconnects to the still-waiting
    host and the match finishes, both records identical and complete."""
    port = free_port()
    replays = tmp_path / "replays"
    guest_env = koikoi_env(tmp_path / "guest")
    host = spawn_host(tmp_path / "host", port, replays, "--bot", "random", "--seed", "1", "-q")
    try:
        guest = subprocess.Popen(
            [
                *KOIKOI,
                "join",
                f"127.0.0.1:{port}",
                "--bot",
                "strong:easy",
                "--seed",
                "2",
                "--replay-dir",
                str(replays),
                "-q",
            ],
            env=guest_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        # Wait until the guest's record shows the match well under way, then kill it hard.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            records = list(replays.glob("*-guest.koikoi"))
            if records and records[0].stat().st_size > 40_000:
                break
            time.sleep(0.02)
        guest.send_signal(signal.SIGKILL)
        guest.wait(timeout=10)
        (record,) = replays.glob("*-guest.koikoi")
        assert (record.parent / (record.name + ".secret")).exists()
        resumed = subprocess.run(
            [*KOIKOI, "resume", str(record), "--bot", "strong:easy", "--seed", "2", "-q"],
            env=guest_env,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        _, host_err = host.communicate(timeout=60)
    finally:
        host.kill()
    assert resumed.returncode == 0, resumed.stderr
    assert host.returncode == 0, host_err
    assert "Traceback" not in resumed.stderr + host_err
    guest_record = read_record(record)
    (host_file,) = replays.glob("*-host.koikoi")
    host_record = read_record(host_file)
    assert [e.data for e in guest_record.entries] == [e.data for e in host_record.entries]
    assert guest_record.entries[-1].entry.body[0] == "match-over"


@pytest.mark.parametrize("before", [False, True], ids=["entry-delivered", "entry-lost-in-flight"])
async def test_two_honest_peers_through_an_outage_longer_than_the_grace_resume_and_finish(
    tmp_path: Path, before: bool, network_clock: trio.testing.MockClock
) -> None:
    """Two honest peers, and the link down for one and a half times the reconnect grace: the 90 s outage of
    the program's 60 s grace, on the in-memory network and the virtual clock. Each gives up at the end of the
    grace: the seat that owed writes the game's move and claims, the other claims; then each waits one more
    grace for the other to answer. The link comes back within it, the resume settles the claims that crossed
    (a claim takes its place; the entries it displaced are written again after it, which refutes it), and the
    match plays to its end: both copies the same, finished, verified (SPEC.md sections 6 to 8)."""
    grace = GRACE

    class Outage(CuttingProxy):
        """Refuses every connection for 1.5 graces after the cut, then forwards again."""

        cut_at: float | None = None

        async def _serve(self, client: trio.abc.HalfCloseableStream) -> None:
            if self.cuts:
                if self.cut_at is None:
                    self.cut_at = trio.current_time()
                if trio.current_time() < self.cut_at + 1.5 * grace:
                    await trio.aclose_forcefully(client)
                    return
            await super()._serve(client)

    proxy_args = {"cut": PHASES["mid-turn"], "before": before}
    with memory_network():
        host, guest, host_chain, guest_chain, _ = await match_through_proxy(
            tmp_path, proxy_args, grace=grace, proxy_class=Outage
        )
    assert (host.ended_by, guest.ended_by) == (SessionEnd.MATCH_OVER, SessionEnd.MATCH_OVER), (host.text, guest.text)
    assert [e.data for e in host_chain] == [e.data for e in guest_chain]
    claims = [e for e in host_chain if e.entry.kind == "goodbye" and e.entry.body[0] == "peer-gone"]
    assert claims, "nobody claimed: the outage was not longer than the grace"
    report = verify_entries(host_chain)
    assert report.verdict == "verified" and report.ending is not None and report.ending.how is Ending.FINISHED
    for name in ("host.koikoi", "guest.koikoi"):
        assert [e.data for e in read_record(tmp_path / name).entries] == [e.data for e in host_chain]
