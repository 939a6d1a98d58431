"""The birthday spray (issue 26 item 3): the host's NAT is endpoint-independent (``masquerade``), the
guest's endpoint-dependent (``masquerade fully-random``: a new public port per destination), no relay
given. The guest's dial fails; it asks two STUN addresses from one local port, sees two public ports,
and says so in its answer code (flags bit 3). It opens 256 connections to the host's punch candidate;
the host, given the answer, sends SYNs from its STUN port to 1000 guessed ports of the guest's public
address; a guess that hits one of the 256 makes a simultaneous open. A whole match is played over it,
and both records verify. The other way round too: the host's NAT maps anew (its invite says so, flags bit
2), the guest's keeps one port; the guest guesses at the host's ports while the host, given the answer,
holds 256 connections open to the guest's candidate. The spray's sockets and SYNs stay inside the
namespaces the test made."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from p2p_koikoi.net.answer import Answer
from p2p_koikoi.net.invite import Invite
from tests.nat_pair import STUN, Mapping, NatPair
from tests.punch_support import RULES, both_ended_well, common_options, cut_and_mended, homes_behind, punched_match
from tests.verify_support import each_record_verifies

pytestmark = pytest.mark.xdist_group("netns")

TWO_STUN = f"{STUN[0]}:{STUN[1]},10.88.20.1:{STUN[1]}"  # one coturn, two addresses: two destinations


@pytest.fixture
def eim_edm_pair(tmp_path: Path) -> Iterator[NatPair]:
    yield from homes_behind(tmp_path, Mapping.EIM, Mapping.EDM)


def test_a_whole_match_over_a_birthday_spray(eim_edm_pair: NatPair, tmp_path: Path) -> None:
    common = common_options(tmp_path, TWO_STUN)
    sides = punched_match(eim_edm_pair, tmp_path, [*RULES, *common], ["--timeout", "3", *common])
    answer = Answer.parse(sides.guest_lines[-1].strip())  # the code the host was given
    assert answer.spray and answer.relay is None  # flags bit 3: two STUN addresses saw two ports
    said, host_err = both_ended_well(sides), sides.host_err
    assert "Traceback" not in said + host_err
    assert "The spray to the host at 10.88.10.2:" in said, said
    assert "and spraying to 10.88.20.2" in host_err, host_err
    assert "Guest 10.88.20.2:" in host_err, host_err  # seated over a sprayed connection
    each_record_verifies(tmp_path / "replays")


@pytest.fixture
def edm_eim_pair(tmp_path: Path) -> Iterator[NatPair]:
    yield from homes_behind(tmp_path, Mapping.EDM, Mapping.EIM)


def test_a_whole_match_over_a_birthday_spray_when_the_host_maps_anew(edm_eim_pair: NatPair, tmp_path: Path) -> None:
    common = common_options(tmp_path, TWO_STUN)
    sides = punched_match(edm_eim_pair, tmp_path, [*RULES, *common], ["--timeout", "3", *common])
    invite = Invite.parse(sides.invite)
    answer = Answer.parse(sides.guest_lines[-1].strip())
    assert invite.maps_anew and invite.punch is not None  # flags bit 2: the host saw two ports
    assert not answer.spray and answer.punch is not None and answer.relay is None
    said, host_err = both_ended_well(sides), sides.host_err
    assert "Traceback" not in said + host_err
    assert "so we guess at its ports" in said, said
    assert "A guess at the host's ports at 10.88.10.2 got through." in said, said
    assert "and opening connections to 10.88.20.2:" in host_err, host_err
    each_record_verifies(tmp_path / "replays")


def test_stun_takes_several_servers_separated_by_commas() -> None:
    """A second STUN server is what lets a guest tell that its NAT maps each destination to a new port."""
    from p2p_koikoi.cli.netopts import stun_servers

    assert stun_servers("10.88.10.1:3478, 10.88.20.1") == (("10.88.10.1", 3478), ("10.88.20.1", 3478))
    assert stun_servers("none") == ()


def test_a_sprayed_match_cut_mid_way_is_sprayed_again(eim_edm_pair: NatPair, tmp_path: Path) -> None:
    """EIM host x EDM guest, sprayed; mid-match the host's router resets the connection for a moment: the
    guest holds its connections open to the host's candidate again, the host guesses at the guest's ports
    again from its STUN port, they resume over the first that meets, and the match is played out."""
    said = cut_and_mended(eim_edm_pair, tmp_path, [], TWO_STUN)
    assert "The spray to the host at 10.88.10.2:" in said, said


def test_a_sprayed_match_cut_mid_way_is_sprayed_again_when_the_host_maps_anew(
    edm_eim_pair: NatPair, tmp_path: Path
) -> None:
    """EDM host x EIM guest: after the cut the host holds its connections open to the guest's candidate
    again, and the guest guesses at the host's ports again from its STUN port."""
    said = cut_and_mended(edm_eim_pair, tmp_path, [], TWO_STUN)
    assert "A guess at the host's ports at 10.88.10.2 got through." in said, said
