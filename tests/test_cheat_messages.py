"""Cheating with the messages themselves: replays, another match's entries, other keys, forks.

The cheater here plays honestly; what it sends is altered in flight (a :data:`Tamper` on its
channel). None of these entries can join the honest side's chain, and nobody but the honest side
ever saw them, so they end nothing on their own (SPEC.md section 7): the honest side keeps the
offending bytes in a note of the record, signature and all, and drops the connection. The cheater
is then gone for good, and silence loses: the honest record is the honest seat's win by the
cheater's silence, marked as claimed (``assert_dropped``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from test_cheat_support import assert_dropped, at_move, fork, last_own_entry, note_entry

from p2p_koikoi.engine import preset
from p2p_koikoi.session.match_session import MatchSession, Stage
from p2p_koikoi.testing.adversary import duel, forge, seeded_key, signing_key
from p2p_koikoi.wire import SignedEntry, public_bytes
from p2p_koikoi.wire.frames import Frame

RULES = preset("nintendo")
CHEATER = 1

async def test_replaying_an_old_entry_is_caught_on_receipt(tmp_path: Path) -> None:
    """The cheater sends one of its own earlier entries again, byte for byte (validly signed), before its
    move: ``replayed-entry`` names the entry replayed; the honest side takes nothing after it."""
    replayed: list[SignedEntry] = []

    def replay(session: MatchSession, signed: SignedEntry) -> Sequence[Frame]:
        replayed.append(last_own_entry(session, signed.entry.seq))
        return [replayed[0], signed]

    d = await duel(RULES, tmp_path, tamper=at_move(3, replay))
    record = assert_dropped(d, "replayed-entry", stage=Stage.PLAY)
    assert f"repeats entry {replayed[0].entry.seq}" in record.notes[0].text
    assert record.entries[replayed[0].entry.seq].data == replayed[0].data


async def test_sending_back_the_honest_sides_own_entry_blames_the_sender(tmp_path: Path) -> None:
    """A replay of an entry the honest side wrote itself (validly signed, by the honest key) is still
    the sender's fault: whoever signed it, the peer is the one who sent it again."""

    def replay(session: MatchSession, signed: SignedEntry) -> Sequence[Frame]:
        theirs = next(e for e in reversed(session.chain.entries) if e.entry.author != session.seat)
        return [theirs, signed]

    d = await duel(RULES, tmp_path, tamper=at_move(3, replay))
    assert_dropped(d, "replayed-entry", stage=Stage.PLAY)


def other_match_accept(cheater_key_seat: int) -> Callable[[MatchSession, SignedEntry], Sequence[Frame]]:
    """A real entry the cheater signed in another match (its ``accept`` there, or its ``match`` offer
    when it hosted that one), sent instead of its move."""

    def act(session: MatchSession, signed: SignedEntry) -> Sequence[Frame]:
        key = signing_key(session)
        stranger = seeded_key("a stranger")
        nonces = (b"\x01" * 32, b"\x02" * 32)
        if cheater_key_seat == 0:
            host = MatchSession(0, key, public_bytes(stranger), nonces, rules=RULES)
            return host.take_outgoing()[:1]
        host = MatchSession(0, stranger, public_bytes(key), nonces, rules=RULES)
        guest = MatchSession(1, key, public_bytes(stranger), nonces)
        guest.receive(host.take_outgoing()[0])
        guest.accept()
        return [guest.take_outgoing()[0]]

    return act


async def test_an_entry_from_another_match_is_caught_on_receipt(tmp_path: Path) -> None:
    """The cheater's own validly signed ``accept`` from a match with someone else: ``wrong-match``."""
    d = await duel(RULES, tmp_path, tamper=at_move(2, other_match_accept(1)))
    record = assert_dropped(d, "wrong-match", stage=Stage.PLAY)
    evidence = note_entry(record.notes[0])
    assert evidence.entry.kind == "accept" and evidence.entry.match_id != d.honest.match_id
    evidence.verify(public_bytes(signing_key(d.cheater)))  # signed by the cheater: proof it sent it


async def test_an_entry_from_another_match_in_the_other_seat_blames_the_sender(tmp_path: Path) -> None:
    """The same, with the cheater's ``match`` offer from a match it hosted: that entry names seat 0 as its
    author, yet the guest sent it here, so the guest is to blame, not the honest host."""
    d = await duel(RULES, tmp_path, tamper=at_move(2, other_match_accept(0)))
    assert_dropped(d, "bad-signature", stage=Stage.PLAY)


async def test_an_entry_signed_with_another_key_is_caught_on_receipt(tmp_path: Path) -> None:
    """The cheater's move re-signed with a key that is not its identity: ``bad-signature``."""

    def resign(session: MatchSession, signed: SignedEntry) -> Sequence[Frame]:
        return [forge(signed, seeded_key("not the cheater's"))]

    d = await duel(RULES, tmp_path, tamper=at_move(2, resign))
    record = assert_dropped(d, "bad-signature", stage=Stage.PLAY)
    assert note_entry(record.notes[0]).entry.kind == "move"


async def test_a_goodbye_signed_with_another_key_is_caught_on_receipt(tmp_path: Path) -> None:
    """A ``goodbye`` is taken whenever it comes (it may cross an entry in flight), so it is the one
    entry checked outside the floor; a forged one must still be caught, and end the match at once."""

    def forged_goodbye(session: MatchSession, signed: SignedEntry) -> Sequence[Frame]:
        return [forge(signed, seeded_key("not the cheater's"), kind="goodbye", body=["quit", "I give up", None])]

    d = await duel(RULES, tmp_path, tamper=at_move(2, forged_goodbye))
    record = assert_dropped(d, "bad-signature", stage=Stage.PLAY)
    assert note_entry(record.notes[0]).entry.kind == "goodbye"


async def test_a_forged_author_is_blamed_on_the_sender(tmp_path: Path) -> None:
    """The cheater signs its move but names the honest seat as its author: whoever it names, the sender
    is to blame."""

    def disguise(session: MatchSession, signed: SignedEntry) -> Sequence[Frame]:
        return [forge(signed, signing_key(session), author=1 - session.seat)]

    d = await duel(RULES, tmp_path, tamper=at_move(2, disguise))
    assert_dropped(d, "bad-signature", stage=Stage.PLAY)


async def test_a_fork_is_caught_on_receipt(tmp_path: Path) -> None:
    """After its move is taken, the cheater sends a second, different entry with the seq of one of its
    earlier entries, validly signed: two entries with one seq signed by one key prove a fork."""
    forked: list[SignedEntry] = []
    d = await duel(RULES, tmp_path, tamper=at_move(3, fork(forked)))
    record = assert_dropped(d, "fork", stage=Stage.PLAY)
    seq = forked[0].entry.seq
    assert f"seat {CHEATER} signed two different entries numbered {seq}" in record.notes[0].text
    twin = note_entry(record.notes[0])
    assert twin.entry.seq == seq and twin.data != record.entries[seq].data
    for signed in (twin, record.entries[seq]):
        signed.verify(public_bytes(signing_key(d.cheater)))  # both validly signed by the cheater
