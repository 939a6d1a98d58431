"""The names a player gives other players' keys (``koikoi id --call FINGERPRINT NAME``), kept beside the
identity key in the config directory, in a file ``names`` of ``FINGERPRINT NAME`` lines.

A name is ours alone: it never travels and never identifies a key, it only lets ``koikoi history`` say
"alice" where it would say ``1a2b3c4d``. So a key is named by its fingerprint (at least its first 8 hex
digits, the short fingerprint every screen shows), one name a key, and one key a name. A hand-edited file
is read with the same rule as the command (``PlayerName``): a line it breaks is refused in one line.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from p2p_koikoi.app.identity import IdentityError, config_dir
from p2p_koikoi.wire.player_name import BadName, PlayerName

__all__ = ["NAMES_FILE", "CallNames", "KeyRef"]

NAMES_FILE = "names"
_HEX = re.compile(r"^[0-9a-f]{8,32}$")


@dataclass(frozen=True, slots=True)
class KeyRef:
    """A key named by its fingerprint, or the start of it (8 to 32 hex digits; colons as printed are fine)."""

    hex: str

    @classmethod
    def parse(cls, text: str) -> KeyRef:
        digits = text.strip().lower().replace(":", "")
        if not _HEX.match(digits):
            raise BadName(
                f"{text!r} is not a fingerprint: give at least its first 8 hex digits (koikoi history shows them)"
            )
        return cls(digits)

    def format(self) -> str:
        return ":".join(self.hex[i : i + 4] for i in range(0, len(self.hex), 4))

    def names(self, fingerprint_hex: str) -> bool:
        """Whether this names the key whose whole fingerprint (32 hex digits, no colons) is given."""
        return fingerprint_hex.startswith(self.hex)


class CallNames:
    """The names we gave keys: read once, looked up by fingerprint, and set one at a time."""

    def __init__(self, directory: Path | None = None) -> None:
        self.path = (directory or config_dir()) / NAMES_FILE
        self.names: dict[KeyRef, PlayerName] = self._read()

    def _read(self) -> dict[KeyRef, PlayerName]:
        if not self.path.exists():
            return {}
        out: dict[KeyRef, PlayerName] = {}
        for number, line in enumerate(self.path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip() or line.startswith("#"):
                continue
            ref, _, name = line.partition(" ")
            try:
                out[KeyRef.parse(ref)] = PlayerName.parse(name)
            except BadName as exc:
                raise IdentityError(f"{self.path}:{number}: {exc}") from None
        return out

    def name_of(self, fingerprint_hex: str) -> PlayerName | None:
        """Our name for the key with this fingerprint (the longest fingerprint given wins), if any."""
        found = [(len(ref.hex), name) for ref, name in self.names.items() if ref.names(fingerprint_hex)]
        return max(found, key=lambda pair: pair[0])[1] if found else None

    def key_called(self, name: str) -> KeyRef | None:
        """The key we call ``name`` (case does not matter)."""
        wanted = name.strip().casefold()
        return next((ref for ref, given in self.names.items() if given.text.casefold() == wanted), None)

    def call(self, ref: KeyRef, name: PlayerName) -> None:
        """Call the key ``ref`` names ``name`` from now on; a name already given another key is refused."""
        holder = self.key_called(name.text)
        if holder is not None and holder != ref:
            raise BadName(f"you already call {holder.format()} {name.text!r}: a name stands for one key")
        self.names = {r: n for r, n in self.names.items() if r != ref}
        self.names[ref] = name
        self._write()

    def _write(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = "# fingerprint name (names you gave keys: koikoi id --call)\n"
        text += "".join(f"{ref.format()} {name.text}\n" for ref, name in sorted(self.names.items(), key=_by_name))
        temporary = self.path.with_name(self.path.name + ".new")
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, self.path)


def _by_name(item: tuple[KeyRef, PlayerName]) -> str:
    return item[1].text.casefold()
