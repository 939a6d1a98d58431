"""Real records of many matches between chosen keys, for the tests and the benchmark of ``koikoi history``.

A history counts only what ``koikoi verify`` accepts, so the records it is tested on must be real: each is
a match played in memory by two of our own sessions (random bots, every deal proved and audited), signed
by the keys given, and ended the way the plan says (played out, a quit, a claim of silence, an
adjournment). Copying one record under many names would test nothing: the history caches verdicts by
content, so every record here is a distinct match (its own label, so its own nonces, secrets and deal).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.bots import RandomAgent
from p2p_koikoi.engine import preset
from p2p_koikoi.record.format import FORMAT_VERSION
from p2p_koikoi.record.writer import record_name
from p2p_koikoi.referee import Stage
from p2p_koikoi.referee.events import MatchEnd
from p2p_koikoi.session.match_session import SOFTWARE, MatchSession, Waiting
from p2p_koikoi.testing import copies
from p2p_koikoi.testing.sessions import SessionPair, decide, deterministic_entropy
from p2p_koikoi.wire import SignedEntry, encode_frame, public_bytes
from p2p_koikoi.wire.bodies import EntryKind
from p2p_koikoi.wire.codec import pack

__all__ = [
    "Finish",
    "MatchPlan",
    "Planned",
    "cut_copy",
    "play_planned",
    "record_file_bytes",
    "write_entries",
    "write_record",
]

_START = 1_767_225_600  # 2026-01-01 UTC: the first planned match's date; each later one a minute on


class Finish(enum.Enum):
    """How a planned match ends; the seat that acts is the plan's ``actor``."""

    PLAYED = "played"  # played to the count
    QUIT = "quit"  # the actor quits while the guest owes its second move: its forfeit
    CLAIM = "claim"  # the host claims the guest's silence there (the actor must be seat 0): won by silence
    ADJOURN = "adjourn"  # the host adjourns there (the actor must be seat 0): nobody wins


@dataclass(frozen=True, slots=True)
class MatchPlan:
    """One match to make: who sits where, how it ends, and the label its every byte derives from."""

    label: str
    keys: tuple[Ed25519PrivateKey, Ed25519PrivateKey]  # the host's, the guest's
    finish: Finish = Finish.PLAYED
    actor: int = 0
    rounds: int = 3
    rules: str = "nintendo"
    kept: int = 0  # whose copy is written: the seat's record


def _guest_owes_its_second_move(guest: MatchSession) -> bool:
    moves = sum(1 for e in guest.chain.entries if e.entry.kind == EntryKind.MOVE and e.entry.author == 1)
    return moves >= 1 and guest.waiting is Waiting.MOVE and guest.referee.stage is Stage.PLAY


def _deliver(pair: SessionPair, lose: int | None = None) -> bool:
    moved = False
    for seat, session in enumerate(pair.sessions):
        for signed in session.take_outgoing():
            other = pair.sessions[1 - seat]
            if seat == lose or not other.takes_entries:
                continue
            other.receive(signed)
            moved = True
    return moved


def _play(pair: SessionPair, agents: tuple[RandomAgent, RandomAgent], stop_early: bool) -> None:
    for _ in range(50_000):
        if _deliver(pair):
            continue
        if stop_early and _guest_owes_its_second_move(pair.guest):
            return
        moved = False
        for seat, session in enumerate(pair.sessions):
            moved = decide(session, agents[seat]) or moved
        if not moved and not _deliver(pair):
            return
    raise AssertionError("the planned match does not end")


@dataclass(frozen=True, slots=True)
class Planned:
    """A match played: the kept seat's chain, how that seat's own referee ended it (what a history of its
    record must count), and both players' whole chains (the host's first)."""

    entries: list[SignedEntry]
    end: MatchEnd | None
    chains: tuple[list[SignedEntry], list[SignedEntry]]


def play_planned(plan: MatchPlan) -> Planned:
    """Play the match; the kept seat's copy, and how it ended."""
    entropy = deterministic_entropy(plan.label.encode())
    nonces = (entropy(32), entropy(32))
    rules = preset(plan.rules).with_option("rounds", str(plan.rounds))
    keys = plan.keys
    host = MatchSession(0, keys[0], public_bytes(keys[1]), nonces, rules=rules, master_secret=entropy(32))
    guest = MatchSession(1, keys[1], public_bytes(keys[0]), nonces, master_secret=entropy(32))
    pair = SessionPair(host, guest, keys)
    agents = (RandomAgent(len(plan.label)), RandomAgent(len(plan.label) + 1))
    _play(pair, agents, plan.finish is not Finish.PLAYED)
    actor = pair.sessions[plan.actor]
    if plan.finish is Finish.QUIT:
        actor.quit("I have to go")
    elif plan.finish is Finish.CLAIM:
        assert actor.peer_vanished("no word from the guest for 90 s")
        _deliver(pair, lose=plan.actor)  # the accused is gone for good: the claim never reaches it
    elif plan.finish is Finish.ADJOURN:
        actor.adjourn("adjourned: I will be back tomorrow")
    _deliver(pair, lose=plan.actor if plan.finish is Finish.CLAIM else None)
    kept = pair.sessions[plan.kept]
    chains = (list(host.chain.entries), list(guest.chain.entries))
    return Planned(list(kept.chain.entries), kept.ending, chains)


def record_file_bytes(entries: list[SignedEntry], seat: int, created: int) -> bytes:
    """A record file as the writer makes it: the header, then every entry of the chain."""
    header = ["record", FORMAT_VERSION, seat, "127.0.0.1:7447", created, SOFTWARE]
    frames = [encode_frame(pack(header))]
    frames += [encode_frame(pack(["entry", e.data, e.signature])) for e in entries]
    return b"".join(frames)


def write_entries(folder: Path, plan: MatchPlan, entries: list[SignedEntry], number: int, seat: int) -> Path:
    """Write ``entries`` as ``seat``'s copy in ``folder`` under the name the program gives it, dated ``number``
    minutes after the first planned match (so the folder's order is the order of play)."""
    created = _START + 60 * number
    keys = (public_bytes(plan.keys[0]), public_bytes(plan.keys[1]))
    path = folder / record_name(created, keys, plan.rules, seat)
    folder.mkdir(parents=True, exist_ok=True)
    path.write_bytes(record_file_bytes(entries, seat, created))
    return path


def write_record(folder: Path, plan: MatchPlan, number: int) -> tuple[Path, MatchEnd | None]:
    """Play ``plan`` and write the kept copy (:func:`write_entries`); its path, and how the match ended."""
    played = play_planned(plan)
    return write_entries(folder, plan, played.entries, number, plan.kept), played.end


def cut_copy(played: Planned, keys: tuple[Ed25519PrivateKey, Ed25519PrivateKey]) -> tuple[int, list[SignedEntry]]:
    """A loser's forked copy of a match played out (as ``replays/make.py`` makes ``cut-copy-loser``): cut
    where the winner owed an entry that the loser then played on from, and ended with the loser's own
    signed claim of the winner's silence. Verified alone it shows the loser's claimed win; next to the
    winner's copy it falls, the loser having signed entries on both branches. The loser's seat, the copy."""
    end = played.end
    assert end is not None and end.winner is not None
    loser = 1 - end.winner
    return loser, copies.cut_copy(played.chains[0], end.winner, keys[loser])
