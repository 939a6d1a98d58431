"""The invite code does not wait for the router (issue 28, item 7): the host prints it at once with what it
knows (LAN, IPv6), asks the router meanwhile, and prints a new code, the public address first, if the router
maps the port afterwards. The router here is a stand-in for :class:`~p2p_koikoi.net.portmap.Mapper` (the
real one against a real miniupnpd is tests/test_nat.py, in network namespaces); nothing leaves the machine."""

from __future__ import annotations

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.app.host_invite import map_port_then_say
from p2p_koikoi.net.invite import Invite
from p2p_koikoi.net.portmap import Method, Outcome, PortMapping
from p2p_koikoi.record.identity_names import fingerprint
from p2p_koikoi.wire import public_bytes

PORT = 7447
OURS = fingerprint(public_bytes(Ed25519PrivateKey.generate()))


class _Router:
    """Answers ``open`` with ``outcome``; ``keep`` returns at once (nothing to renew in a test)."""

    def __init__(self, outcome: Outcome) -> None:
        self.outcome = outcome

    async def open(self) -> Outcome:
        return self.outcome

    async def keep(self) -> None:
        return None


def _said(outcome: Outcome, hosts: list[str]) -> list[str]:
    said: list[str] = []
    trio.run(map_port_then_say, _Router(outcome), hosts, PORT, OURS, None, said.append)
    return said


def _codes(lines: list[str]) -> list[Invite]:
    return [Invite.parse(line.split("koikoi join ")[1]) for line in lines if "koikoi join kk1:" in line]


def test_a_mapping_made_afterwards_gets_a_new_code_with_the_public_address_first() -> None:
    mapping = PortMapping(Method.UPNP, "203.0.113.7", PORT, lambda: None, lambda: None)
    said = _said(Outcome(PORT, mapping=mapping), ["192.168.1.5", "fd00::5"])
    assert said[0].strip().startswith(f"mapped TCP {PORT} on your router (203.0.113.7:{PORT})")
    assert "send this code instead" in said[1]
    (code,) = _codes(said)
    assert list(code.addresses) == ["203.0.113.7", "192.168.1.5", "fd00::5"] and code.port == PORT


def test_no_router_says_so_and_gives_no_second_code() -> None:
    said = _said(Outcome(PORT), ["192.168.1.5"])
    assert [line.strip() for line in said] == [
        f"no router offered port mapping: forward TCP {PORT} yourself, or play over IPv6 or a LAN"
    ]


def test_a_pinhole_for_an_address_the_code_already_holds_gives_no_second_code() -> None:
    pinhole = PortMapping(Method.PINHOLE, "fd00::5", PORT, lambda: None, lambda: None)
    said = _said(Outcome(PORT, refusal="UPnP: Action Failed", pinhole=pinhole), ["192.168.1.5", "fd00::5"])
    assert len(said) == 1 and "IPv6 firewall" in said[0] and not _codes(said)
