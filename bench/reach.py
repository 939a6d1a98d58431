"""Which rung of the connection ladder connects two players, and how soon, per pair of NATs (issue 26).

Builds two homes behind nftables NATs with no UPnP and a public namespace with coturn between them
(``tests/nat_pair.py``; needs root, ``ip``, ``nft`` and ``turnserver``), then for each pair plays a whole
match between two bot processes (``koikoi host`` and ``koikoi join`` with ``--bot random``, 3 rounds),
handing the guest's answer code to the host as soon as it is printed, as a player pasting at once would:

    python bench/reach.py [--runs N]

Printed per pair and run: the rung that connected (direct, reverse, punch, spray, relay, or none), the seconds from the
guest's start to its "Connected" line (the ladder's whole cost, the failed direct dial included: the
guest is run with ``--timeout 3``), the seconds from the paste to it (what the later rungs add once the
answer is in), and whether both records verified. A pair that does not connect within 20 s of the
paste is stopped and shown as "none". CGNAT is a home router behind a carrier's endpoint-independent
NAT; "UDP blocked" drops every UDP packet leaving that home (nothing here needs UDP); IPv6-only: both
homes have only IPv6 and no NAT, each behind its router's stateful firewall (STUN over IPv6). The guest
is given coturn as its TURN relay (``--relay``), the last resort where a NAT is endpoint-dependent. Both
sides are given coturn's two IPv4 addresses as STUN servers, so that an endpoint-dependent NAT shows
itself (two public ports for one local port) and EIM x EDM and EDM x EIM try the birthday spray before
the relay.
``--cut``: once the match is under way, the host's router (the guest's, for a host in the public
namespace) resets every TCP connection it forwards for half a second (an nftables reject), and the run
also prints the seconds from the cut to the guest's "Connection back" line: how soon the rung that made
the connection makes it again (the guest redials, the host dials the answer again, both punch or spray
again, or the relay is used again). "not cut" means the guest never lost the connection (nothing
crossed the router while it reset); "not back", that it did not come back within 90 s.
``--only WORDS`` runs only the pairs whose name holds them. Each home's link to the public namespace
holds every frame ``--delay-ms`` each way (5 ms: 20 ms between the homes, so that simultaneous sends cross
as slowly as between two real homes; ``tests/delay_link.py``); ``--delay-ms 0`` gives plain veth links.
"""

from __future__ import annotations

import argparse
import queue
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from p2p_koikoi.testing import KOIKOI, koikoi_env
from tests.nat_pair import (
    LINK_DELAY_MS,
    STUN,
    TURN_PASSWORD,
    TURN_USER,
    Mapping,
    NatPair,
    Side,
    namespaces_allowed,
    nat_pair,
)

STUN_AT = f"{STUN[0]}:{STUN[1]},10.88.20.1:{STUN[1]}"  # one coturn, two addresses: two destinations
RELAY = ["--relay", f"turn:10.88.20.1:{STUN[1]}", "--relay-user", TURN_USER, "--relay-password", TURN_PASSWORD]
AFTER_PASTE = 20.0


@dataclass(frozen=True)
class Pair:
    name: str
    a: Side  # the first home's way out
    b: Side
    host: str  # where the host runs: "a", "b" or "pub"
    guest: str


EIM, EDM = Side(Mapping.EIM), Side(Mapping.EDM)
CGNAT = Side(Mapping.EIM, cgnat=True)
PAIRS = (
    Pair("reachable host (first rung)", EIM, EIM, "pub", "b"),
    Pair("reachable guest x unreachable host", EIM, EIM, "a", "pub"),
    Pair("EIM x EIM", EIM, EIM, "a", "b"),
    Pair("EIM x EDM", EIM, EDM, "a", "b"),
    Pair("EDM x EIM (the host maps anew)", EDM, EIM, "a", "b"),
    Pair("EDM x EDM", EDM, EDM, "a", "b"),
    Pair("CGNAT x EIM", CGNAT, EIM, "a", "b"),
    Pair("CGNAT x CGNAT", CGNAT, CGNAT, "a", "b"),
    Pair("UDP blocked x EIM", Side(Mapping.EIM, udp_blocked=True), EIM, "a", "b"),
    Pair("IPv6-only x IPv6-only (firewalls)", Side(ipv6_only=True), Side(ipv6_only=True), "a", "b"),
)


@dataclass
class Run:
    rung: str
    connect: float | None
    after_paste: float | None
    verified: bool
    mended: str = ""  # with --cut: seconds from the cut to the guest's "Connection back", or what happened


def _reader(process: subprocess.Popen[str], lines: queue.Queue[tuple[float, str]]) -> None:
    assert process.stderr is not None
    for line in process.stderr:
        lines.put((time.monotonic(), line.rstrip("\n")))


