"""``koikoi verify`` checks a ``fork`` note's resume proof (SPEC.md section 8; RECORD.md, the fork note).

A peer that comes back with a copy forking from ours is caught while resuming: the app ends the match as its
violation, with no goodbye, and keeps the peer's signed resume proof as the evidence of a ``fork`` note
(``settle_fork``). The record and the peer's key are all a third party needs: the verifier checks the proof
(this match's id, the blamed seat's signature, a head that is not the record's entry at that place, and the
blamed seat's own later entry chained after the other's, which no crossing explains), and then the record
fails with ``fork`` on that seat and the match is the other seat's win. A note whose proof does not check
out blames nobody: the verdict is what the entries alone say.

The forked copies are built as in ``tests/test_resume_fork.py``: one seeded match played twice, one seat
choosing otherwise, and the two sides resumed against each other over a memory stream.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.app.continuing import settle_fork
from p2p_koikoi.net.resume import Fork
from p2p_koikoi.record.reader import read_record
from p2p_koikoi.record.verify import VerifyReport, walk_record
from p2p_koikoi.record.writer import RecordWriter
from p2p_koikoi.session.match_session import MatchSession
from p2p_koikoi.wire import SignedEntry
from p2p_koikoi.wire.resume_proof import RESUME_DOMAIN, ResumeClaim, proof_bytes
from tests.test_resume_fork import Forked, fork_by, resume_pair
from tests.verify_support import verify_json

WHOSE = ("host", "guest")


@dataclass
class Caught:
    """A fork caught at resume: the honest side's session (its chain as it stood), the fork it raised, and
    the keys of both seats."""

    forked: Forked
    fork: Fork

    @property
    def honest(self) -> MatchSession:
        return self.forked.honest

    @property
    def entries(self) -> list[SignedEntry]:
        return list(self.forked.honest.chain.entries)

    @property
    def forker_key(self) -> Ed25519PrivateKey:
        return self.forked.keys[self.fork.blame if self.fork.blame is not None else 0]


def caught(forker: int, ahead: int = 3) -> Caught:
    """Resume the honest copy against the forked one; the honest side (the longer copy) raises the fork."""
    forked = fork_by(forker, ahead)
    host, guest = (forked.forker, forked.honest) if forker == 0 else (forked.honest, forked.forker)
    outcomes = trio.run(resume_pair, host, guest, forked.keys)
    fork = outcomes[1 - forker]
    assert isinstance(fork, Fork) and fork.blame == forker, outcomes
    return Caught(forked, fork)


def settled(directory: Path, found: Caught) -> Path:
    """The honest side's record, as the app leaves it when it settles the fork (``settle_fork``)."""
    session = found.honest
    name = f"20261201-120000-fork-{WHOSE[session.seat]}.koikoi"
    writer = RecordWriter(directory, lambda: name, seat=session.seat, secret=session.master_secret)
    writer.write(session.chain.entries)
    settle_fork(found.fork, session, writer)
    writer.close()
    assert writer.path is not None
    return writer.path


def with_note(directory: Path, found: Caught, blame: int | None, evidence: bytes, name: str) -> Path:
    """The honest side's entries, then a ``fork`` note with ``evidence`` blaming ``blame``."""
    session = found.honest
    writer = RecordWriter(directory, lambda: name, seat=session.seat)
    writer.write(session.chain.entries)
    writer.note("fork", blame, "the peer signed a head that forks from ours", evidence)
    writer.close()
    assert writer.path is not None
    return writer.path


def walked(path: Path) -> VerifyReport:
    return walk_record(read_record(path))


def signed_claim(key: Ed25519PrivateKey, match_id: bytes, count: int, head: bytes) -> bytes:
    """A resume proof ``key`` really signed, kept as a note keeps it."""
    nonce = bytes(range(32))
    signature = key.sign(proof_bytes(match_id, nonce, count, head))
    return ResumeClaim(match_id, nonce, count, head, signature).evidence


@pytest.fixture(scope="module")
def guest_forked() -> Caught:
    return caught(forker=1)


@pytest.fixture(scope="module")
def host_forked() -> Caught:
    return caught(forker=0)


def test_the_hosts_record_of_a_guest_that_forked_fails_on_the_guest(tmp_path: Path, guest_forked: Caught) -> None:
    """The host's record as the app writes it: ``koikoi verify`` finds the guest's fork from the note's proof
    alone, at the entry the guest's proof names, and gives the host the match."""
    found = guest_forked
    path = settled(tmp_path, found)
    place = found.fork.claim.count - 1
    code, report = verify_json(path)
    assert code == 1
    assert (report["verdict"], report["ok"]) == ("failed", False)
    failure = report["failure"]
    assert (failure["reason"], failure["blame"], failure["entry"]) == ("fork", 1, place)
    assert failure["text"].startswith(f"the guest signed, resuming, that its entry {place} is ")
    assert f"but this record's entry {place} is {found.entries[place].digest.hex()[:16]}" in failure["text"]
    assert report["ending"]["how"] == "violation" and report["ending"]["seat"] == 0
    assert report["outcome"] is not None
    assert (report["outcome"]["winner"], report["outcome"]["termination"]) == (0, "forfeit")
    assert report["next_writer"] is None
    (note,) = report["notes"]
    assert (note["reason"], note["blame"], note["agrees"]) == ("fork", 1, True), note
    assert note["evidence_bytes"] == len(found.fork.evidence)


