"""``koikoi id``: this player's key fingerprint (the key is made on first use)."""

from __future__ import annotations

import typer

from p2p_koikoi.app.identity import IdentityError, config_dir, load_identity, our_fingerprint
from p2p_koikoi.cli.common import fail


def id_() -> None:
    """Print this player's key fingerprint, for the opponent to compare."""
    try:
        key = load_identity()
    except IdentityError as exc:
        raise fail(str(exc)) from None
    typer.echo(our_fingerprint(key))
    typer.echo(f"(key in {config_dir() / 'identity.pem'})", err=True)
