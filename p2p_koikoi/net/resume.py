"""Reconnecting to a match in progress: both prove they are the same keys in the same match, agree on
the last entry both have, and the one that has more sends the rest.

The dialler (the guest) sends ``resume`` with its key, the match id, how many entries it holds, the
digest of its last one, and a fresh nonce. The host answers with its own ``resume`` and a
``resume-proof``: its signature over the guest's nonce and its own count and head; the guest answers
with its proof over the host's nonce. Then the side holding more entries sends the ones the other
lacks, as ordinary entry frames, and the other takes them in (our own entries sent back to us are
written again and compared: :meth:`MatchSession.catch_up`). The chain checks every link, so two
copies that forked cannot be joined.
"""

from __future__ import annotations

import secrets

import trio
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from p2p_koikoi.net.framed import ConnectionLost, FramedChannel
from p2p_koikoi.session.match_session import MatchSession
from p2p_koikoi.wire import VERSION, Ping, Pong, RemoteProtocolError, SignedEntry
from p2p_koikoi.wire.frames import Frame, Resume, ResumeProof
from p2p_koikoi.wire.keys import check_public_key

__all__ = ["RESUME_DOMAIN", "resume_as_guest", "resume_as_host"]

RESUME_DOMAIN = b"p2p-koikoi/resume/v1\x00"


def _proof_bytes(match_id: bytes, peer_nonce: bytes, count: int, head: bytes) -> bytes:
    return RESUME_DOMAIN + match_id + peer_nonce + count.to_bytes(8, "big") + head


def _ours(session: MatchSession, nonce: bytes) -> Resume:
    chain = session.chain
    return Resume(VERSION, session.keys[session.seat], session.match_id, len(chain.entries), chain.head, nonce)


async def _next(channel: FramedChannel, deadline: float) -> Frame:
    """The next frame that is not a keepalive."""
    with trio.fail_after(deadline):
        while True:
            frame = await channel.receive()
            if frame is None:
                raise ConnectionLost("the peer closed the connection while resuming")
            if isinstance(frame, Ping):
                await channel.send(Pong(frame.n))
            elif not isinstance(frame, Pong):
                return frame


def _check_peer(session: MatchSession, theirs: Resume) -> None:
    if theirs.match_id != session.match_id:
        raise RemoteProtocolError("wrong-match", "the peer resumes another match")
    problem = check_public_key(theirs.key)
    if problem is not None:
        raise RemoteProtocolError("bad-key", f"the peer's identity key {problem}")
    if theirs.key != session.keys[session.peer]:
        raise RemoteProtocolError("wrong-key", "the peer resumes with another key than the match was played with")


def _check_proof(session: MatchSession, proof: Frame, my_nonce: bytes, theirs: Resume) -> None:
    if not isinstance(proof, ResumeProof):
        raise RemoteProtocolError("bad-frame", "expected the peer's resume proof")
    try:
        Ed25519PublicKey.from_public_bytes(theirs.key).verify(
            proof.signature, _proof_bytes(session.match_id, my_nonce, theirs.count, theirs.head)
        )
    except InvalidSignature:
        raise RemoteProtocolError("bad-signature", "the peer's resume proof is not signed by its key") from None


async def resume_as_guest(
    channel: FramedChannel, session: MatchSession, identity: Ed25519PrivateKey, deadline: float = 10.0
) -> None:
    nonce = secrets.token_bytes(32)
    await channel.send(_ours(session, nonce))
    try:
        theirs = await _next(channel, deadline)
        if not isinstance(theirs, Resume):
            raise RemoteProtocolError("bad-frame", "the host did not answer with resume")
        _check_peer(session, theirs)
        _check_proof(session, await _next(channel, deadline), nonce, theirs)
    except trio.TooSlowError:
        raise ConnectionLost("the host did not answer the resume in time") from None
    mine = _ours(session, nonce)
    await channel.send(ResumeProof(identity.sign(_proof_bytes(session.match_id, theirs.nonce, mine.count, mine.head))))
    await _exchange_missing(channel, session, theirs, deadline)


async def resume_as_host(
    channel: FramedChannel, session: MatchSession, identity: Ed25519PrivateKey, deadline: float = 10.0
) -> None:
    try:
        theirs = await _next(channel, deadline)
    except trio.TooSlowError:
        raise ConnectionLost("no resume from the guest in time") from None
    if not isinstance(theirs, Resume):
        raise RemoteProtocolError("bad-frame", "a guest resuming starts with resume")
    _check_peer(session, theirs)
    nonce = secrets.token_bytes(32)
    mine = _ours(session, nonce)
    await channel.send(mine)
    await channel.send(ResumeProof(identity.sign(_proof_bytes(session.match_id, theirs.nonce, mine.count, mine.head))))
    try:
        _check_proof(session, await _next(channel, deadline), nonce, theirs)
    except trio.TooSlowError:
        raise ConnectionLost("the guest did not prove its key in time") from None
    await _exchange_missing(channel, session, theirs, deadline)


async def _exchange_missing(channel: FramedChannel, session: MatchSession, theirs: Resume, deadline: float) -> None:
    entries = session.chain.entries
    mine = len(entries)
    if mine >= theirs.count:
        if theirs.count and entries[theirs.count - 1].digest != theirs.head:
            raise RemoteProtocolError("fork", f"the peer's entry {theirs.count - 1} differs from ours")
        for signed in entries[theirs.count :]:
            await channel.send(signed)
    else:
        for _ in range(theirs.count - mine):
            try:
                frame = await _next(channel, deadline)
            except trio.TooSlowError:
                raise ConnectionLost("the peer did not send the entries we missed in time") from None
            if not isinstance(frame, SignedEntry):
                raise RemoteProtocolError("bad-frame", "expected the entries we missed")
            session.catch_up(frame)
    session.mark_sent(theirs.count)
