"""Every reason id SPEC.md section 6 lists is produced by a test that names it (issue 25, "Done when").

The ids other tests did not yet produce are produced here: a repeated objection, a weak key in the match
entry, a duplicated card and an unusable secret in a deal, the door's refusals of a port that does not speak
koikoi and of a peer presenting our own key. The referee's three guards (``bad-draw``, ``audit-missing``,
``audit:outcome``) cannot fail while the checks before them pass, so they are produced by a referee with
that one earlier check altered: a defence in depth that still names the entry, never a traceback.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from test_fairness_support import CONTEXT, IDENTITY_KEYS, SECRETS, Pipe

from p2p_koikoi.engine import Card, preset
from p2p_koikoi.fairness import CheatingDetected, Commit, Keys, Reason, Reveal, derive, parse_message
from p2p_koikoi.fairness import session as fairness_session
from p2p_koikoi.fairness.audit import open_contribution
from p2p_koikoi.fairness.commit import commitment
from p2p_koikoi.net.handshake import NotKoikoi, greet_as_guest, greet_as_host
from p2p_koikoi.referee import referee as referee_module
from p2p_koikoi.referee.endings import ENDING_RULES, INTEGRITY_REASONS
from p2p_koikoi.referee.findings import Violation
from p2p_koikoi.session.events import SessionEnd
from p2p_koikoi.session.match_session import MatchSession, Waiting
from p2p_koikoi.testing import SessionPair, deterministic_entropy
from p2p_koikoi.wire import RemoteProtocolError, SignedEntry, public_bytes
from tests.record_support import honest, resign, verify_entries
from tests.test_endings import deliver, play_until
from tests.test_spec_tables import reason_ids_in_code

ROOT = Path(__file__).resolve().parent.parent
SPEC = (ROOT / "protocol" / "SPEC.md").read_text()


def _spec_reason_ids() -> set[str]:
    section = SPEC.split("## 6.")[1].split("## 7.")[0]
    listed = set(re.findall(r"`([a-z][a-z:-]*[a-z])`", section)) - {rule.name for rule in ENDING_RULES}
    return listed & (reason_ids_in_code() | INTEGRITY_REASONS)


def test_every_reason_id_spec_md_lists_is_produced_by_a_test_that_names_it() -> None:
    """A test names the id (as the literal, or its ``Reason`` member) where it produces it; the spec's
    own table tests do not count, since they only list."""
    members = {reason.value: f"Reason.{reason.name}" for reason in Reason}
    texts = [p.read_text() for p in (ROOT / "tests").glob("test_*.py") if p.name != "test_spec_tables.py"]
    unproduced = []
    for reason in sorted(_spec_reason_ids()):
        spellings = (f'"{reason}"', f'"{reason}:', members.get(reason, f'"{reason}"'))
        if not any(spelling in text for text in texts for spelling in spellings):
            unproduced.append(reason)
    assert not unproduced, f"listed in SPEC.md section 6, produced by no test: {unproduced}"


# -- the referee ------------------------------------------------------------------------------------


def _timed_pair(turn_limit: int) -> SessionPair:
    """:func:`session_pair`, with a decision time limit in the host's match entry."""
    entropy = deterministic_entropy(b"objection")
    nonces, masters = (entropy(32), entropy(32)), (entropy(32), entropy(32))
    keys = (Ed25519PrivateKey.from_private_bytes(entropy(32)), Ed25519PrivateKey.from_private_bytes(entropy(32)))
    rules = preset("nintendo").with_option("rounds", "3")
    host = MatchSession(
        0, keys[0], public_bytes(keys[1]), nonces, rules=rules, master_secret=masters[0], turn_limit=turn_limit
    )
    guest = MatchSession(1, keys[1], public_bytes(keys[0]), nonces, master_secret=masters[1])
    return SessionPair(host, guest, keys)


