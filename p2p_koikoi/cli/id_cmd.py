"""``koikoi id``: this player's key fingerprint (the key is made on first use); ``--name NAME`` sets the
name others see (sent signed in the match setup: ``app/own_name.py``); ``--call FINGERPRINT NAME`` gives
another player's key a name of our own, which wins over the name it sends (``app/call_names.py``)."""

from __future__ import annotations

from typing import Annotated

import typer

from p2p_koikoi.app.identity import IdentityError, config_dir, load_identity, our_fingerprint
from p2p_koikoi.cli.common import fail


def id_(
    call: Annotated[
        tuple[str, str] | None,
        typer.Option(
            "--call",
            metavar="FINGERPRINT NAME",
            help="Call the key with this fingerprint (at least its first 8 hex digits) NAME in your history.",
        ),
    ] = None,
    name: Annotated[
        str | None,
        typer.Option(
            "--name",
            metavar="NAME",
            help="The name other players see (at most 24 letters, digits, single spaces and - _ . ').",
        ),
    ] = None,
) -> None:
    """Print this player's key fingerprint, for the opponent to compare."""
    if call is not None:
        _call(*call)
        return
    if name is not None:
        _name(name)
        return
    try:
        key = load_identity()
    except IdentityError as exc:
        raise fail(str(exc)) from None
    typer.echo(our_fingerprint(key))
    typer.echo(f"(key in {config_dir() / 'identity.pem'})", err=True)


def _call(fingerprint: str, name: str) -> None:
    from p2p_koikoi.app.call_names import NAMES_FILE, CallNames, KeyRef
    from p2p_koikoi.wire.player_name import BadName, PlayerName

    try:
        ref, given = KeyRef.parse(fingerprint), PlayerName.parse(name)
        names = CallNames()
        names.call(ref, given)
    except (BadName, IdentityError) as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(f"cannot keep the name in {config_dir() / NAMES_FILE}: {exc.strerror or exc}") from None
    typer.echo(f"{ref.format()} is {given.format()} in your history (kept in {names.path})")


def _name(name: str) -> None:
    from p2p_koikoi.app.own_name import NAME_FILE, set_own_name
    from p2p_koikoi.wire.player_name import BadName, PlayerName

    try:
        given = PlayerName.parse(name)
        path = set_own_name(given)
    except BadName as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(f"cannot keep your name in {config_dir() / NAME_FILE}: {exc.strerror or exc}") from None
    typer.echo(f"Other players will see you as {given.format()} (kept in {path})")
