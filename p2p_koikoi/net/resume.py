"""Reconnecting to a match in progress: both prove they are the same keys in the same match, agree on
the last entry both have, and the one that has more sends the rest.

The dialler (the guest) sends ``resume`` with its key, the match id, how many entries it holds, the
digest of its last one, and a fresh nonce. The host answers with its own ``resume`` and a
``resume-proof``: its signature over the guest's nonce and its own count and head; the guest answers
with its proof over the host's nonce. Then the side holding more entries sends the ones the other
lacks, as ordinary entry frames, and the other takes them in (our own entries sent back to us are
written again and compared: :meth:`MatchSession.catch_up`). The chain checks every link, so two
copies that forked cannot be joined.

Two copies that part at their last common place may be a crossing rather than a fork (SPEC.md section
6): one seat's ``goodbye`` (a claim of the other's silence) and the other seat's own entries written for
the same place while the link was down. Then each side sends its entries from that place on (the place
is the shorter copy's last entry), and each judges the other's with them in hand
(:func:`_judge_crossing`): the seat whose own entries the ``goodbye`` crossed takes it in their place
(:meth:`MatchSession.receive` withdraws them and writes them again after it, for the run to send), the
seat that wrote the ``goodbye`` takes nothing and waits for them.

Anything else is a fork, a finding, not a bad connection: :class:`Fork`, raised at once by the side
holding more entries when its entries from the peer's head on are not all its own (no crossing can
explain it), else after the exchange. The peer's proof signed its head, so the fork carries it as
evidence (:class:`~p2p_koikoi.wire.resume_proof.ResumeClaim`, whose bytes and checks live in the wire
layer, so ``koikoi verify`` checks it too) a third party can check against our record, and blames the
peer. It is :class:`~p2p_koikoi.net.door.Conclusive`: a host's listener stops on it rather than dropping
the connection and waiting on.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.net.door import Conclusive
from p2p_koikoi.net.framed import ConnectionLost, FramedChannel
from p2p_koikoi.session.match_session import SOFTWARE, MatchSession
from p2p_koikoi.wire import VERSION, Hello, RemoteProtocolError, SignedEntry
from p2p_koikoi.wire.bodies import EntryKind
from p2p_koikoi.wire.frames import Frame, Resume, ResumeProof
from p2p_koikoi.wire.keys import check_public_key
from p2p_koikoi.wire.reasons import ReasonId
from p2p_koikoi.wire.resume_proof import RESUME_DOMAIN, ResumeClaim, proof_bytes

__all__ = ["RESUME_DOMAIN", "Fork", "NoSuchMatch", "ResumeClaim", "resume_as_guest", "resume_as_host"]


class NoSuchMatch(RemoteProtocolError):
    """The host answered our ``resume`` with a new ``match`` entry: it holds no unfinished match with us."""


class Fork(RemoteProtocolError, Conclusive):
    """The peer signed that its copy of the match holds ``claim.count`` entries ending in ``claim.head``,
    and our entry at that position is another (``ours``, its digest): the two copies forked, and the
    peer's own signature says so. ``blame`` is the peer's seat; :attr:`evidence` is what a note keeps,
    for a third party to check with the peer's key against our record (:meth:`ResumeClaim.forks_from`).

    Raised by the shorter copy after the crossing exchange, the copies part at ``at`` (our head's place),
    before the peer's head: the peer's entry there (``theirs``) came signed by its author, but the claim
    alone shows no fork against our record (its head lies past it)."""

    def __init__(
        self, claim: ResumeClaim, ours: bytes, blame: int, *, at: int | None = None, theirs: bytes = b""
    ) -> None:
        """``at``/``theirs``: where the copies part and the peer's entry there, when that is not the peer's
        head (its copy is the longer one, and its entries from ``at`` on came in the crossing exchange)."""
        where = claim.count - 1 if at is None else at
        if at is None or at == claim.count - 1:
            shown = f"the peer signed that its entry {where} is {claim.head.hex()[:16]}"
        else:
            shown = f"the peer signed a head chained through its entry {where}, {theirs.hex()[:16]}"
        super().__init__(
            ReasonId.FORK,
            f"{shown}, but ours is {ours.hex()[:16]}: its copy of the match forked from ours",
            blame=blame,
        )
        self.claim = claim
        self.ours = ours
        self.at = where

    @property
    def evidence(self) -> bytes:
        return self.claim.evidence


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
            if not await channel.keepalive(frame):
                return frame


def _check_peer(session: MatchSession, theirs: Resume) -> None:
    if theirs.match_id != session.match_id:
        raise RemoteProtocolError(ReasonId.WRONG_MATCH, "the peer resumes another match")
    problem = check_public_key(theirs.key)
    if problem is not None:
        raise RemoteProtocolError(ReasonId.BAD_KEY, f"the peer's identity key {problem}")
    if theirs.key != session.keys[session.peer]:
        raise RemoteProtocolError(
            ReasonId.WRONG_KEY, "the peer resumes with another key than the match was played with"
        )


def _check_proof(session: MatchSession, proof: Frame, my_nonce: bytes, theirs: Resume) -> ResumeClaim:
    """The peer's signed claim of its count and head, once its proof checks out."""
    if not isinstance(proof, ResumeProof):
        raise RemoteProtocolError(ReasonId.BAD_FRAME, "expected the peer's resume proof")
    claim = ResumeClaim(session.match_id, my_nonce, theirs.count, theirs.head, proof.signature)
    if not claim.signed_by(theirs.key):
        raise RemoteProtocolError(ReasonId.BAD_SIGNATURE, "the peer's resume proof is not signed by its key")
    return claim


async def resume_as_guest(
    channel: FramedChannel, session: MatchSession, identity: Ed25519PrivateKey, deadline: float = 10.0
) -> None:
    nonce = secrets.token_bytes(32)
    await channel.send(_ours(session, nonce))
    try:
        theirs = await _next(channel, deadline)
        if isinstance(theirs, SignedEntry) and theirs.entry.kind == EntryKind.MATCH:
            raise NoSuchMatch("no-match", "the host has no unfinished match with us: it offered a new one")
        if not isinstance(theirs, Resume):
            raise RemoteProtocolError(ReasonId.BAD_FRAME, "the host did not answer with resume")
        _check_peer(session, theirs)
        claim = _check_proof(session, await _next(channel, deadline), nonce, theirs)
    except trio.TooSlowError:
        raise ConnectionLost("the host did not answer the resume in time") from None
    mine = _ours(session, nonce)
    await channel.send(ResumeProof(identity.sign(proof_bytes(session.match_id, theirs.nonce, mine.count, mine.head))))
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
        raise RemoteProtocolError(ReasonId.BAD_FRAME, "a guest resuming starts with resume")
    _check_peer(session, theirs)
    nonce = secrets.token_bytes(32)
    mine = _ours(session, nonce)
    await channel.send(mine)
    await channel.send(ResumeProof(identity.sign(proof_bytes(session.match_id, theirs.nonce, mine.count, mine.head))))
    try:
        claim = _check_proof(session, await _next(channel, deadline), nonce, theirs)
    except trio.TooSlowError:
        raise ConnectionLost("the guest did not prove its key in time") from None
    await _exchange_missing(channel, session, claim, deadline)


async def _welcome(channel: FramedChannel, session: MatchSession, hello: Hello) -> None:
    """Answer the greeting of the guest of this match (anyone else is dropped); the nonces of this
    greeting serve nothing, since the match id was fixed when the match began."""
    if hello.key != session.keys[session.peer]:
        raise RemoteProtocolError(ReasonId.WRONG_KEY, "a guest greets that is not the one of this match")
    await channel.send(Hello(VERSION, session.keys[session.seat], secrets.token_bytes(32), SOFTWARE))


async def _entry(channel: FramedChannel, deadline: float, what: str) -> SignedEntry:
    try:
        frame = await _next(channel, deadline)
    except trio.TooSlowError:
        raise ConnectionLost(f"the peer did not send {what} in time") from None
    if not isinstance(frame, SignedEntry):
        raise RemoteProtocolError(ReasonId.BAD_FRAME, f"expected {what}")
    return frame


async def _exchange_missing(
    channel: FramedChannel, session: MatchSession, theirs: ResumeClaim, deadline: float
) -> None:
    """After the proofs: the side holding more sends what the other lacks; two copies that part at the
    shorter one's last entry first show each other their entries from there (a crossing, or a fork)."""
    entries = session.chain.entries
    mine = len(entries)
    if mine >= theirs.count:
        if not theirs.forks_from(entries):
            await _send_lacking(channel, session, theirs.count)
            return
        at = theirs.count - 1
        if mine > theirs.count and any(e.entry.author != session.seat for e in entries[at:]):
            raise Fork(theirs, entries[at].digest, session.peer)  # no crossing: the peer's copy forked
        await _send_from(channel, session, at)
        branch = [await _entry(channel, deadline, "its last entry")]
    else:
        first = await _entry(channel, deadline, "the entries we missed")
        if mine == 0 or first.entry.seq != mine - 1:
            session.catch_up(first)
            for _ in range(theirs.count - mine - 1):
                session.catch_up(await _entry(channel, deadline, "the entries we missed"))
            session.mark_sent(theirs.count)
            return
        at = mine - 1  # the peer shows its entries from our head's place on: the copies part there
        await _send_from(channel, session, at)
        branch = [first]
        for _ in range(theirs.count - mine):
            branch.append(await _entry(channel, deadline, "its entries from where the copies part"))
    _check_branch(session, theirs, at, branch)
    if _judge_crossing(session, theirs, at, branch):
        session.receive(branch[0])  # the peer's goodbye takes the place: ours are withdrawn, written again
        # The peer holds our chain up to its goodbye; ours written again after it are in our outbox, for the
        # run to record (after a ``withdrawn`` note, see take_withdrawals) and send.
        session.mark_sent(at + 1)
    else:  # our goodbye stands at the place, sent just now: the peer takes it and writes its entries again
        session.mark_sent(len(session.chain.entries))


async def _send_lacking(channel: FramedChannel, session: MatchSession, count: int) -> None:
    """Send our entries from ``count`` on (the peer reads as many as our signed count says it lacks); none
    of them goes out again from our outbox (a claim written while the peer was gone, say)."""
    entries = session.chain.entries
    for signed in entries[count:]:
        await channel.send(signed)
    session.mark_sent(len(entries))


async def _send_from(channel: FramedChannel, session: MatchSession, at: int) -> None:
    """Our entries from the place where the two copies part to our head, for the peer to judge."""
    for signed in session.chain.entries[at:]:
        await channel.send(signed)


def _check_branch(session: MatchSession, theirs: ResumeClaim, at: int, branch: Sequence[SignedEntry]) -> None:
    """The peer's entries from ``at`` to its head: each signed by its author, linked to the one before, the
    last the head its resume proof signed. Bytes that are not that never join anything: a connection fault."""
    for index, signed in enumerate(branch):
        entry = signed.entry
        if entry.match_id != session.match_id:
            raise RemoteProtocolError(ReasonId.WRONG_MATCH, "an entry of another match")
        if entry.seq != at + index:
            raise RemoteProtocolError(ReasonId.BAD_SEQ, f"expected the peer's entry {at + index}, got {entry.seq}")
        if index and entry.prev != branch[index - 1].digest:
            raise RemoteProtocolError(
                ReasonId.BAD_LINK, f"the peer's entry {entry.seq} is not linked to the one before"
            )
        signed.verify(session.keys[entry.author])
    if branch[-1].digest != theirs.head:
        raise RemoteProtocolError(
            ReasonId.BAD_LINK, "the peer's entries do not end in the head its resume proof signed"
        )


def _judge_crossing(session: MatchSession, theirs: ResumeClaim, at: int, branch: Sequence[SignedEntry]) -> bool:
    """The two copies part at ``at``: ours holds ``entries[at:]``, the peer's ``branch``. A crossing (SPEC.md
    section 6) when both follow one ``prev``, ours are all ours and the peer's all its own, and one of the
    two is a ``goodbye`` standing alone at the end of its copy. True: the peer's ``goodbye`` crossed our
    entries, we take it (the session withdraws them); False: our ``goodbye`` crossed the peer's entries,
    the peer takes it, and we take nothing. Else :class:`Fork`, blaming the peer."""
    entries = session.chain.entries
    ours, first = entries[at], branch[0]
    if ours.data == first.data:
        raise RemoteProtocolError(
            ReasonId.BAD_FRAME, f"the peer showed entry {at} as where the copies part, but we hold it"
        )
    same_prev = ours.entry.prev == first.entry.prev
    all_ours = all(e.entry.author == session.seat for e in entries[at:])
    all_theirs = all(e.entry.author == session.peer for e in branch)
    if same_prev and all_ours and all_theirs:
        if ours.entry.kind == EntryKind.GOODBYE and len(entries) == at + 1:
            return False  # our goodbye: the peer withdraws its entries and writes them again after it
        if first.entry.kind == EntryKind.GOODBYE and len(branch) == 1 and ours.entry.kind != EntryKind.GOODBYE:
            return True  # the peer's goodbye: ours are withdrawn, and written again after it
    raise Fork(theirs, ours.digest, session.peer, at=at, theirs=first.digest)
