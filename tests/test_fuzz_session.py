"""Hostile entries against the session: validly signed, well linked, in the right place, and wrong.

Two honest sessions play whole matches in memory; at every kind of point of the match (each seat,
stage, phase and kind of entry expected) we keep a copy of the receiving session. Hypothesis then
hands such a copy an entry the peer signed with its real key, with the right match id, seq, link and
state hash, so it passes every check of the chain and reaches the meaning:

- a body of the right shape with garbage in it (a deal message of the right kind with random points
  or keys, an action in words that names the wrong cards, a count that differs);
- the real entry with one field replaced;
- a real entry of the match from somewhere else (a valid one in the wrong phase).

Whatever it is, the session takes it (it was a legal alternative) or raises a
:class:`RemoteProtocolError` blaming the peer, and then it is over, with its goodbye naming the
violation. No other exception may escape, and nothing may be blamed on the receiving seat.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import hashlib
import os
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context

from p2p_koikoi.bots import RandomAgent
from p2p_koikoi.bots.base import MatchContext
from p2p_koikoi.engine import preset
from p2p_koikoi.engine.cards import Card
from p2p_koikoi.fairness import Commit, Deck, Keys, Reveal, Show, parse_message
from p2p_koikoi.fairness.cardpoints import CARD_POINTS
from p2p_koikoi.referee.findings import BadBytes
from p2p_koikoi.session.match_session import MatchSession, Stage, Waiting
from p2p_koikoi.wire import Entry, RemoteProtocolError, SignedEntry, public_bytes
from p2p_koikoi.wire.schema import KINDS

FUZZ = settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "250")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
CARD_IDS = [card.id for card in Card]


@dataclass(frozen=True)
class Point:
    """A receiving session just before the peer's entry ``real`` arrived."""

    session: MatchSession
    real: SignedEntry
    peer_key: Ed25519PrivateKey
    label: str

    def fresh(self) -> MatchSession:
        session = self.session
        return copy.deepcopy(session, {id(session.identity): session.identity})


@dataclass(frozen=True)
class Played:
    points: tuple[Point, ...]
    entries: tuple[SignedEntry, ...]  # every entry of the match, in order
    deal_messages: tuple[bytes, ...]


def _label(receiver: MatchSession, signed: SignedEntry) -> str:
    entry = signed.entry
    rnd = receiver.round
    what = entry.body[1].split()[0] if entry.kind == "move" else ""
    if entry.kind == "deal":
        what = type(parse_message(entry.body[2])).__name__
    phase = rnd.phase.value if rnd is not None else "-"
    return f"seat {receiver.seat} {receiver.stage.value}/{phase} <- {entry.kind} {what}"


@functools.cache
def played(rules_name: str, seed: int) -> Played:
    """A whole match between two random bots, with a copy of the receiver at the first arrival of
    every kind of entry at every kind of point."""
    keys = tuple(
        Ed25519PrivateKey.from_private_bytes(hashlib.sha256(f"fuzz {seat}".encode()).digest()) for seat in (0, 1)
    )
    nonces = (b"\x10" * 32, b"\x11" * 32)
    rules = preset(rules_name).with_option("rounds", "3")
    sessions = (
        MatchSession(0, keys[0], public_bytes(keys[1]), nonces, rules=rules, master_secret=bytes(32)),
        MatchSession(1, keys[1], public_bytes(keys[0]), nonces, master_secret=bytes([1]) * 32),
    )
    agents = (RandomAgent(seed), RandomAgent(seed + 1))
    points: dict[str, Point] = {}
    entries: list[SignedEntry] = []
    messages: set[bytes] = set()
    while not all(s.waiting is Waiting.DONE for s in sessions):
        for seat, session in enumerate(sessions):
            for signed in session.take_outgoing():
                entries.append(signed)
                if signed.entry.kind == "deal":
                    messages.add(signed.entry.body[2])
                elif signed.entry.kind == "move":
                    messages.update(m for m in signed.entry.body[2:] if m is not None)
                receiver = sessions[1 - seat]
                if receiver.waiting is Waiting.DONE:
                    continue
                label = _label(receiver, signed)
                if label not in points:
                    snapshot = copy.deepcopy(receiver, {id(receiver.identity): receiver.identity})
                    points[label] = Point(snapshot, signed, keys[seat], label)
                receiver.receive(signed)
        for seat, session in enumerate(sessions):
            if session.waiting is Waiting.ACCEPT:
                session.accept()
            elif session.waiting is Waiting.MOVE:
                view = session.view()
                assert view is not None and session.rules is not None and session.match is not None
                context = MatchContext(session.rules, seat, tuple(session.match.points), session.round_number)  # type: ignore[arg-type]
                session.submit(agents[seat].choose(view, session.legal_actions(), context))
    return Played(tuple(points.values()), tuple(entries), tuple(sorted(messages)))


