"""Match records: the signed chain of a match as a file, and the tools that read it.

- ``format.py``, ``writer.py``: the file, written as the match happens (append-only, flushed per frame);
- ``reader.py``: the one visitor-style reader every tool shares;
- ``referee.py`` (with ``watch.py`` for the deal and ``audits.py`` to audit deals ahead, on any cores):
  a third party's check of every entry, which tells the match as ``events.py`` events;
- ``verify.py``: verdicts and reports (``koikoi verify``); ``findings.py``: what a check found;
- ``transcript.py``, ``export.py``: the readable transcript, read back with every check, and written.

``protocol/RECORD.md`` and ``protocol/TRANSCRIPT.md`` specify both formats.
"""
