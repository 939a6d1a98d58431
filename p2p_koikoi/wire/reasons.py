"""The reason ids a live seat or ``koikoi verify`` can name, as one enum (RECORD.md section 4.7).

A finding, an error from the wire, a ``goodbye``'s ``violation:REASON`` and a record's note all carry a
reason id: a short stable word that goes on the wire and into ``verify --json`` as it is. Code names an id
by its member (``ReasonId.BAD_LINK``), never by its word, so a typo fails at import, not silently at a
comparison (issue 27). Three ids are families, ``kind:detail``: ``illegal-move:RULE`` and ``audit:RULE``
name one of the engine's rule ids, ``unconfirmed:REASON`` another reason id; :class:`ReasonCode` is an id
with its detail, and parses and formats one. The deal's ids are DEAL.md section 11's
(``fairness.errors.Reason``); a transcript's, TRANSCRIPT.md section 3's. ``tests/test_spec_words.py``
holds this enum and RECORD.md's table together, member for row.

>>> ReasonCode.parse("illegal-move:card-not-in-hand")
ReasonCode(kind=<ReasonId.ILLEGAL_MOVE: 'illegal-move'>, detail='card-not-in-hand')
>>> str(ReasonCode(ReasonId.UNCONFIRMED, "desync"))
'unconfirmed:desync'
>>> ReasonCode.parse("no-such-id") is None
True
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = ["FAMILIES", "ReasonCode", "ReasonId", "reason_kind"]


class ReasonId(enum.StrEnum):
    """Every reason id of RECORD.md section 4.7, in its order; a family by its head. The table there says
    what each means and whom it blames: it is the one definition, so the members carry none of their own."""

    FRAME_TOO_LARGE = "frame-too-large"
    EMPTY_FRAME = "empty-frame"
    TRUNCATED_FRAME = "truncated-frame"
    DATA_AFTER_EOF = "data-after-eof"
    TOO_LARGE = "too-large"
    BAD_MSGPACK = "bad-msgpack"
    BAD_TYPE = "bad-type"
    TOO_DEEP = "too-deep"
    NOT_CANONICAL = "not-canonical"
    BAD_FRAME = "bad-frame"
    BAD_VERSION = "bad-version"
    NO_HELLO = "no-hello"
    SAME_KEY = "same-key"
    BAD_KEY = "bad-key"
    WRONG_KEY = "wrong-key"
    BAD_ENTRY = "bad-entry"
    BAD_KIND = "bad-kind"
    BAD_BODY = "bad-body"
    BAD_SIGNATURE = "bad-signature"
    WRONG_MATCH = "wrong-match"
    REPLAYED_ENTRY = "replayed-entry"
    FORK = "fork"
    BAD_SEQ = "bad-seq"
    BAD_LINK = "bad-link"
    AFTER_END = "after-end"
    OUT_OF_TURN = "out-of-turn"
    DESYNC = "desync"
    NOT_A_MATCH = "not-a-match"
    BAD_HANDSHAKE = "bad-handshake"
    BAD_RULES = "bad-rules"
    WRONG_ROUND = "wrong-round"
    BAD_MESSAGE = "bad-message"
    UNEXPECTED_FIELD = "unexpected-field"
    BAD_SHOW = "bad-show"
    SHOW_MISMATCH = "show-mismatch"
    UNEXPECTED_SHOW = "unexpected-show"
    MISSING_KEY = "missing-key"
    UNEXPECTED_KEY = "unexpected-key"
    EARLY_KEY = "early-key"
    BAD_HIKI = "bad-hiki"
    ILLEGAL_MOVE = "illegal-move"
    BAD_DRAW = "bad-draw"
    RESULT_MISMATCH = "result-mismatch"
    AUDIT_MISSING = "audit-missing"
    AUDIT = "audit"
    REPEATED_OBJECTION = "repeated-objection"
    BASELESS_ACCUSATION = "baseless-accusation"
    CORRUPT_FRAME = "corrupt-frame"
    UNREADABLE_ENTRY = "unreadable-entry"
    INCOMPLETE = "incomplete"
    UNCONFIRMED = "unconfirmed"
    REFUTED = "refuted"
    DISPUTED_COPIES = "disputed-copies"
    WITHDRAWN = "withdrawn"


FAMILIES = frozenset({ReasonId.ILLEGAL_MOVE, ReasonId.AUDIT, ReasonId.UNCONFIRMED})
"""The ids always written ``kind:detail`` (``audit:outcome`` is the audit family's detail ``outcome``)."""


@dataclass(frozen=True, slots=True)
class ReasonCode:
    kind: ReasonId
    detail: str = ""

    @classmethod
    def parse(cls, text: str) -> ReasonCode | None:
        """The id ``text`` names, or None for a word outside the table (a peer may write any word after
        ``violation:``; what it means is then for the endings rules, not for this parser)."""
        head, colon, detail = text.partition(":")
        try:
            kind = ReasonId(head)
        except ValueError:
            return None
        if (kind in FAMILIES) != bool(colon and detail):
            return None
        return cls(kind, detail)

    def __str__(self) -> str:
        return f"{self.kind}:{self.detail}" if self.detail else str(self.kind)


def reason_kind(text: str) -> ReasonId | None:
    """The id a reason's word names (a family by its head), or None for a word outside the table."""
    code = ReasonCode.parse(text)
    return code.kind if code is not None else None
