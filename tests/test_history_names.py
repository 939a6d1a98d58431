"""``koikoi history`` and ``koikoi list`` call an opponent by the name it sent, signed in the match setup
(issue 29 items 2 and 3), through the real programs: ``koikoi id --name`` in three homes (Hana hosts; two
other keys both go by Taro), two matches of real ``koikoi host`` and ``koikoi join`` processes over
loopback, played by bots. Hana's history calls each guest Taro with its short fingerprint, says in one line
that two keys go by that name, and never finds a key by a name it only sent; our own name for a key
(``koikoi id --call``) wins over the one it sent; a guest's history and list call the host Hana."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from p2p_koikoi.app.identity import load_identity, our_fingerprint
from p2p_koikoi.testing import KOIKOI, free_port, join_bot, koikoi_env, spawn_host


def _koikoi(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*KOIKOI, *args], env=koikoi_env(home), capture_output=True, text=True, timeout=120)


def _named(home: Path, name: str) -> str:
    """Give ``home``'s key the name it sends; its fingerprint, as ``koikoi id`` shows it (the key made here
    as the first program that needs it makes it: one ``koikoi id`` process is run, for Hana's)."""
    assert _koikoi(home, "id", "--name", name).returncode == 0
    return our_fingerprint(load_identity(home / "config"))


def _match(host_home: Path, host_replays: Path, guest_home: Path, guest_replays: Path) -> None:
    port = free_port()
    options = ("--no-upnp", "--rules", "lemme", "--rounds", "3", "--bot", "random", "--seed", "1")
    host = spawn_host(host_home, port, host_replays, *options)
    try:
        guest = join_bot(guest_home, port, guest_replays, "--yes")
        _, host_err = host.communicate(timeout=60)
    finally:
        host.kill()
    assert guest.returncode == 0 and host.returncode == 0, guest.stderr + host_err


def _short(fingerprint: str) -> str:
    return fingerprint.replace(":", "")[:8]


def test_history_and_list_show_the_names_opponents_sent(tmp_path: Path) -> None:
    hana, taro, other = tmp_path / "hana", tmp_path / "taro", tmp_path / "other"
    hana_fp = _named(hana, "Hana")
    assert _koikoi(hana, "id").stdout.strip() == hana_fp
    taro_fp, other_fp = _named(taro, "Taro"), _named(other, "Taro")
    ours = tmp_path / "hana-replays"
    _match(hana, ours, taro, tmp_path / "taro-replays")
    _match(hana, ours, other, tmp_path / "other-replays")

    shown = _koikoi(hana, "history", "--replay-dir", str(ours))
    assert shown.returncode == 0, shown.stderr
    assert "2 of 2 records counted" in shown.stdout
    for fp in (taro_fp, other_fp):
        assert f"Taro ({_short(fp)})" in shown.stdout, shown.stdout
    assert "Note: 2 keys go by the name 'Taro': they are told apart by fingerprint." in shown.stdout

    data = json.loads(_koikoi(hana, "history", "--json", "--replay-dir", str(ours)).stdout)
    assert sorted(o["sent_name"] for o in data["opponents"]) == ["Taro", "Taro"]
    assert all(o["name"] is None for o in data["opponents"])  # we gave neither key a name of ours
    assert all(m["sent_name"] == "Taro" for o in data["opponents"] for m in o["history"])

    by_name = _koikoi(hana, "history", "Taro", "--replay-dir", str(ours))  # a sent name finds no key
    assert by_name.returncode == 2 and len(by_name.stderr.strip().splitlines()) == 1, by_name.stderr
    assert _short(taro_fp) in by_name.stderr and _short(other_fp) in by_name.stderr
    assert _koikoi(hana, "history", _short(taro_fp), "--replay-dir", str(ours)).returncode == 0

    assert _koikoi(hana, "id", "--call", taro_fp, "Friend").returncode == 0  # our own name wins
    shown = _koikoi(hana, "history", "--replay-dir", str(ours))
    assert f"Friend ({_short(taro_fp)})" in shown.stdout and f"Taro ({_short(other_fp)})" in shown.stdout
    assert "Note:" not in shown.stdout
    assert _koikoi(hana, "history", "Friend", "--replay-dir", str(ours)).returncode == 0

    theirs = _koikoi(taro, "history", "--replay-dir", str(tmp_path / "taro-replays"))
    assert f"Hana ({_short(hana_fp)})" in theirs.stdout, theirs.stdout
    listed = _koikoi(taro, "list", "--replay-dir", str(tmp_path / "taro-replays"))
    assert f"Hana (key {_short(hana_fp)})" in listed.stdout, listed.stdout