def test_without_a_time_limit_an_objection_may_answer_every_claim() -> None:
    """No limit on thinking: the thinker answers every claim of its silence, and nobody loses by it."""
    pair = _timed_pair(turn_limit=0)
    play_until(pair, lambda p: p.guest.waiting is Waiting.MOVE and p.host.round is not None)
    for _ in range(3):
        assert pair.host.peer_stalled("the guest is thinking")
        deliver(pair)
        assert pair.guest.chain.entries[-1].entry.kind == "here"
        deliver(pair)
        assert pair.host.ended_by is None and pair.guest.ended_by is None


def test_a_second_objection_to_one_owed_decision_is_the_objectors_forfeit() -> None:
    """With a time limit, ``here`` answers a claim of one's silence once per owed decision; a second one
    for the same decision (buying another full patience) is ``repeated-objection``, blamed on its writer."""
    pair = _timed_pair(turn_limit=30)
    play_until(pair, lambda p: p.guest.waiting is Waiting.MOVE and p.host.round is not None)
    assert pair.host.peer_stalled("the guest held its move past the limit")
    deliver(pair)
    assert pair.guest.chain.entries[-1].entry.kind == "here", "the guest objects once, as it may"
    deliver(pair)
    assert pair.host.ended_by is None, "the objection voids the claim and the match goes on"
    assert pair.host.peer_stalled("the guest held its move past the limit again")
    deliver(pair)
    assert pair.guest.chain.entries[-1].entry.kind == "goodbye", "the honest guest does not object twice"
    lie = pair.guest.referee.prepare(1, "here", ["I am here, again"])
    with pytest.raises(Violation):
        pair.host.receive(SignedEntry.sign(lie, pair.keys[1]))
    assert pair.host.ended_by is SessionEnd.VIOLATION
    report = verify_entries(pair.host.chain.entries)
    assert report.finding is not None
    assert (report.finding.reason, report.finding.blame) == ("repeated-objection", 1)


def test_a_guests_weak_key_in_the_match_entry_is_the_guests_fault() -> None:
    """A key that is no usable Ed25519 key (here the identity point) proves nothing it signs: ``bad-key``."""
    played = honest()
    body = list(played.entries[0].entry.body)
    body[2] = [body[2][0], bytes([1]) + bytes(31)]
    report = verify_entries(resign(played.entries, 0, played.keys, body=body)[:1])
    assert report.finding is not None
    assert (report.finding.reason, report.finding.blame) == ("bad-key", 1)


def _guarded(monkeypatch: pytest.MonkeyPatch, name: str, replacement: object) -> tuple[str, int | None, int | None]:
    """The first finding in an honest match (drawn for its first dealer) with ``name`` altered."""
    entries = honest("nintendo").entries  # played before the referee is altered
    monkeypatch.setattr(referee_module.Referee, name, replacement)
    report = verify_entries(entries)
    assert report.finding is not None, "the guard let it through"
    return report.finding.reason, report.finding.entry, report.finding.blame


def test_the_dealer_draw_guard_names_a_card_left_unopened(monkeypatch: pytest.MonkeyPatch) -> None:
    """Were the deal's key checks to let a draw's keys through without opening a card, ``bad-draw``."""

    def no_card(self: referee_module.Referee) -> None:
        assert self.deal is not None
        self.deal.card_at = lambda position: (_ for _ in ()).throw(KeyError(position))  # type: ignore[method-assign]
        original_drawn(self)

    original_drawn = referee_module.Referee._dealer_drawn
    reason, entry, _blame = _guarded(monkeypatch, "_dealer_drawn", no_card)
    assert reason == "bad-draw"
    assert entry is not None
    drawn = honest("nintendo").entries[entry].entry
    assert (drawn.kind, drawn.body[0]) == ("deal", 0), "named at the entry that filled the draw's last slot"
    assert isinstance(parse_message(drawn.body[2]), Keys)


def test_the_audit_guard_names_a_round_left_unaudited(monkeypatch: pytest.MonkeyPatch) -> None:
    """Were the audit to close with no deck order, ``audit-missing`` at the audit's last entry."""

    def no_deck(self: referee_module.Referee) -> None:
        self.deal = None
        original(self)

    original = referee_module.Referee._round_audited
    reason, _entry, _blame = _guarded(monkeypatch, "_round_audited", no_deck)
    assert reason == "audit-missing"


