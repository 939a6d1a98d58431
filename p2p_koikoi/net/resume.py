"""Reconnecting to a match in progress: both prove they are the same keys in the same match, agree on
the last entry both have, and the one that has more sends the rest.

The dialler (the guest) sends ``resume`` with its key, the match id, how many entries it holds, the
digest of its last one, and a fresh nonce. The host answers with its own ``resume`` and a
``resume-proof``: its signature over the guest's nonce and its own count and head; the guest answers
with its proof over the host's nonce. Then the side holding more entries sends the ones the other
lacks, as ordinary entry frames, and the other takes them in (our own entries sent back to us are
written again and compared: :meth:`MatchSession.catch_up`). The chain checks every link, so two
copies that forked cannot be joined.

A fork shown at resume is a finding, not a bad connection: the side holding more entries raises
:class:`Fork` when the peer's signed head is not its own entry at that position. The peer's proof
signed that head, so the fork carries it as evidence (:class:`ResumeClaim`) a third party can check
against our record, and blames the peer. It is :class:`~p2p_koikoi.net.door.Conclusive`: a host's
listener stops on it rather than dropping the connection and waiting on.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass

import trio
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from p2p_koikoi.net.door import Conclusive
from p2p_koikoi.net.framed import ConnectionLost, FramedChannel
from p2p_koikoi.session.match_session import SOFTWARE, MatchSession
from p2p_koikoi.wire import VERSION, Hello, Ping, Pong, RemoteProtocolError, SignedEntry
from p2p_koikoi.wire.frames import Frame, Resume, ResumeProof
from p2p_koikoi.wire.keys import check_public_key

__all__ = ["RESUME_DOMAIN", "Fork", "NoSuchMatch", "ResumeClaim", "resume_as_guest", "resume_as_host"]

RESUME_DOMAIN = b"p2p-koikoi/resume/v1\x00"
_CLAIM_LENGTH = len(RESUME_DOMAIN) + 32 + 32 + 8 + 32 + 64  # match id, nonce, count, head, signature


class NoSuchMatch(RemoteProtocolError):
    """The host answered our ``resume`` with a new ``match`` entry: it holds no unfinished match with us."""


@dataclass(frozen=True, slots=True)
class ResumeClaim:
    """What a peer signed while resuming (its ``resume-proof``): in the match ``match_id`` it holds
    ``count`` entries, the last with digest ``head``; proven to whoever chose ``nonce`` (us)."""

    match_id: bytes
    nonce: bytes
    count: int
    head: bytes
    signature: bytes

    @property
    def signed_bytes(self) -> bytes:
        return _proof_bytes(self.match_id, self.nonce, self.count, self.head)

    @property
    def evidence(self) -> bytes:
        """For a record's note: the signed bytes, then the 64-byte signature (as a note keeps an entry)."""
        return self.signed_bytes + self.signature

    @classmethod
    def parse(cls, evidence: bytes) -> ResumeClaim:
        """The claim kept as a note's evidence; :class:`ValueError` if the bytes are not one."""
        if len(evidence) != _CLAIM_LENGTH or not evidence.startswith(RESUME_DOMAIN):
            raise ValueError("not a resume proof kept as evidence")
        rest = evidence[len(RESUME_DOMAIN) :]
        match_id, nonce, count, head, signature = rest[:32], rest[32:64], rest[64:72], rest[72:104], rest[104:]
        return cls(match_id, nonce, int.from_bytes(count, "big"), head, signature)

    def signed_by(self, key: bytes) -> bool:
        try:
            Ed25519PublicKey.from_public_bytes(key).verify(self.signature, self.signed_bytes)
        except (InvalidSignature, ValueError):
            return False
        return True

    def forks_from(self, entries: Sequence[SignedEntry]) -> bool:
        """Whether the claimed head is not the entry at that position of ``entries`` (a chain that holds it)."""
        return 0 < self.count <= len(entries) and entries[self.count - 1].digest != self.head


