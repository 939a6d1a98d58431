"""Two sessions piped in memory, with no network at all: a test alters one step of one side (a cheating
peer built from our own modules) and watches the other catch it."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.bots.base import Agent, MatchContext
from p2p_koikoi.engine import RuleSet
from p2p_koikoi.session.match_session import MatchSession, Waiting
from p2p_koikoi.wire import RemoteProtocolError, SignedEntry, public_bytes


@dataclass
class SessionPair:
    host: MatchSession
    guest: MatchSession
    keys: tuple[Ed25519PrivateKey, Ed25519PrivateKey]

    @property
    def sessions(self) -> tuple[MatchSession, MatchSession]:
        return (self.host, self.guest)


def session_pair(
    rules: RuleSet,
    entropy: Callable[[int], bytes] = secrets.token_bytes,
    names: tuple[str | None, str | None] = (None, None),
) -> SessionPair:
    """Two fresh sessions of one match; with :func:`deterministic_entropy` every byte of it (keys, nonces,
    secrets, so the deal too) is the same at every run, and a test that needs a case can pin its seed.
    ``names`` are the names the seats send in the setup."""
    nonces = (entropy(32), entropy(32))
    masters = (entropy(32), entropy(32))
    keys = (Ed25519PrivateKey.from_private_bytes(entropy(32)), Ed25519PrivateKey.from_private_bytes(entropy(32)))
    host = MatchSession(0, keys[0], public_bytes(keys[1]), nonces, rules=rules, master_secret=masters[0], name=names[0])
    guest = MatchSession(1, keys[1], public_bytes(keys[0]), nonces, master_secret=masters[1], name=names[1])
    return SessionPair(host, guest, keys)


Tamper = Callable[[int, SignedEntry], SignedEntry | None]


def pipe_sessions(
    pair: SessionPair,
    agents: tuple[Agent, Agent],
    *,
    tamper: Tamper | None = None,
    max_entries: int = 20_000,
) -> RemoteProtocolError | None:
    """Play the pair to the end. ``tamper(sender seat, entry)`` may replace or drop an entry in flight.

    Returns the first error a receiving side raised (the side that caught a cheat), or None.
    """
    sessions = pair.sessions
    delivered = 0
    while True:
        progressed = False
        for seat, session in enumerate(sessions):
            for signed in session.take_outgoing():
                if tamper is not None:
                    altered = tamper(seat, signed)
                    if altered is None:
                        continue
                    signed = altered
                receiver = sessions[1 - seat]
                if not receiver.takes_entries:
                    continue
                try:
                    receiver.receive(signed)
                except RemoteProtocolError as exc:
                    return exc
                delivered += 1
                progressed = True
        for seat, session in enumerate(sessions):
            progressed = decide(session, agents[seat]) or progressed
        if all(s.waiting is Waiting.DONE for s in sessions) and not any(s.outgoing for s in sessions):
            return None
        if not progressed:
            states = [(s.stage.value, s.waiting.value) for s in sessions]
            raise AssertionError(f"the sessions are stuck: {states}")
        if delivered > max_entries:
            raise AssertionError("the match does not end")


def decide(session: MatchSession, agent: Agent) -> bool:
    """Make the decision the session waits for, if any (accept the rules, or the agent's move)."""
    if session.waiting is Waiting.ACCEPT:
        session.accept()
        return True
    if session.waiting is not Waiting.MOVE:
        return False
    view = session.view()
    assert view is not None and session.rules is not None and session.match is not None
    points = (session.match.points[0], session.match.points[1])
    context = MatchContext(session.rules, session.seat, points, session.round_number)
    session.submit(agent.choose(view, session.legal_actions(), context))
    return True


def deterministic_entropy(label: bytes) -> Callable[[int], bytes]:
    """A reproducible stand-in for ``secrets.token_bytes``: SHA-256 of a label and a counter."""

    counter = [0]

    def entropy(n: int) -> bytes:
        counter[0] += 1
        out = b""
        block = 0
        while len(out) < n:
            out += hashlib.sha256(label + counter[0].to_bytes(4, "big") + block.to_bytes(4, "big")).digest()
            block += 1
        return out[:n]

    return entropy