def test_the_audit_guard_names_a_round_that_ends_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    """Were the full replay to end the round otherwise than the live one, ``audit:outcome``, blamed on
    nobody (which seat's moves made the difference cannot be told)."""
    from p2p_koikoi.engine.round import Round

    class Idle(Round):
        """A round that takes every move and does nothing with it: it never ends."""

        __slots__ = ()

        def apply(self, action: object, seat: int) -> None:  # type: ignore[override]
            return None

    real = Round.from_deal

    def idle(*args: object, **kwargs: object) -> Round:
        full = real(*args, **kwargs)  # type: ignore[arg-type]
        full.__class__ = Idle
        return full

    entries = honest().entries
    monkeypatch.setattr(referee_module.Round, "from_deal", staticmethod(idle))
    report = verify_entries(entries)
    assert report.finding is not None
    assert (report.finding.reason, report.finding.blame) == ("audit:outcome", None)


# -- the deal ---------------------------------------------------------------------------------------


def test_a_secret_from_which_no_scalar_derives_is_an_unusable_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    """A secret whose mask derives zero (a chance of about 2**-252, so produced here by altering that one
    derivation) opens its commitment yet gives no contribution: ``unusable-secret``, the revealer's."""
    monkeypatch.setattr(derive, "derive_mask", lambda secret, bound: bytes(32))
    commit = Commit(commitment(CONTEXT, IDENTITY_KEYS[1], SECRETS[1]))
    with pytest.raises(CheatingDetected) as info:
        open_contribution(CONTEXT, IDENTITY_KEYS[1], 1, commit, Reveal(SECRETS[1]))
    assert info.value.reason is Reason.UNUSABLE_SECRET and info.value.blame == 1


def test_a_card_unlocked_at_two_positions_is_a_duplicate_card(monkeypatch: pytest.MonkeyPatch) -> None:
    """The proofs make two positions unlocking to one card impossible; were unlocking to give it, the
    deal names ``duplicate-card`` with the keys that opened both as evidence, never a dealt hand of
    two pines."""
    real = fairness_session.unlock
    monkeypatch.setattr(fairness_session, "unlock", lambda point, mine, theirs: real(point, mine, theirs) and Card(0))
    pipe = Pipe()
    pipe.shuffle()
    with pytest.raises(CheatingDetected) as info:
        pipe.initial()
    assert info.value.reason is Reason.DUPLICATE_CARD


# -- the door ---------------------------------------------------------------------------------------


async def _greet(host_key: Ed25519PrivateKey, guest_public: bytes) -> BaseException:
    left, right = trio.testing.memory_stream_pair()
    from p2p_koikoi.net.framed import ConnectionLost, FramedChannel

    errors: list[BaseException] = []

    async def host() -> None:
        try:
            await greet_as_host(FramedChannel(left), public_bytes(host_key))
        except (RemoteProtocolError, NotKoikoi) as exc:
            errors.append(exc)
            await left.aclose()  # the host hangs up on a refused guest

    async def guest() -> None:
        with contextlib.suppress(RemoteProtocolError, NotKoikoi, ConnectionLost):
            await greet_as_guest(FramedChannel(right), guest_public)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(host)
        nursery.start_soon(guest)
    return errors[0]


async def test_a_guest_presenting_the_hosts_own_key_is_refused_same_key() -> None:
    key = Ed25519PrivateKey.generate()
    error = await _greet(key, public_bytes(key))
    assert isinstance(error, RemoteProtocolError) and error.reason == "same-key"


async def test_a_port_whose_first_frame_is_no_hello_is_not_koikoi() -> None:
    """A first frame that decodes but is not a ``hello`` (here a keepalive) is ``no-hello``."""
    from p2p_koikoi.net.framed import FramedChannel
    from p2p_koikoi.wire import Ping

    a, b = trio.testing.memory_stream_pair()
    await FramedChannel(b).send(Ping(1))
    with pytest.raises(NotKoikoi) as info:
        await greet_as_host(FramedChannel(a), public_bytes(Ed25519PrivateKey.generate()))
    assert info.value.reason == "no-hello"
