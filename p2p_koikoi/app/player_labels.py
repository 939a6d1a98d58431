"""What the screens call each seat of a match: a name where there is one, else the short fingerprint.

Three sources, in this order: the name *we* gave the key (``koikoi id --call``), which nobody else can
change; the name the seat *sent*, signed in the match setup (``koikoi id --name``); the short
fingerprint. A name never identifies a key (issue 29 item 2): anyone can send any name. So a sent name
that another key also goes by (the other seat sent it too, or it is the name we gave some other key)
is shown with its key's short fingerprint, and :func:`same_name_note` says why, in one line. So is a name
that reads as the screens' own word for the player at this seat (``You``): a peer that calls itself so
would otherwise have its win told as ours ("You win the match").

>>> labels((b"a" * 32, b"b" * 32), ("Hana", "Hana"), None)
('Hana (1d0be1ec)', 'Hana (d516b041)')
"""

from __future__ import annotations

from p2p_koikoi.app.call_names import CallNames
from p2p_koikoi.record.identity_names import fingerprint, short_fingerprint

__all__ = ["label", "labels", "same_name_note"]

Keys = tuple[bytes | None, bytes | None]
Sent = tuple[str | None, str | None]


def _called(called: CallNames | None, key: bytes) -> str | None:
    if called is None:
        return None
    name = called.name_of(fingerprint(key).replace(":", ""))
    return name.text if name is not None else None


_OUR_WORDS = frozenset({"you"})  # what the screens call our own seat: never another seat's label alone


def _ours_word(name: str) -> bool:
    """Whether ``name`` reads as the word the screens use for the player at this seat."""
    return name.strip().casefold() in _OUR_WORDS


def _shared(keys: Keys, sent: Sent, seat: int, called: CallNames | None) -> bool:
    """Whether seat ``seat``'s sent name is also another key's: the other seat's, or one we call so."""
    name, key = sent[seat], keys[seat]
    if name is None:
        return False
    other = sent[1 - seat]
    if other is not None and other.casefold() == name.casefold():
        return True
    ours = called.key_called(name) if called is not None else None
    return ours is not None and key is not None and not ours.names(fingerprint(key).replace(":", ""))


def label(keys: Keys, sent: Sent, seat: int, called: CallNames | None) -> str:
    """What to call seat ``seat`` (see the module docstring); "host"/"guest" for a seat with no key."""
    key, name = keys[seat], sent[seat]
    if key is None:
        return name or ("host", "guest")[seat]
    ours = _called(called, key)
    if ours is not None:
        return f"{ours} ({short_fingerprint(key)})" if _ours_word(ours) else ours
    if name is None:
        return short_fingerprint(key)
    marked = _shared(keys, sent, seat, called) or _ours_word(name)
    return f"{name} ({short_fingerprint(key)})" if marked else name


def labels(keys: Keys, sent: Sent, called: CallNames | None) -> tuple[str, str]:
    """Both seats' labels, by seat."""
    return label(keys, sent, 0, called), label(keys, sent, 1, called)


def same_name_note(keys: Keys, sent: Sent, called: CallNames | None) -> str | None:
    """One line when a sent name is not the only key's to go by it, else None."""
    for seat in (0, 1):
        key, name = keys[seat], sent[seat]
        if key is None or name is None or _called(called, key) is not None:
            continue
        if _shared(keys, sent, seat, called):
            return f"two keys go by the name {name!r}: they are told apart by fingerprint"
        if _ours_word(name):
            return f"a key goes by the name {name!r}, this screen's word for you: its fingerprint is shown with it"
    return None


def seen_opponent(event_keys: tuple[bytes, bytes] | None, sent: Sent, seat: int) -> tuple[str, str | None]:
    """What a player at ``seat`` calls the other seat once the setup is signed (a ``players`` event), with
    the one-line note when its name is not its key's alone. Our own names for keys are read here; a names
    file we cannot read names nobody (``koikoi history`` says what is wrong with it)."""
    from p2p_koikoi.app.identity import IdentityError

    try:
        called: CallNames | None = CallNames()
    except (IdentityError, OSError):
        called = None
    keys: Keys = event_keys if event_keys is not None else (None, None)
    return label(keys, sent, 1 - seat, called), same_name_note(keys, sent, called)