class Fork(RemoteProtocolError, Conclusive):
    """The peer signed that its copy of the match holds ``claim.count`` entries ending in ``claim.head``,
    and our entry at that position is another (``ours``, its digest): the two copies forked, and the
    peer's own signature says so. ``blame`` is the peer's seat; :attr:`evidence` is what a note keeps,
    for a third party to check with the peer's key against our record (:meth:`ResumeClaim.forks_from`)."""

    def __init__(self, claim: ResumeClaim, ours: bytes, blame: int) -> None:
        at = claim.count - 1
        super().__init__(
            "fork",
            f"the peer signed that its entry {at} is {claim.head.hex()[:16]}, but ours is {ours.hex()[:16]}: "
            "its copy of the match forked from ours",
            blame=blame,
        )
        self.claim = claim
        self.ours = ours

    @property
    def evidence(self) -> bytes:
        return self.claim.evidence


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


def _check_proof(session: MatchSession, proof: Frame, my_nonce: bytes, theirs: Resume) -> ResumeClaim:
    """The peer's signed claim of its count and head, once its proof checks out."""
    if not isinstance(proof, ResumeProof):
        raise RemoteProtocolError("bad-frame", "expected the peer's resume proof")
    claim = ResumeClaim(session.match_id, my_nonce, theirs.count, theirs.head, proof.signature)
    if not claim.signed_by(theirs.key):
        raise RemoteProtocolError("bad-signature", "the peer's resume proof is not signed by its key")
    return claim


async def resume_as_guest(
    channel: FramedChannel, session: MatchSession, identity: Ed25519PrivateKey, deadline: float = 10.0
) -> None:
    nonce = secrets.token_bytes(32)
    await channel.send(_ours(session, nonce))
    try:
        theirs = await _next(channel, deadline)
        if isinstance(theirs, SignedEntry) and theirs.entry.kind == "match":
            raise NoSuchMatch("no-match", "the host has no unfinished match with us: it offered a new one")
        if not isinstance(theirs, Resume):
            raise RemoteProtocolError("bad-frame", "the host did not answer with resume")
        _check_peer(session, theirs)
        claim = _check_proof(session, await _next(channel, deadline), nonce, theirs)
    except trio.TooSlowError:
        raise ConnectionLost("the host did not answer the resume in time") from None
    mine = _ours(session, nonce)
    await channel.send(ResumeProof(identity.sign(_proof_bytes(session.match_id, theirs.nonce, mine.count, mine.head))))
    await _exchange_missing(channel, session, claim, deadline)


async def resume_as_host(
    channel: FramedChannel,
    session: MatchSession,
    identity: Ed25519PrivateKey,
    deadline: float = 10.0,
    *,
    welcome: bool = False,
) -> None:
    """``welcome``: the guest may also come back greeting afresh (a plain ``koikoi join`` after a crash,
    SPEC.md section 8, "Rejoining"): its ``hello`` is answered with ours, then its ``resume`` is taken."""
    try:
        theirs = await _next(channel, deadline)
        if welcome and isinstance(theirs, Hello):
            await _welcome(channel, session, theirs)
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
        claim = _check_proof(session, await _next(channel, deadline), nonce, theirs)
    except trio.TooSlowError:
        raise ConnectionLost("the guest did not prove its key in time") from None
    await _exchange_missing(channel, session, claim, deadline)


async def _welcome(channel: FramedChannel, session: MatchSession, hello: Hello) -> None:
    """Answer the greeting of the guest of this match (anyone else is dropped); the nonces of this
    greeting serve nothing, since the match id was fixed when the match began."""
    if hello.key != session.keys[session.peer]:
        raise RemoteProtocolError("wrong-key", "a guest greets that is not the one of this match")
    await channel.send(Hello(VERSION, session.keys[session.seat], secrets.token_bytes(32), SOFTWARE))


async def _exchange_missing(
    channel: FramedChannel, session: MatchSession, theirs: ResumeClaim, deadline: float
) -> None:
    entries = session.chain.entries
    mine = len(entries)
    if mine >= theirs.count:
        if theirs.forks_from(entries):
            raise Fork(theirs, entries[theirs.count - 1].digest, session.peer)
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
