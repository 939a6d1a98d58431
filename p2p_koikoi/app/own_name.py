"""The name this player goes by (``koikoi id --name NAME``), kept beside the identity key in a file
``my-name``, and sent signed in the match setup: the host's in its ``match`` entry, the guest's in its
``accept`` (SPEC.md section 4).

It is checked with :class:`PlayerName` when set and again when read, so a hand-edited file holding a
control character or a bidi override is refused in one line, before anything is offered to anyone
(the peer would refuse it anyway: ``bad-body``).
"""

from __future__ import annotations

import os
from pathlib import Path

from p2p_koikoi.app.identity import IdentityError, config_dir
from p2p_koikoi.wire.player_name import BadName, PlayerName

__all__ = ["NAME_FILE", "load_own_name", "set_own_name"]

NAME_FILE = "my-name"


def _path(directory: Path | None) -> Path:
    return (directory or config_dir()) / NAME_FILE


def load_own_name(directory: Path | None = None) -> PlayerName | None:
    """The name we send, or None when none was set; :class:`IdentityError` for a file that breaks the rule."""
    path = _path(directory)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise IdentityError(f"cannot read your name from {path}: {exc}") from None
    try:
        return PlayerName.parse(text.rstrip("\n"))
    except BadName as exc:
        raise IdentityError(f"{path}: {exc}; set it again with koikoi id --name NAME") from None


def set_own_name(name: PlayerName, directory: Path | None = None) -> Path:
    """Keep ``name`` as the one we send from now on (written whole, then renamed into place)."""
    path = _path(directory)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".new")
    temporary.write_text(name.format() + "\n", encoding="utf-8")
    os.replace(temporary, path)
    return path
