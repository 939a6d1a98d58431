"""``koikoi verify``, ``replay`` and ``export`` as a user runs them: exit codes, one line per problem, no
traceback whatever the input. Most run in process (typer's runner); a few in a real process, to prove the
exit codes and the output a shell sees."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from typer.testing import CliRunner

from p2p_koikoi.cli.main import app
from tests.record_support import find, flip_entry, honest

REPLAYS = Path(__file__).resolve().parent.parent / "replays"


@dataclass
class Done:
    returncode: int
    stdout: str
    stderr: str


def koikoi(*args: str | Path) -> Done:
    """The command run in this process."""
    result = CliRunner().invoke(app, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return Done(result.exit_code, result.stdout, result.stderr)


def koikoi_process(*args: str | Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """The command run as a shell runs it."""
    done = subprocess.run(
        [sys.executable, "-m", "p2p_koikoi", *map(str, args)],
        capture_output=True,
        text=True,
        input=stdin,
        timeout=120,
        check=False,
    )
    assert "Traceback" not in done.stderr + done.stdout, done.stderr
    return done


def test_verify_says_ok_and_exits_0() -> None:
    done = koikoi_process("verify", REPLAYS / "qdan.koikoi")
    assert done.returncode == 0
    assert done.stdout.startswith("OK: ") and "played out" in done.stdout


def test_verify_names_the_entry_the_reason_and_who_is_to_blame_and_exits_1(tmp_path: Path) -> None:
    entries = honest().entries
    index = find(entries, "move", nth=4)
    damaged = tmp_path / "damaged.koikoi"
    damaged.write_bytes(flip_entry(entries, index, 6))
    done = koikoi_process("verify", damaged)
    assert done.returncode == 1
    assert done.stdout.splitlines()[0].startswith("FAILED: ")
    assert f"entry {index}: bad-signature: " in done.stdout and "nobody provably to blame" in done.stdout
    cheat = koikoi("verify", "--json", REPLAYS / "cheat-stacked-deck.koikoi")
    assert cheat.returncode == 1
    (report,) = json.loads(cheat.stdout)  # one file: still a list
    assert (report["verdict"], report["failure"]["reason"], report["failure"]["blame"]) == (
        "failed",
        "bad-shuffle-proof",
        0,
    )
    assert report["notes"][0]["agrees"] is True


def test_a_truncated_file_verifies_up_to_its_end_and_exits_1(tmp_path: Path) -> None:
    data = (REPLAYS / "lemme.koikoi").read_bytes()
    cut = tmp_path / "cut.koikoi"
    cut.write_bytes(data[: len(data) // 2])
    done = koikoi("verify", cut)
    assert done.returncode == 1
    assert done.stdout.startswith("INCOMPLETE: ") and "ends inside frame" in done.stdout


def test_bad_input_is_one_line_on_stderr_and_exit_2(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.koikoi"
    garbage.write_bytes(b"\x00\x00\x00\x05hello, not msgpack")
    empty = tmp_path / "empty"
    empty.mkdir()
    real = koikoi_process("verify", garbage)
    assert real.returncode == 2 and len(real.stderr.strip().splitlines()) == 1 and real.stdout == ""
    for args in (["verify", tmp_path / "nope.koikoi"], ["verify", empty], ["replay", garbage], ["export", garbage]):
        done = koikoi(*args)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert done.stdout == ""
    done = koikoi("export", tmp_path / "nope.json")
    assert done.returncode == 2 and done.stderr.startswith("koikoi: ")


def _one_sample_of_each_verdict(folder: Path) -> Path:
    """A folder holding the smallest sample of each verdict (verified, failed, incomplete), as the samples'
    vector file gives them, leaving out copies of one match (alone, a copy may say other than next to its
    other copy): the folder test needs each verdict, not every sample checked twice over (each sample's
    report is checked against the vector in ``test_record_samples``)."""
    expected = json.loads((REPLAYS.parent / "protocol" / "vectors" / "samples-verify.json").read_text())["reports"]
    picked: dict[str, Path] = {}
    for name, report in expected.items():
        path = REPLAYS / name
        if "/" in name or report["copies"] or report["verdict"] not in ("verified", "failed", "incomplete"):
            continue  # only a record that says the same alone as next to its other copies
        if report["verdict"] not in picked or path.stat().st_size < picked[report["verdict"]].stat().st_size:
            picked[report["verdict"]] = path
    folder.mkdir()
    for path in picked.values():
        (folder / path.name).write_bytes(path.read_bytes())
    return folder


def test_a_folder_is_verified_in_parallel_and_the_worst_exit_code_wins(tmp_path: Path) -> None:
    folder = _one_sample_of_each_verdict(tmp_path / "replays")
    done = koikoi("verify", "--json", folder)
    reports = json.loads(done.stdout)
    assert len(reports) == len(list(folder.glob("*.koikoi")))
    assert {r["verdict"] for r in reports} == {"verified", "failed", "incomplete"}
    assert done.returncode == 1
    ok = sum(1 for r in reports if r["ok"])  # the samples change; the count is the folder's
    assert 0 < ok < len(reports)
    assert f"{ok} of {len(reports)} verified." in koikoi("verify", folder).stderr


def test_export_then_verify_and_replay_the_transcript(tmp_path: Path) -> None:
    transcript = tmp_path / "rulebook.json"
    done = koikoi("export", REPLAYS / "rulebook.koikoi", "-o", transcript)
    assert done.returncode == 0 and transcript.exists()
    checked = koikoi("verify", transcript)
    assert checked.returncode == 0 and checked.stdout.startswith("OK (unsigned): ")
    assert "no signatures" in checked.stdout
    replayed = koikoi("replay", "--json", transcript)
    assert json.loads(replayed.stdout)["rounds"] == json.loads(transcript.read_text())["rounds"]
    # Not a terminal: the replay falls back to plain text.
    plain = koikoi("replay", transcript)
    assert plain.returncode == 0 and "Round 1:" in plain.stdout and "Points:" in plain.stdout


def test_verify_json_is_a_list_even_for_an_error() -> None:
    done = koikoi("verify", "--json", REPLAYS / "no-such.koikoi")
    assert done.returncode == 2
    (error,) = json.loads(done.stdout)
    assert error["verdict"] == "unreadable" and "no such file" in error["problem"]
