"""Leaving at the guest's "Play by these rules?" box (issue 28, items 1 and 14). The guest never accepted,
so no match began: Ctrl-C there declines (the ``decline`` goes to the host while the connection is up), as
``n`` does; a decline ends in one line, exit 0 (the person's choice, not a failure), with no "Match over"
screen and no record (the host keeps none either), and a plain ``koikoi join`` of the same host starts a
fresh match. A record left by older versions (the host's ``match`` entry, no ``accept``, its secret beside it)
is nothing to resume either: ``join`` passes over it, ``resume`` says why not, ``list`` does not offer it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import trio

from p2p_koikoi.app.continuing import can_resume, started
from p2p_koikoi.app.listing import list_records
from p2p_koikoi.app.netplay import JoinOptions, join_match
from p2p_koikoi.app.unfinished import ResumeError, find_unfinished, restore_match
from p2p_koikoi.net.tcp import Address
from p2p_koikoi.record.format import secret_path
from p2p_koikoi.record.reader import read_record
from p2p_koikoi.record.writer import RecordWriter, write_secret
from p2p_koikoi.session.match_session import MatchSession
from p2p_koikoi.testing import KOIKOI, free_port, koikoi_env, spawn_host
from p2p_koikoi.testing.processes import run_in_pty
from p2p_koikoi.wire import public_bytes
from tests.record_support import honest, record_bytes

RULES_PROMPT = b"Play by these rules?"
TABLE_RULES = b"Play by"  # the table's box: the words may be split by redraws


def _guest_in_a_pty(
    home: Path, port: int, replays: Path, *options: str, until: bytes, answer: bytes | None = None
) -> tuple[int, str]:
    """`koikoi join` in a terminal of its own; once ``until`` is on the screen, SIGINT (what Ctrl-C sends),
    or ``answer`` typed. Returns the exit code and everything the terminal showed."""
    env = {**koikoi_env(home), "TERM": "xterm", "COLUMNS": "100", "LINES": "30"}
    command = [*KOIKOI, "join", f"127.0.0.1:{port}", "--replay-dir", str(replays), *options]
    run = run_in_pty(command, env, until=until, answer=answer)
    assert run.acted and run.code is not None, run.shown[-2000:]
    return run.code, run.shown


@pytest.mark.parametrize(("mode", "answer"), [("plain", None), ("table", None), ("plain", b"n\n"), ("table", b"n")])
def test_a_decline_at_the_rules_is_one_line_and_join_then_starts_a_fresh_match(
    tmp_path: Path, mode: str, answer: bytes | None
) -> None:
    """Ctrl-C (``answer`` None) or ``n`` at the rules, at the table and in plain lines."""
    port = free_port()
    replays = tmp_path / "replays"
    guest_home = tmp_path / "guest"
    host = spawn_host(tmp_path / "host", port, replays, "--no-upnp", "--bot", "greedy", "--rounds", "3", "-q")
    try:
        plain = ["--plain"] if mode == "plain" else []
        code, shown = _guest_in_a_pty(
            guest_home, port, replays, *plain, until=RULES_PROMPT if mode == "plain" else TABLE_RULES, answer=answer
        )
        assert code == 0, shown[-2000:]
        assert "Traceback" not in shown and "Match over" not in shown
        assert "You declined the rules: no match was played." in shown, shown[-2000:]
        after = shown.split("Play by")[-1]
        assert "resume" not in after and "Record saved" not in after, "nothing is offered to resume or check"
        assert not list(replays.glob("*-guest.koikoi*")), "no record and no secret: the match never began"
        listed = subprocess.run(
            [*KOIKOI, "list", "--replay-dir", str(replays)],
            env=koikoi_env(guest_home),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert "No matches yet" in listed.stdout, listed.stdout
        again = subprocess.run(
            [*KOIKOI, "join", f"127.0.0.1:{port}", "--replay-dir", str(replays), "--bot", "random", "--yes"],
            env=koikoi_env(guest_home),
            capture_output=True,
            text=True,
            timeout=120,
        )
        _, host_err = host.communicate(timeout=60)
    finally:
        host.kill()
    assert again.returncode == 0, again.stderr
    assert "unfinished match" not in again.stderr
    assert host.returncode == 0, host_err
    assert "Traceback" not in again.stderr + host_err
    (fresh,) = replays.glob("*-guest.koikoi")
    assert read_record(fresh).entries[1].entry.kind == "accept"


class _LeavesAtTheRules:
    """A player whose process is interrupted while the rules are on screen, before any answer (as
    Ctrl-C is where nothing catches it)."""

    async def accept_rules(self, rules: object) -> bool:
        raise KeyboardInterrupt

    async def choose(self, *args: object, **kwargs: object) -> object:  # pragma: no cover - never asked
        raise AssertionError("no move before the rules are accepted")

    async def notify(self, events: object) -> None:
        pass


def test_a_guest_stopped_at_the_rules_leaves_no_record_and_no_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """However the run stops before the accept (here a KeyboardInterrupt nothing caught), no record and no
    secret are left, and the next join offers a new match."""
    port = free_port()
    replays = tmp_path / "replays"
    host = spawn_host(tmp_path / "host", port, replays, "--no-upnp", "--bot", "greedy", "--rounds", "3", "-q")
    try:
        monkeypatch.setenv("KOIKOI_HOME", str(tmp_path / "guest"))
        options = JoinOptions((Address("127.0.0.1", port),), replays, 10.0)

        async def confirm(question: str) -> bool:
            return True

        with pytest.raises((KeyboardInterrupt, BaseExceptionGroup)):  # perhaps in a nursery's group
            trio.run(join_match, options, lambda seat: _LeavesAtTheRules(), lambda line: None, confirm)
        assert not list(replays.glob("*-guest.koikoi*"))
        again = subprocess.run(
            [*KOIKOI, "join", f"127.0.0.1:{port}", "--replay-dir", str(replays), "--bot", "random", "--yes"],
            env=koikoi_env(tmp_path / "guest"),
            capture_output=True,
            text=True,
            timeout=120,
        )
        host.communicate(timeout=60)
    finally:
        host.kill()
    assert again.returncode == 0, again.stderr


def _stale(tmp_path: Path) -> tuple[Path, bytes, bytes]:
    """A guest's record as older versions left it after Ctrl-C at the rules: the host's ``match`` entry
    alone, the secret beside it."""
    played = honest()
    folder = tmp_path / "replays"
    folder.mkdir()
    path = folder / "20261201-120000-aaaa0000-bbbb1111-lemme-guest.koikoi"
    path.write_bytes(record_bytes(played.entries[:1], seat=1))
    write_secret(secret_path(path), played.pair.guest.master_secret)
    return path, public_bytes(played.keys[1]), public_bytes(played.keys[0])


def test_a_record_with_no_accept_is_no_unfinished_match(tmp_path: Path) -> None:
    path, guest_key, host_key = _stale(tmp_path)
    assert find_unfinished(path.parent, guest_key, host_key) is None, "join passes over it"
    with pytest.raises(ResumeError, match="never began"):
        restore_match(path, honest().keys[1])
    (listed,) = list_records(path.parent)
    assert not listed.resumable and listed.result == "never began: the rules were not accepted", listed


def test_a_session_before_the_accept_cannot_be_resumed() -> None:
    played = honest()
    keys = played.keys
    first = played.entries[0]
    nonces = (bytes(first.entry.body[3][0]), bytes(first.entry.body[3][1]))
    guest = MatchSession(1, keys[1], public_bytes(keys[0]), nonces)
    guest.receive(played.entries[0])  # the host's match entry: the rules are offered
    assert not started(guest) and not can_resume(guest)
    guest.accept()
    assert started(guest) and can_resume(guest)


def test_a_record_begun_in_the_same_second_as_another_takes_the_next_second(tmp_path: Path) -> None:
    """A guest that declines and joins again at once: its new record must not collide with the declined one."""
    played = honest()
    name = "20261201-120059-aaaa0000-bbbb1111-lemme-guest.koikoi"
    paths = []
    for _ in range(3):
        writer = RecordWriter(tmp_path, lambda: name, seat=1, secret=bytes(32))
        writer.write(played.entries[:1])
        writer.close()
        assert writer.path is not None
        paths.append(writer.path.name)
    assert paths == [name, name.replace("120059", "120100"), name.replace("120059", "120101")]
