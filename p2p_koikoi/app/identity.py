"""Our identity key and the peers we know, in the user's config directory.

The key is an Ed25519 private key, made on first use and stored with file mode
0600. Peers are remembered by fingerprint the first time they are met (trust on
first use); a known name or address that later presents a different key is
reported as changed, so the command can warn loudly and ask.

``KOIKOI_HOME`` overrides the config and data directories (tests use it).
"""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    load_pem_private_key,
)

from p2p_koikoi.bots.registry import canonical_spec
from p2p_koikoi.record.identity_names import fingerprint
from p2p_koikoi.wire import public_bytes

__all__ = [
    "IdentityError",
    "Trust",
    "config_dir",
    "data_dir",
    "known_peer",
    "load_identity",
    "remember_peer",
    "replay_dir",
]

APP = "p2p-koikoi"


class IdentityError(Exception):
    """The key file or the known-peers file cannot be used."""


def config_dir() -> Path:
    home = os.environ.get("KOIKOI_HOME")
    return Path(home) / "config" if home else Path(platformdirs.user_config_dir(APP))


def data_dir() -> Path:
    home = os.environ.get("KOIKOI_HOME")
    return Path(home) / "data" if home else Path(platformdirs.user_data_dir(APP))


def replay_dir(override: Path | None) -> Path:
    """Where records are written: ``override`` (``--replay-dir``) or the data directory's ``replays``.

    It lives here, beside :func:`data_dir`, so that the commands that only read records (``list``,
    ``verify``, ``history``) need not import the network stack to find them.
    """
    return override if override is not None else data_dir() / "replays"


def load_identity(directory: Path | None = None, file: str = "identity.pem") -> Ed25519PrivateKey:
    """Our key, created (mode 0600) on first use."""
    directory = directory or config_dir()
    path = directory / file
    if path.exists():
        try:
            key = load_pem_private_key(path.read_bytes(), password=None)
        except (ValueError, TypeError, OSError) as exc:
            raise IdentityError(f"cannot read the identity key {path}: {exc}; move it away to make a new one") from None
        if not isinstance(key, Ed25519PrivateKey):
            raise IdentityError(f"{path} is not an Ed25519 key; move it away to make a new one")
        return key
    directory.mkdir(parents=True, exist_ok=True)
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another koikoi made it a moment ago: use that one
        return load_identity(directory, file)
    with os.fdopen(fd, "wb") as out:
        out.write(pem)
    return key


def bot_identity(bot: str) -> Ed25519PrivateKey:
    """The key a built-in bot signs our practice matches with: one per bot (``strong`` and
    ``strong:normal`` are one), kept beside ours under ``bots/``, so that ``koikoi history`` counts every
    match against one bot as against one opponent and rates us against it, instead of a new stranger
    each time. It proves nothing about the bot: practice records are ours alone, and we hold both keys."""
    return load_identity(config_dir() / "bots", f"{canonical_spec(bot).replace(':', '-')}.pem")


def our_fingerprint(key: Ed25519PrivateKey) -> str:
    return fingerprint(public_bytes(key))


class Trust(enum.Enum):
    NEW = "new"  # never met under this name
    KNOWN = "known"  # this name has shown this key before
    CHANGED = "changed"  # this name showed another key before


@dataclass(frozen=True, slots=True)
class PeerCheck:
    trust: Trust
    name: str
    fingerprint: str
    previous: str | None = None


def _known_path(directory: Path | None) -> Path:
    return (directory or config_dir()) / "known_peers"


def _read_known(path: Path) -> dict[str, str]:
    known: dict[str, str] = {}
    if not path.exists():
        return known
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.rsplit(" ", 1)
        if len(parts) != 2:
            raise IdentityError(f"{path}:{number}: expected NAME FINGERPRINT")
        known[parts[0]] = parts[1]
    return known


def known_peer(name: str, key: bytes, directory: Path | None = None) -> PeerCheck:
    """How a peer met under ``name`` (an address or a host name) compares with what we remember."""
    known = _read_known(_known_path(directory))
    mine = fingerprint(key)
    before = known.get(name)
    if before is None:
        trust = Trust.KNOWN if mine in known.values() else Trust.NEW
        return PeerCheck(trust, name, mine)
    return PeerCheck(Trust.KNOWN if before == mine else Trust.CHANGED, name, mine, before)


def remember_peer(name: str, key: bytes, directory: Path | None = None) -> None:
    """Remember (or, after the player agreed, replace) the key of ``name``."""
    path = _known_path(directory)
    known = _read_known(path)
    known[name] = fingerprint(key)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "# name fingerprint (trust on first use)\n" + "".join(f"{n} {f}\n" for n, f in sorted(known.items()))
    )