MATCHES = [("rulebook", 3), ("nintendo", 5), ("lemme", 7)]


def all_points() -> list[Point]:
    return [p for name, seed in MATCHES for p in played(name, seed).points]


def test_the_matches_reach_every_stage() -> None:
    """The fuzzing below starts from every stage of a match, and from every phase of a round."""
    labels = " ".join(p.label for p in all_points())
    for stage in Stage:
        if stage not in (Stage.MATCH, Stage.OVER):
            assert f" {stage.value}/" in labels, stage
    for needed in ("play/hand-yaku", "play/play", "play/draw ", "play/draw-choice", "play/decision", "exchange/"):
        assert needed in labels, needed


# -- strategies ------------------------------------------------------------------------------------

cards = st.sampled_from(CARD_IDS)
PRINTABLE = st.text(st.characters(categories=["L", "M", "N", "P", "S"], include_characters=" "), max_size=40)
points32 = st.sampled_from(CARD_POINTS) | st.binary(min_size=32, max_size=32) | st.just(bytes(32))
positions = st.lists(st.integers(min_value=0, max_value=47), min_size=1, max_size=48, unique=True).map(sorted)


@st.composite
def deal_message(draw: st.DrawFn, known: tuple[bytes, ...]) -> bytes:
    """A deal message: one seen in the match (maybe with a byte flipped), or one of each kind built
    from garbage, or plain random bytes."""
    choice = draw(st.integers(min_value=0, max_value=7))
    if choice == 0:
        data = bytearray(draw(st.sampled_from(known)))
        if draw(st.booleans()):
            i = draw(st.integers(min_value=0, max_value=len(data) - 1))
            data[i] ^= draw(st.integers(min_value=1, max_value=255))
        return bytes(data)
    if choice == 1:
        return Commit(draw(st.binary(min_size=32, max_size=32))).to_bytes()
    if choice == 2:
        return Reveal(draw(st.binary(min_size=32, max_size=32))).to_bytes()
    if choice == 3:
        number = draw(st.integers(min_value=1, max_value=4))
        size = draw(st.sampled_from([48, 48, 47, 49, 0]))
        return Deck(number, tuple(draw(st.lists(points32, min_size=size, max_size=size)))).to_bytes()
    if choice == 4:
        where = draw(positions)
        return Keys(tuple(where), tuple(draw(points32) for _ in where)).to_bytes()
    if choice == 5:
        where = draw(positions.map(lambda p: p[:4]))
        shown = tuple(Card(draw(st.integers(min_value=0, max_value=47))) for _ in where)
        return Show(tuple(where), shown, tuple(draw(points32) for _ in where)).to_bytes()
    if choice == 6:
        return draw(st.binary(min_size=1, max_size=200))
    return draw(st.sampled_from(known))


