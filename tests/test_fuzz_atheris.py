"""A bounded coverage-guided run of atheris (libFuzzer for Python) over the wire parsers and the session.

``pytest -m slow tests/test_fuzz_atheris.py`` runs this file as a script in a child process (atheris
takes over the process and exits it when done). The target takes the fuzzer's bytes as:

- a whole stream of frames, read by the :class:`FrameDecoder` in the chunks the bytes themselves
  choose, every frame body through :func:`parse_frame`;
- a codec input, an entry, and a deal message;
- an entry body, signed by the peer in the next place of a session waiting for the peer's table keys,
  and handed to :meth:`MatchSession.receive`.

Anything other than :class:`RemoteProtocolError` (or :class:`MessageFormatError` from the deal
message parser, which the session turns into one) is a crash, and fails the test with the input that
caused it. The test extra installs atheris on Linux (it ships wheels for CPython there), so the run
fails rather than skips when the fuzzer is missing.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

RUNS = int(os.environ.get("ATHERIS_RUNS", "50000"))


def seed_corpus(directory: Path) -> None:
    """Real inputs of each kind, from a real match, for the fuzzer to mutate (the first byte picks the
    target, as in ``one_input``)."""
    from p2p_koikoi.bots import RandomAgent
    from p2p_koikoi.engine import preset
    from p2p_koikoi.testing import pipe_sessions, session_pair
    from p2p_koikoi.wire import encode
    from p2p_koikoi.wire.codec import pack

    pair = session_pair(preset("nintendo").with_option("rounds", "3"))
    assert pipe_sessions(pair, (RandomAgent(1), RandomAgent(2))) is None
    directory.mkdir()
    seeds: list[bytes] = []
    for signed in pair.host.chain.entries[:120]:
        entry = signed.entry
        seeds += [b"\x00" + encode(signed), b"\x01" + signed.data, b"\x02" + signed.data]
        seeds.append(b"\x04" + pack([entry.kind, *entry.body]))
        for field in entry.body:
            if isinstance(field, bytes) and entry.kind in ("deal", "move"):
                seeds.append(b"\x03" + field)
    for i, seed in enumerate(dict.fromkeys(seeds)):
        (directory / f"seed-{i:04d}").write_bytes(seed)


@pytest.mark.slow
def test_atheris_finds_no_crash(tmp_path: Path) -> None:
    import atheris  # noqa: F401  (the test extra installs it on Linux: a missing fuzzer fails, never skips)

    corpus = tmp_path / "corpus"
    seed_corpus(corpus)
    done = subprocess.run(
        [
            sys.executable,
            __file__,
            str(corpus),
            f"-runs={RUNS}",
            "-max_total_time=300",
            "-max_len=4096",
            f"-artifact_prefix={tmp_path}/",
            "-print_final_stats=1",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        cwd=Path(__file__).parent,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert "Done" in done.stderr, done.stderr[-2000:]
    assert not list(tmp_path.glob("crash-*"))
    assert "INITED" in done.stderr


def _fuzz_main() -> None:  # pragma: no cover - runs in the child process
    import atheris  # type: ignore[import-untyped, unused-ignore]
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    with atheris.instrument_imports(include=["p2p_koikoi"]):
        from p2p_koikoi.engine import preset
        from p2p_koikoi.fairness import MessageFormatError, parse_message
        from p2p_koikoi.session.match_session import MatchSession, Stage, Waiting
        from p2p_koikoi.wire import Entry, FrameDecoder, RemoteProtocolError, SignedEntry, parse_frame, public_bytes
        from p2p_koikoi.wire.codec import unpack

    keys = tuple(Ed25519PrivateKey.from_private_bytes(hashlib.sha256(bytes([s])).digest()) for s in (0, 1))
    nonces = (b"\x01" * 32, b"\x02" * 32)
    host = MatchSession(0, keys[0], public_bytes(keys[1]), nonces, rules=preset("nintendo"), master_secret=bytes(32))
    guest = MatchSession(1, keys[1], public_bytes(keys[0]), nonces, master_secret=bytes([1]) * 32)
    # Play up to the point where the host waits for the guest's table keys.
    while not (host.stage is Stage.SETUP and host.referee.step == 7):  # the guest's table keys are due
        for sender, receiver in ((host, guest), (guest, host)):
            for signed in sender.take_outgoing():
                receiver.receive(signed)
        if guest.waiting is Waiting.ACCEPT:
            guest.accept()
    point = host

    def one_input(data: bytes) -> None:
        if not data:
            return
        which, rest = data[0] % 5, data[1:]
        try:
            if which == 0:
                decoder = FrameDecoder()
                chunk = 1 + (rest[0] if rest else 0) % 64
                for start in range(0, len(rest), chunk):
                    decoder.receive_data(rest[start : start + chunk])
                    while (body := decoder.next_frame()) is not None:
                        parse_frame(body)
                decoder.receive_data(b"")
                decoder.next_frame()
            elif which == 1:
                unpack(rest)
            elif which == 2:
                Entry.decode(rest)
            elif which == 3:
                with contextlib.suppress(MessageFormatError):
                    parse_message(rest)
            else:
                body = unpack(rest)
                if not isinstance(body, list):
                    return
                session = copy.deepcopy(point, {id(point.identity): point.identity})
                kind = "deal" if not body or not isinstance(body[0], str) else body.pop(0)
                entry = Entry(
                    session.match_id,
                    session.chain.next_seq,
                    session.chain.head,
                    1,
                    kind,
                    body,
                    session.referee.state_hash(),
                )
                signed = SignedEntry.sign(entry, keys[1])
                session.receive(SignedEntry.parse(signed.data, signed.signature))
        except RemoteProtocolError:
            pass

    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    _fuzz_main()
