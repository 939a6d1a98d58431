"""What ``koikoi verify`` said of each record, kept by the record's content hash so that a second
``koikoi history`` over a thousand records need not check them again.

Three things keep the cache from ever saying more than a fresh check would:

- **The key is the content.** An entry is found by the SHA-256 of the file's bytes, read afresh every
  run: a file changed in any byte is a new key, checked again. A file that changes while it is being
  checked is not cached (its hash is taken again after the check).
- **The verifier is part of the key.** The cache is kept for one version of the code that decides a
  verdict (the engine, the deal, the wire, the referee and the record reader, hashed): another version
  starts it afresh.
- **The cache file is not evidence.** Each entry carries an HMAC-SHA256 under a key derived from our
  identity key, so an entry edited by hand (a loss turned into a win, a failure into a pass) does not
  authenticate and the record is simply checked again. Editing the cache gains nothing that editing a
  record does not, and editing a record gains nothing (it no longer verifies).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import os
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

from p2p_koikoi.app.record_facts import RecordFacts

__all__ = ["CACHE_FILE", "VerdictCache", "content_hash", "verifier_version"]

CACHE_FILE = "history-cache.json"
_FORMAT = 1
_PACKAGE = Path(__file__).resolve().parent.parent
_DECIDES = ("engine", "fairness", "wire", "referee", "record")  # the code a verdict comes from
_MAC_LABEL = b"p2p-koikoi/history-cache/v1"


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@functools.cache
def verifier_version() -> str:
    """A hash of the code that decides a verdict, and of this cache's own facts: the cache's version."""
    digest = hashlib.sha256()
    files = [p for layer in _DECIDES for p in (_PACKAGE / layer).rglob("*.py")]
    files.append(_PACKAGE / "app" / "record_facts.py")
    for path in sorted(files):
        digest.update(str(path.relative_to(_PACKAGE)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _mac_key(identity: Ed25519PrivateKey) -> bytes:
    raw = identity.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    return hmac.new(raw, _MAC_LABEL, hashlib.sha256).digest()


class VerdictCache:
    """Facts of checked records by content hash, authenticated with our key; :meth:`save` keeps the ones
    looked up or added this run (so records gone from the folder leave the cache)."""

    def __init__(self, path: Path, identity: Ed25519PrivateKey, version: str | None = None) -> None:
        self.path = path
        self.version = version or verifier_version()
        self._key = _mac_key(identity)
        self._stored = self._load()
        self._kept: dict[str, dict[str, Any]] = {}
        self.hits = 0

    def _load(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("format") != _FORMAT or data.get("verifier") != self.version:
            return {}
        entries = data.get("entries")
        return entries if isinstance(entries, dict) else {}

    def _mac(self, digest: str, facts: dict[str, Any]) -> str:
        message = json.dumps([digest, self.version, facts], sort_keys=True, separators=(",", ":")).encode()
        return hmac.new(self._key, message, hashlib.sha256).hexdigest()

    def get(self, digest: str) -> RecordFacts | None:
        """The facts cached for the content ``digest``, if an authentic entry holds them."""
        entry = self._stored.get(digest)
        if not isinstance(entry, dict) or not isinstance(entry.get("facts"), dict):
            return None
        mac = entry.get("mac")
        if not isinstance(mac, str) or not hmac.compare_digest(mac, self._mac(digest, entry["facts"])):
            return None
        try:
            facts = RecordFacts.parse(entry["facts"])
        except (KeyError, TypeError, ValueError, IndexError):
            return None
        self._kept[digest] = entry
        self.hits += 1
        return facts

    def put(self, digest: str, facts: RecordFacts) -> None:
        data = facts.to_json()
        self._kept[digest] = {"facts": data, "mac": self._mac(digest, data)}

    def save(self) -> None:
        """Write the cache (atomically); a cache that cannot be written only costs the next run time."""
        data = {"format": _FORMAT, "verifier": self.version, "entries": self._kept}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}")
            temporary.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")
            os.replace(temporary, self.path)
        except OSError:
            pass
