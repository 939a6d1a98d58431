"""Trio networking: framed channels, the greeting, TCP listen/dial, and the peer runner.

Only constants live here, so light modules (the command line) can read them
without importing Trio.
"""

DEFAULT_PORT = 7447
DEFAULT_TURN_LIMIT = 90  # seconds a host offers to decide in (net/timing.py says why)