def test_the_guests_record_of_a_host_that_forked_fails_on_the_host(tmp_path: Path, host_forked: Caught) -> None:
    found = host_forked
    report = walked(settled(tmp_path, found))
    assert (report.verdict, report.exit_code) == ("failed", 1)
    assert report.finding is not None
    assert (report.finding.reason, report.finding.blame) == ("fork", 0)
    assert report.finding.text.startswith("the host signed, resuming, that its entry ")
    assert report.ending is not None and report.ending.winner == 1
    (note,) = report.notes
    assert note.agrees is True


def _flipped_signature(found: Caught) -> tuple[int | None, bytes]:
    evidence = bytearray(found.fork.evidence)
    evidence[-1] ^= 0x01
    return found.fork.blame, bytes(evidence)


def _another_match(found: Caught) -> tuple[int | None, bytes]:
    """The forker really signed it, but for another match id."""
    claim = found.fork.claim
    other = bytes(b ^ 0xFF for b in claim.match_id)
    return found.fork.blame, signed_claim(found.forker_key, other, claim.count, claim.head)


def _head_is_ours(found: Caught) -> tuple[int | None, bytes]:
    """The forker really signed it, in this match, but the head it names is this record's own entry."""
    claim = found.fork.claim
    ours = found.entries[claim.count - 1].digest
    return found.fork.blame, signed_claim(found.forker_key, claim.match_id, claim.count, ours)


def _wrong_seat(found: Caught) -> tuple[int | None, bytes]:
    """The guest's true proof, but the note blames the host: the host's key did not sign it."""
    blame = found.fork.blame
    assert blame is not None
    return 1 - blame, found.fork.evidence


def _blames_nobody(found: Caught) -> tuple[int | None, bytes]:
    return None, found.fork.evidence


def _past_the_record(found: Caught) -> tuple[int | None, bytes]:
    """A real signature on a head past this record's entries: it shows nothing against them."""
    claim = found.fork.claim
    count = len(found.entries) + 1
    return found.fork.blame, signed_claim(found.forker_key, claim.match_id, count, claim.head)


def _not_a_proof(found: Caught) -> tuple[int | None, bytes]:
    entry = found.entries[-1]
    return found.fork.blame, entry.data + entry.signature


def _cut_short(found: Caught) -> tuple[int | None, bytes]:
    return found.fork.blame, found.fork.evidence[:-1]


TAMPERED = {
    "a flipped signature byte": (_flipped_signature, "not signed by seat 1's key"),
    "another match's proof": (_another_match, "of another match"),
    "a head that is our entry": (_head_is_ours, "is this record's: no fork"),
    "blamed on the seat that did not sign it": (_wrong_seat, "not signed by seat 0's key"),
    "blaming nobody": (_blames_nobody, "blames no seat"),
    "a head past the record": (_past_the_record, "past this record's entries"),
    "an entry, not a proof": (_not_a_proof, "not a resume proof"),
    "a proof cut short": (_cut_short, "not a resume proof"),
}


@pytest.mark.parametrize("case", list(TAMPERED))
def test_a_fork_note_whose_proof_does_not_check_out_blames_nobody(
    tmp_path: Path, guest_forked: Caught, case: str
) -> None:
    """The entries alone decide: the record stops before the match ended (incomplete), nobody to blame, and
    the note is reported as not agreeing, with why."""
    make, why = TAMPERED[case]
    blame, evidence = make(guest_forked)
    report = walked(with_note(tmp_path, guest_forked, blame, evidence, "tampered.koikoi"))
    assert report.verdict == "incomplete" and report.exit_code == 1
    assert report.finding is not None
    assert (report.finding.reason, report.finding.blame) == ("incomplete", None)
    assert report.ending is not None and report.ending.outcome is None
    (note,) = report.notes
    assert note.agrees is False, note
    assert why in note.comment, note.comment


def test_a_tampered_note_through_the_command(tmp_path: Path, guest_forked: Caught) -> None:
    blame, evidence = _flipped_signature(guest_forked)
    code, report = verify_json(with_note(tmp_path, guest_forked, blame, evidence, "flipped.koikoi"))
    assert code == 1
    assert report["verdict"] == "incomplete"
    assert report["failure"]["blame"] is None and report["outcome"] is None
    (note,) = report["notes"]
    assert (note["reason"], note["agrees"]) == ("fork", False)


def test_a_proof_a_crossing_could_explain_proves_nothing(tmp_path: Path) -> None:
    """The honest copy holds only the forker's entry at the place and the other seat's after it: the forker
    never signed an entry chained after one of the other seat's from there. A crossing (SPEC.md section 6)
    gives such a pair too (the forker's entries withdrawn under the other's ``goodbye``), so a writer could
    pass off a proof taken then as a fork: the verifier blames nobody and cannot compare the note."""
    found = caught(forker=1, ahead=0)
    place = found.fork.claim.count - 1
    assert [e.entry.author for e in found.entries[place:]] == [1, 0]
    report = walked(settled(tmp_path, found))
    assert report.verdict == "incomplete"
    assert report.finding is not None and report.finding.blame is None
    (note,) = report.notes
    assert note.agrees is None
    assert "a crossing (SPEC.md section 6) could explain it" in note.comment


def test_the_proof_layout_reads_back() -> None:
    """The evidence is the signed bytes, then the signature: domain, match id, nonce, count, head."""
    claim = ResumeClaim(b"\x01" * 32, b"\x02" * 32, 19, b"\x03" * 32, b"\x04" * 64)
    evidence = claim.evidence
    signed = RESUME_DOMAIN + b"\x01" * 32 + b"\x02" * 32 + (19).to_bytes(8, "big") + b"\x03" * 32
    assert evidence == signed + b"\x04" * 64 and claim.signed_bytes == signed
    assert ResumeClaim.parse(evidence) == claim