def _until(lines: queue.Queue[tuple[float, str]], words: str, seconds: float, seen: list[str]) -> float | None:
    """When a line holding ``words`` came (monotonic), or None after ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            at, line = lines.get(timeout=0.1)
        except queue.Empty:
            continue
        seen.append(line)
        if words in line:
            return at
    return None


def _namespace(net: NatPair, where: str) -> str:
    return {"a": net.a, "b": net.b, "pub": net.pub}[where]


def play(net: NatPair, pair: Pair, folder: Path, cut: bool = False) -> Run:
    replays = folder / "replays"
    stun = f"[{net.six[0]}]:{STUN[1]}" if pair.a.ipv6_only else STUN_AT
    common = ["--bot", "random", "--no-upnp", "--stun", stun, "--replay-dir", str(replays)]
    host = subprocess.Popen(
        [*net.exec(_namespace(net, pair.host)), *KOIKOI, "host", "--rules", "lemme", "--rounds", "3", *common],
        env=koikoi_env(folder / "host"),
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    guest: subprocess.Popen[str] | None = None
    try:
        host_lines: queue.Queue[tuple[float, str]] = queue.Queue()
        threading.Thread(target=_reader, args=(host, host_lines), daemon=True).start()
        seen: list[str] = []
        if _until(host_lines, "paste it here", 30, seen) is None:
            return Run("host failed", None, None, False)
        code = next(line for line in seen if "kk1:" in line).split("koikoi join ")[1]
        started = time.monotonic()
        guest = subprocess.Popen(
            [*net.exec(_namespace(net, pair.guest)), *KOIKOI, "join", code, "--timeout", "3", *common, *RELAY],
            env=koikoi_env(folder / "guest"),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        guest_lines: queue.Queue[tuple[float, str]] = queue.Queue()
        threading.Thread(target=_reader, args=(guest, guest_lines), daemon=True).start()
        said: list[str] = []
        pasted: float | None = None
        connected: float | None = None
        while connected is None:
            at = _until(guest_lines, "", AFTER_PASTE if pasted else 30, said)
            if at is None or (pasted is not None and time.monotonic() - pasted > AFTER_PASTE):
                return Run("none", None, None, False)
            line = said[-1]
            if line.startswith("  kka1:") and pasted is None:
                assert host.stdin is not None
                host.stdin.write(line.strip() + "\n")
                host.stdin.flush()
                pasted = time.monotonic()
            elif line.startswith("Connected to "):
                connected = at
        rung = "reverse" if pasted else "direct"
        if any("punch to the host" in s for s in said):
            rung = "punch"
        elif any("spray to the host" in s or "guess at the host's ports" in s for s in said):
            rung = "spray"
        elif any("through the relay" in s for s in said):
            rung = "relay"
        router = net.routers[1] if pair.host == "pub" else net.routers[0]  # a router the connection crosses
        mended = _cut_and_mended(net, router, guest_lines, said) if cut else ""
        guest.wait(timeout=120)
        host.wait(timeout=60)
        records = sorted(replays.glob("*.koikoi"))
        verified = len(records) == 2 and all(
            subprocess.run([*KOIKOI, "verify", str(r)], capture_output=True, check=False).returncode == 0
            for r in records
        )
        return Run(rung, connected - started, connected - pasted if pasted else None, verified, mended)
    finally:
        for process in (host, guest):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait(timeout=10)


def _cut_and_mended(net: NatPair, router: str, guest_lines: queue.Queue[tuple[float, str]], said: list[str]) -> str:
    """Once the guest's first round is under way, ``router`` resets the connection for half a
    second: the seconds from the cut to the guest's "Connection back" line, "not cut" when the guest never
    lost the connection (nothing crossed the router while it reset), "not back" when it did not come back
    within 90 s."""
    if _until(guest_lines, "Round 1", 30, said) is None:
        return "no round"
    time.sleep(0.3)
    cut_at = time.monotonic()
    net.cut(router)
    if _until(guest_lines, "Connection lost", 30, said) is None:
        return "not cut"
    back = _until(guest_lines, "Connection back", 90, said)
    return f"{back - cut_at:.2f}" if back is not None else "not back"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", default="", help="run only the pairs whose name holds these words")
    parser.add_argument("--delay-ms", type=float, default=LINK_DELAY_MS, help="each way, on each home's link")
    parser.add_argument("--cut", action="store_true", help="cut each match mid-way and time its mending")
    args = parser.parse_args()
    reason = namespaces_allowed()
    if reason:
        sys.exit(f"reach: {reason}")
    between = 4 * args.delay_ms
    print(f"link delay {args.delay_ms:g} ms each way on each home's link ({between:g} ms round trip between the homes)")
    mended_head = f" {'mended s':>8}" if args.cut else ""
    print(f"{'pair':<38} {'run':>3}  {'rung':<8} {'connect s':>9} {'after paste s':>13}{mended_head}  records")
    for pair in (p for p in PAIRS if args.only in p.name):
        for run in range(1, args.runs + 1):
            with tempfile.TemporaryDirectory() as tmp:
                folder = Path(tmp)
                with nat_pair(folder / "coturn.log", pair.a, pair.b, args.delay_ms) as net:
                    result = play(net, pair, folder, args.cut)
            connect = f"{result.connect:.2f}" if result.connect is not None else "-"
            after = f"{result.after_paste:.3f}" if result.after_paste is not None else "-"
            verified = "verified" if result.verified else "-"
            mended = f" {result.mended or '-':>8}" if args.cut else ""
            line = f"{pair.name:<38} {run:>3}  {result.rung:<8} {connect:>9} {after:>13}{mended}  {verified}"
            print(line, flush=True)


if __name__ == "__main__":
    main()
