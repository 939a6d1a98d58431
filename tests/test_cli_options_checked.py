"""Every option is checked before anything is offered to anyone (issue 28, items 2, 5 and 6).

- Every number option of every command has a range; a value out of it (``nan`` and ``inf`` too) is
  refused in one line with exit code 2, before any network activity. The options are read from the Typer
  app itself, so a new number option without a range fails here.
- The replay folder is checked before the host listens or the guest dials: a file, or a folder that
  cannot be made or written, is one line naming the option, exit 2.
- A port that accepts TCP and then says nothing is said to be just that, not a firewall.
"""

from __future__ import annotations

import math
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer

from p2p_koikoi.cli.main import app, main
from p2p_koikoi.net.reach import Failure, Miss, explain
from p2p_koikoi.testing import KOIKOI, free_port, koikoi_env

# -- every number option has a range --------------------------------------------------------------


def _number_params() -> Iterator[tuple[str, Any]]:
    command = typer.main.get_command(app)
    assert isinstance(command, typer.core.TyperGroup)
    for name, sub in sorted(command.commands.items()):
        for param in sub.params:
            descriptor = getattr(param, "type_descriptor", None)
            if descriptor is not None and descriptor.annotation in (int, float):
                yield name, param


NUMBERS = list(_number_params())


def _bad_values(param: Any) -> list[str]:
    whole = param.type_descriptor.annotation is int
    low, high = param.min, param.max
    values = [str(int(low) - 1 if whole else low - 1), str(int(high) + 1 if whole else high * 2 + 1)]
    return values if whole else [*values, "nan", "inf", "-inf"]


def _required_arguments(command: str) -> list[str]:
    group = typer.main.get_command(app)
    assert isinstance(group, typer.core.TyperGroup)
    return ["x" for p in group.commands[command].params if isinstance(p, typer.core.TyperArgument) and p.required]


def test_the_number_options_are_found() -> None:
    """The walk over the app sees the options the issue names, so an empty walk cannot pass."""
    found = {(command, param.opts[0]) for command, param in NUMBERS}
    assert {("host", "--port"), ("join", "--timeout"), ("resume", "--grace"), ("arena", "--jobs")} <= found


@pytest.mark.parametrize(("command", "param"), NUMBERS, ids=[f"{c}{p.opts[0]}" for c, p in NUMBERS])
def test_every_number_option_has_a_range(command: str, param: Any) -> None:
    assert param.min is not None and param.max is not None, f"koikoi {command} {param.opts[0]} takes any number"
    assert math.isfinite(param.min) and math.isfinite(param.max) and param.min <= param.max


class _NoNetwork:
    """Sockets, name lookups and socket pairs that fail loudly, and say that they were asked for."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[str] = []
        for name in ("socket", "create_connection", "getaddrinfo", "gethostbyname", "socketpair"):
            monkeypatch.setattr(socket, name, self._refuse(name))

    def _refuse(self, name: str) -> Any:
        def refuse(*args: object, **kwargs: object) -> None:
            self.calls.append(name)
            raise OSError(f"the test allows no network activity (socket.{name})")

        return refuse


@pytest.mark.parametrize(("command", "param"), NUMBERS, ids=[f"{c}{p.opts[0]}" for c, p in NUMBERS])
def test_a_number_out_of_range_is_one_line_exit_2_and_no_network(
    command: str, param: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("KOIKOI_HOME", str(tmp_path))
    option = param.opts[0]
    for value in _bad_values(param):
        network = _NoNetwork(monkeypatch)
        monkeypatch.setattr(sys, "argv", ["koikoi", command, *_required_arguments(command), f"{option}={value}"])
        with pytest.raises(SystemExit) as exited:
            main()
        monkeypatch.undo()
        monkeypatch.setenv("KOIKOI_HOME", str(tmp_path))
        out, err = capsys.readouterr()
        assert exited.value.code == 2, (value, out, err)
        assert out == "" and len(err.splitlines()) == 1, (value, err)
        assert err.startswith("koikoi: ") and option in err and "Traceback" not in err, err
        assert network.calls == [], f"{command} {option}={value} touched the network: {network.calls}"


@pytest.mark.parametrize(("command", "param"), NUMBERS, ids=[f"{c}{p.opts[0]}" for c, p in NUMBERS])
def test_the_ends_of_a_range_are_taken(command: str, param: Any) -> None:
    parse = param.type_descriptor.parameter_info.parser
    assert parse is not None, "a number option is parsed by p2p_koikoi.cli.checks.ranged (nan and inf in words)"
    assert parse(str(param.min)) == param.min and parse(str(param.max)) == param.max


def test_a_port_that_would_wrap_is_refused_by_the_real_program(tmp_path: Path) -> None:
    for args in (["host", "--no-upnp", "--port", "99999"], ["host", "--no-upnp", "--port", "65536"]):
        done = subprocess.run(
            [*KOIKOI, *args], env=koikoi_env(tmp_path), capture_output=True, text=True, timeout=60, check=False
        )
        assert done.returncode == 2, done.stderr
        (line,) = done.stderr.splitlines()
        assert "'--port': " in line and "out of range: give 0 to 65535" in line, line
    done = subprocess.run(
        [*KOIKOI, "join", "127.0.0.1:1", "--timeout", "nan"],
        env=koikoi_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith("koikoi: Invalid value for '--timeout': nan is not a finite number: give 0.1 to 600"), line


# -- the replay folder, before anything is offered --------------------------------------------------


@pytest.fixture
def listener() -> Iterator[tuple[int, list[socket.socket]]]:
    """A port that takes connections and keeps them (saying nothing); the list holds what came."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    came: list[socket.socket] = []

    def take() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            came.append(conn)

    threading.Thread(target=take, daemon=True).start()
    yield server.getsockname()[1], came
    server.close()
    for conn in came:
        conn.close()