def action_text() -> st.SearchStrategy[str]:
    words = st.sampled_from(["koikoi", "stop", "pass", "exchange", "keep", "no-hiki", "shobu", "koi-koi", "draw"])
    return st.one_of(
        cards.map(lambda c: f"play {c}"),
        st.tuples(cards, cards).map(lambda p: f"play {p[0]} take {p[1]}"),
        cards.map(lambda c: f"take {c}"),
        cards.map(lambda c: f"hiki {c}"),
        cards.map(lambda c: f"draw {c}"),
        st.tuples(st.sampled_from(["teshi", "kuttsuki", "goko"]), st.lists(cards, min_size=1, max_size=8)).map(
            lambda p: f"claim {p[0]} " + " ".join(p[1])
        ),
        words,
        PRINTABLE.map(lambda t: t[:30]),
        cards.map(lambda c: f"PLAY  {c}"),
    )


def field(kind: str, index: int, point: Point, known: tuple[bytes, ...]) -> st.SearchStrategy[Any]:
    """Values of the right type for field ``index`` of a ``kind`` body, mostly near the real ones."""
    session = point.session
    name = KINDS[kind][index][0]
    small = st.integers(min_value=0, max_value=12)
    if name == "round":
        return st.sampled_from([session.round_number]) | small
    if name == "redeal":
        return st.sampled_from([session.redeal]) | st.integers(min_value=0, max_value=63)
    if name == "message":
        return deal_message(known)
    if name in ("show", "keys"):
        return st.none() | deal_message(known)
    if name == "action":
        return action_text()
    if name == "outcome":
        return st.sampled_from(["stop", "auto-stop", "no-game", "drawn", "hand-yaku", "x"])
    if name == "winner":
        return st.integers(min_value=-1, max_value=1)
    if name == "payment":
        return st.integers(min_value=0, max_value=1_000_000)
    if name.startswith("points"):
        return st.integers(min_value=-1_000_000, max_value=1_000_000)
    if name in ("fingerprint",):
        return st.binary(min_size=32, max_size=32)
    if name in ("keys", "nonces"):
        return st.lists(st.binary(min_size=32, max_size=32), min_size=2, max_size=2)
    if name == "turn limit":
        return st.sampled_from([0, 30, 60])
    if name == "rules":
        return st.sampled_from(["nintendo", "lemme rounds=3", "rulebook", "nonsense", "nintendo rounds=7"])
    return PRINTABLE.map(lambda t: t[:40])


def body_for(kind: str, point: Point, known: tuple[bytes, ...]) -> st.SearchStrategy[list[Any]]:
    return st.tuples(*(field(kind, i, point, known) for i in range(len(KINDS[kind])))).map(list)


# -- the property ----------------------------------------------------------------------------------


def deliver(point: Point, kind: str, body: list[Any], *, state: bytes | None = None) -> MatchSession:
    """Sign ``kind``/``body`` as the peer, in the next place of the receiver's chain; decode it as the
    wire does, and hand it to a fresh copy of the receiver. Checks the property; returns the copy."""
    session = point.fresh()
    entry = Entry(
        session.match_id,
        session.chain.next_seq,
        session.chain.head,
        session.peer,
        kind,
        body,
        session.referee.state_hash() if state is None else state,
    )
    signed = SignedEntry.sign(entry, point.peer_key)
    try:
        wire = SignedEntry.parse(signed.data, signed.signature)
    except RemoteProtocolError as exc:
        assert exc.reason in ("bad-body", "bad-kind", "bad-entry"), exc.reason
        return session
    try:
        session.receive(wire)
    except RemoteProtocolError as exc:
        note_event(f"refused: {exc.reason}")
        assert exc.blame == session.peer, (exc.reason, exc.blame, str(exc))
        if isinstance(exc, BadBytes):
            assert len(session.chain.entries) == entry.seq
            # Bytes that never joined the chain end nothing (SPEC.md section 7): the runner drops the
            # connection and the match waits for the peer; the session is as it was, and accuses nobody.
            assert session.stage is not Stage.OVER and session.failure is None
            assert not [e for e in session.take_outgoing() if e.entry.kind == "goodbye"]
            raise
        assert session.stage is Stage.OVER and session.failure is exc
        goodbyes = [e for e in session.take_outgoing() if e.entry.kind == "goodbye"]
        if session.chain.entries:  # before the match entry there is no chain for a goodbye to join
            (goodbye,) = goodbyes
            assert goodbye.entry.body[0] == f"violation:{exc.reason}"[:60]
        raise
    note_event("taken")
    return session


