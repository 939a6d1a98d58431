"""A host that cannot be reached and a guest that answers with its code (issue 26 items 2 and 3), as the
network namespace tests drive them; this module holds no test itself. Real ``koikoi host`` and ``koikoi
join`` processes: the guest's dial fails, it prints an answer code, the host's player pastes it (the test
writes it to the host's input), and both play to the end. :class:`AnswerBack` keeps what each wrote;
:func:`answered_back` kills both on the way out. The rest is for the two homes behind NATs of
:mod:`tests.nat_pair` (``test_punch``, ``test_spray``): the fixture's body, the two processes, a whole
match punched (or sprayed, or relayed) between them."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from p2p_koikoi.testing import KOIKOI, koikoi_env
from p2p_koikoi.testing.processes import rest_of_output, stderr_lines_until
from tests.nat_pair import STUN, Mapping, NatPair, Side, namespaces_allowed, nat_pair
from tests.netns_support import no_namespaces
from tests.verify_support import each_record_verifies

__all__ = [
    "RULES",
    "STUN_AT",
    "AnswerBack",
    "answered_back",
    "both_ended_well",
    "common_options",
    "cut_and_mended",
    "homes_behind",
    "punched_match",
    "reset_for_a_moment",
    "spawn_guest",
    "spawn_host",
]

STUN_AT = f"{STUN[0]}:{STUN[1]}"
RULES = ["--rules", "lemme", "--rounds", "3"]


@dataclass
class AnswerBack:
    """A host and a guest that cannot reach it: their standard error up to the host's invite code and the
    guest's answer code (``host_lines``, ``guest_lines``), then the rest once both ended."""

    host: subprocess.Popen[str]
    host_lines: list[str] = field(default_factory=list)
    guest: subprocess.Popen[str] | None = None
    guest_lines: list[str] = field(default_factory=list)
    guest_err: str = ""
    host_err: str = ""

    @property
    def invite(self) -> str:
        """The code of the host's invite line (``koikoi join kk1:...``)."""
        return next(line for line in self.host_lines if "kk1:" in line).split("koikoi join ")[1]

    def join(self, guest: subprocess.Popen[str]) -> None:
        """``guest``'s dial fails: its standard error up to its answer code (the last of ``guest_lines``)."""
        self.guest = guest
        self.guest_lines = stderr_lines_until(guest, "  kka1:")

    def paste(self) -> None:
        """The host's player pastes the guest's answer code."""
        assert self.host.stdin is not None
        self.host.stdin.write(self.guest_lines[-1].strip() + "\n")
        self.host.stdin.flush()

    def finish(self, guest_seconds: float = 120) -> None:
        """Both play to their end (the guest within ``guest_seconds``, then the host within 60 s)."""
        assert self.guest is not None
        self.guest_err = rest_of_output(self.guest, guest_seconds)[1]
        self.host_err = rest_of_output(self.host, 60)[1]

    @property
    def said(self) -> str:
        """Everything the guest wrote to standard error."""
        return "\n".join(self.guest_lines) + self.guest_err


@contextmanager
def answered_back(host: subprocess.Popen[str], invited: str) -> Iterator[AnswerBack]:
    """``host``'s standard error read up to the line holding ``invited``; the host and the guest (once
    joined) killed on the way out."""
    sides = AnswerBack(host)
    try:
        sides.host_lines = stderr_lines_until(host, invited)
        yield sides
    finally:
        for process in (host, sides.guest):
            if process is not None:
                process.kill()
                process.wait(timeout=10)


def homes_behind(tmp_path: Path, a: Mapping | Side, b: Mapping | Side) -> Iterator[NatPair]:
    """A fixture's body: the two homes behind NATs ``a`` and ``b`` (skipped, or failed under CI, where
    namespaces cannot be made), and afterwards not one of the namespaces it made is left."""
    reason = namespaces_allowed()
    if reason:
        no_namespaces(reason)
    with nat_pair(tmp_path / "coturn.log", a, b) as net:
        yield net
    left = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True).stdout.split()
    assert not set(net.made) & set(left)


def common_options(tmp_path: Path, stun: str = STUN_AT) -> list[str]:
    """Both sides' options: the random bot, no UPnP, coturn as the STUN server, records in tmp_path/replays."""
    return ["--bot", "random", "--no-upnp", "--stun", stun, "--replay-dir", str(tmp_path / "replays")]


def spawn_host(net: NatPair, home: Path, args: list[str]) -> subprocess.Popen[str]:
    """``koikoi host`` on port 7447 in home A, its three streams piped (the answer code goes to its stdin)."""
    return subprocess.Popen(
        [*net.exec(net.a), *KOIKOI, "host", "--port", "7447", *args],
        env=koikoi_env(home / "host"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def spawn_guest(net: NatPair, home: Path, code: str, args: list[str]) -> subprocess.Popen[str]:
    """``koikoi join CODE`` in home B, its output piped."""
    return subprocess.Popen(
        [*net.exec(net.b), *KOIKOI, "join", code, *args],
        env=koikoi_env(home / "guest"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def punched_match(
    net: NatPair,
    home: Path,
    host_args: list[str],
    guest_args: list[str],
    *,
    meanwhile: Callable[[AnswerBack], None] | None = None,
    guest_seconds: float = 120,
) -> AnswerBack:
    """The host in home A (read up to its punch candidate, after its invite code), the guest in home B
    joining with the invite and answering; the answer pasted, ``meanwhile`` done, and both to their end."""
    with answered_back(spawn_host(net, home, host_args), "punching from 10.88.10.2:") as sides:
        sides.join(spawn_guest(net, home, sides.invite, guest_args))
        sides.paste()
        if meanwhile is not None:
            meanwhile(sides)
        sides.finish(guest_seconds)
    return sides


def both_ended_well(sides: AnswerBack) -> str:
    """Guest and host both exited 0; returns what the guest said."""
    said = sides.said
    assert sides.guest is not None and sides.guest.returncode == 0, said
    assert sides.host.returncode == 0, "\n".join(sides.host_lines) + sides.host_err
    return said


def reset_for_a_moment(net: NatPair, sides: AnswerBack) -> None:
    """Once the match is under way, the host's router resets every TCP connection it forwards for a moment
    (an nftables reject), then forwards as before."""
    sides.host_lines += stderr_lines_until(sides.host, "accepted the rules")
    time.sleep(0.3)
    net.cut(net.routers[0])


def cut_and_mended(net: NatPair, tmp_path: Path, guest_args: list[str], stun: str = STUN_AT) -> str:
    """A Nintendo match between the two homes, the host's router resetting the connection mid-match: both
    sides felt the cut and mended it, both exited 0, both records verify. Returns what the guest said."""
    common = common_options(tmp_path, stun)
    sides = punched_match(
        net,
        tmp_path,
        ["--rules", "nintendo", *common],
        ["--timeout", "3", *common, *guest_args],
        meanwhile=lambda sides: reset_for_a_moment(net, sides),
        guest_seconds=180,
    )
    said = both_ended_well(sides)
    for side in (said, sides.host_err):  # the cut was felt, and mended, on both sides
        assert "Connection lost" in side and "Connection back; the match goes on." in side, side
    each_record_verifies(tmp_path / "replays")
    return said