def _koikoi(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*KOIKOI, *args], env=koikoi_env(home), capture_output=True, text=True, timeout=60, check=False
    )


def _unusable_folders(tmp_path: Path) -> list[tuple[Path, str]]:
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder")
    cases = [(a_file, "that is a file, not a folder"), (a_file / "below", "cannot make that folder")]
    cases.append((Path("/proc/koikoi-replays"), "cannot make that folder"))  # even root cannot
    if os.geteuid() != 0:  # root writes anywhere: a folder without write permission stops only others
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        cases.append((locked, "cannot write there"))
    return cases


def test_host_checks_the_replay_folder_before_it_listens(tmp_path: Path) -> None:
    for folder, words in _unusable_folders(tmp_path):
        port = free_port()
        done = _koikoi(tmp_path / "home", "host", "--no-upnp", "--bind", "127.0.0.1", "--port", str(port),
                       "--bot", "random", "--replay-dir", str(folder))  # fmt: skip
        assert done.returncode == 2, done.stderr
        (line,) = done.stderr.splitlines()
        assert line.startswith(f"koikoi: --replay-dir {folder}: {words}"), line
        assert "Hosting" not in done.stderr + done.stdout and "join with" not in done.stderr


def test_join_checks_the_replay_folder_before_it_dials(
    tmp_path: Path, listener: tuple[int, list[socket.socket]]
) -> None:
    port, came = listener
    for folder, words in _unusable_folders(tmp_path):
        done = _koikoi(tmp_path / "home", "join", f"127.0.0.1:{port}", "--bot", "random", "--replay-dir", str(folder))
        assert done.returncode == 2, done.stderr
        (line,) = done.stderr.splitlines()
        assert line.startswith(f"koikoi: --replay-dir {folder}: {words}"), line
    assert came == [], "the guest dialled the host with a replay folder it could not use"


def test_play_checks_its_record_folder_first(tmp_path: Path) -> None:
    home = tmp_path / "home-is-a-file"
    home.write_text("")
    done = _koikoi(home, "play", "--plain", "--bot", "random")
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"koikoi: the record folder {home}/data/replays: cannot make that folder"), line
    assert line.endswith("set KOIKOI_HOME to a folder you can write to"), line


# -- join's diagnosis -----------------------------------------------------------------------------


def test_a_port_that_accepts_and_says_nothing_is_said_to_be_just_that(
    tmp_path: Path, listener: tuple[int, list[socket.socket]]
) -> None:
    port, came = listener
    done = _koikoi(tmp_path, "join", f"127.0.0.1:{port}", "--bot", "random", "--timeout", "2")
    assert done.returncode == 1, done.stderr
    assert len(came) == 1
    said = done.stderr.splitlines()[-1]
    assert said.startswith(f"koikoi: connected to 127.0.0.1:{port}, but the host said nothing for 2 s"), said
    assert "firewall" not in said and "Traceback" not in done.stderr


def test_a_dial_that_timed_out_with_an_invite_code_does_not_ask_for_one() -> None:
    failures = [Failure("203.0.113.7:7447", Miss.TIMED_OUT)]
    invited = explain(failures, 7447, 5, invited=True)
    assert "did not answer within 5 s (no reply to the connection at all)" in invited
    assert "kk1:" not in invited and "forward the port" in invited
    assert "ask for the kk1: invite code" in explain(failures, 7447, 5)
    silent = explain([Failure("203.0.113.7:7447", Miss.SILENT, "10"), *failures], 7447, 15)
    assert silent.startswith("connected to 203.0.113.7:7447, but the host said nothing for 10 s"), silent
