"""Trio networking: framed channels, the greeting, TCP listen/dial, and the peer runner.

Only constants live here, so light modules (the command line) can read them
without importing Trio.
"""

DEFAULT_PORT = 7447
