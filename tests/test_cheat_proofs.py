"""The two attacks of issue 12 in a whole match: the honest program (real session and runner) against
a session whose deal has one step altered (the cheating FairDeals of ``test_fairness_attacks``).

The honest side must end the match on the cheater's deck entry, with the reason id, before it sends
any key; ``koikoi verify`` on its record must name the same entry, for the same reason. In memory (the
real runner on both sides) and over loopback TCP against a ``koikoi host`` process.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio.testing
from test_cheat_support import assert_caught
from test_cheat_tcp import against_the_host, assert_host_caught
from test_fairness_attacks import MixingLock, TracerShuffle

from p2p_koikoi.engine import preset
from p2p_koikoi.fairness import DealContext, Deck, FairDeal, Keys, Purpose, parse_message
from p2p_koikoi.net.framed import FramedChannel
from p2p_koikoi.net.handshake import greet_as_guest
from p2p_koikoi.session.match_session import MatchSession, Stage
from p2p_koikoi.testing.adversary import duel
from p2p_koikoi.wire import VERSION, Hello, RemoteProtocolError

RULES = preset("nintendo")


def cheating_session(deal_class: type[FairDeal]) -> type[MatchSession]:
    class Cheater(MatchSession):
        """Plays honestly but for round 1's deal, whose one pass ``deal_class`` alters."""

        def new_deal(
            self, context: DealContext, seat: int, keys: tuple[bytes, bytes], secret: bytes, **layout: Any
        ) -> FairDeal:
            if context.purpose is Purpose.ROUND_DEAL and context.round == 1 and context.redeal == 0:
                return deal_class(context, seat, keys, secret, **layout)
            return super().new_deal(context, seat, keys, secret, **layout)

    return Cheater


@pytest.mark.parametrize(
    ("deal_class", "seat", "number", "reason"),
    [(MixingLock, 0, 3, "bad-lock-proof"), (TracerShuffle, 1, 2, "bad-shuffle-proof")],
    ids=["mixing-positions-in-a-lock-pass", "tracer-in-a-shuffle-pass"],
)
async def test_the_attack_ends_the_match_on_its_deck_entry(
    tmp_path: Path, deal_class: type[FairDeal], seat: int, number: int, reason: str
) -> None:
    d = await duel(RULES, tmp_path, cheater=cheating_session(deal_class), cheater_seat=seat)
    deck_entry = d.record.entries[-2]  # the last entry before the honest side's goodbye
    deck = parse_message(deck_entry.entry.body[2])
    assert isinstance(deck, Deck) and deck.number == number and deck_entry.entry.author == seat
    assert_caught(d, reason, blame=seat, offending=deck_entry, stage=Stage.SETUP)
    honest = 1 - seat
    sent_keys = [
        e
        for e in d.record.entries
        if e.entry.author == honest and e.entry.kind == "deal" and isinstance(parse_message(e.entry.body[2]), Keys)
    ]
    assert sent_keys == [] or all(e.entry.body[0] == 0 for e in sent_keys)  # only the first-dealer draw's


@pytest.mark.parametrize(
    ("deal_class", "number", "reason"),
    [(MixingLock, 4, "bad-lock-proof"), (TracerShuffle, 2, "bad-shuffle-proof")],
    ids=["mixing-positions-in-a-lock-pass", "tracer-in-a-shuffle-pass"],
)
async def test_the_attack_against_the_real_host(
    tmp_path: Path, deal_class: type[FairDeal], number: int, reason: str
) -> None:
    """The cheating guest dials ``koikoi host``; the host process ends the match on the altered deck."""
    run = await against_the_host(tmp_path, cheater=cheating_session(deal_class))
    deck_entry = run.record.entries[-2]
    deck = parse_message(deck_entry.entry.body[2])
    assert isinstance(deck, Deck) and deck.number == number
    assert_host_caught(run, reason, offending=deck_entry)


async def test_a_peer_of_the_previous_version_is_refused_in_one_line() -> None:
    """Version 1 had no proofs: a host still speaking it is refused at the handshake, in one line."""
    host_end, guest_end = trio.testing.memory_stream_pair()
    host, guest = FramedChannel(host_end), FramedChannel(guest_end)
    await host.send(Hello(VERSION - 1, b"h" * 32, b"n" * 32, "p2p-koikoi 0.1"))
    with pytest.raises(RemoteProtocolError) as info:
        await greet_as_guest(guest, b"g" * 32)
    assert info.value.reason == "bad-version"
    assert str(info.value) == f"the peer speaks protocol version {VERSION - 1}; we speak {VERSION}"