def note_event(text: str) -> None:
    """Count outcomes for ``--hypothesis-show-statistics`` (how deep the fuzzing gets)."""
    if currently_in_test_context():
        event(text)


def point_strategy() -> st.SearchStrategy[Point]:
    return st.sampled_from(all_points())


def known_messages() -> tuple[bytes, ...]:
    return tuple(m for name, seed in MATCHES for m in played(name, seed).deal_messages)


@FUZZ
@given(st.data())
def test_garbage_bodies_in_the_right_place(data: st.DataObject) -> None:
    """A body of the right shape for a kind, with garbage in every field."""
    point = data.draw(point_strategy(), label="point")
    kind = data.draw(st.sampled_from([point.real.entry.kind] * 3 + list(KINDS)), label="kind")
    body = data.draw(body_for(kind, point, known_messages()), label="body")
    with contextlib.suppress(RemoteProtocolError):
        deliver(point, kind, body)


@FUZZ
@given(st.data())
def test_the_real_entry_with_one_field_replaced(data: st.DataObject) -> None:
    point = data.draw(point_strategy(), label="point")
    real = point.real.entry
    index = data.draw(st.integers(min_value=0, max_value=len(real.body) - 1), label="field")
    body = list(real.body)
    body[index] = data.draw(field(real.kind, index, point, known_messages()), label="value")
    with contextlib.suppress(RemoteProtocolError):
        deliver(point, real.kind, body)


def legal_alternative(point: Point, kind: str, body: list[Any]) -> bool:
    """Could the peer have written this here instead of what it wrote? (Then taking it is right.)"""
    real = point.real.entry
    if kind == "goodbye" or (kind, body) == (real.kind, real.body):
        return True
    decisions = ("koikoi", "stop")
    return (
        kind == real.kind == "move" and body[0] == real.body[0] and body[1] in decisions and real.body[1] in decisions
    )


@FUZZ
@given(st.data())
def test_valid_entries_in_the_wrong_place(data: st.DataObject) -> None:
    """A real entry of the match, re-signed by its own author for another place in the chain, is
    refused unless the peer could have written it there (a goodbye, the other decision)."""
    name, seed = data.draw(st.sampled_from(MATCHES), label="match")
    match = played(name, seed)
    point = data.draw(st.sampled_from(match.points), label="point")
    peer_entries = [e.entry for e in match.entries if e.entry.author == point.session.peer]
    source = data.draw(st.sampled_from(peer_entries), label="source")
    try:
        deliver(point, source.kind, list(source.body))
    except RemoteProtocolError:
        return
    assert legal_alternative(point, source.kind, list(source.body)), (point.label, source.kind, source.body)


@FUZZ
@given(st.data())
def test_the_real_entry_with_a_wrong_state_hash_is_a_desync(data: st.DataObject) -> None:
    point = data.draw(point_strategy(), label="point")
    state = data.draw(st.binary(min_size=16, max_size=16), label="state")
    real = point.real.entry
    if state == point.session.referee.state_hash() or real.kind == "goodbye":
        return
    try:
        deliver(point, real.kind, list(real.body), state=state)
    except RemoteProtocolError as exc:
        assert exc.reason == "desync"
    else:
        raise AssertionError("a wrong state hash was taken")


def test_every_real_entry_is_taken_at_its_point() -> None:
    """The control: unaltered, each kept entry is taken (so the refusals above are about the changes)."""
    for point in all_points():
        deliver(point, point.real.entry.kind, list(point.real.entry.body))
