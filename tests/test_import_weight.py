"""What a command loads before it does anything. Every ``koikoi`` process pays for its imports, and the
commands that only read records (``verify``, ``list``, ``history``) must not pay for the network stack,
nor a match for a STUN library it uses only when it asks a STUN server. A fresh interpreter imports the
modules a command starts from, and the test names what must not come with them, so that an import moved
back to the top of a module fails here instead of quietly slowing every process down."""

from __future__ import annotations

import subprocess
import sys


def _loaded(*modules: str) -> set[str]:
    """The names in ``sys.modules`` of a fresh interpreter once it has imported ``modules``."""
    code = f"import sys\nimport {', '.join(modules)}\nprint('\\n'.join(sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    return set(done.stdout.split())


def _under(loaded: set[str], *packages: str) -> set[str]:
    return {name for name in loaded if any(name == p or name.startswith(p + ".") for p in packages)}


def test_reading_records_loads_no_network_stack() -> None:
    """``koikoi verify``, ``list`` and ``history`` find, verify and count records: no socket among them."""
    loaded = _loaded("p2p_koikoi.app.listing", "p2p_koikoi.app.records", "p2p_koikoi.app.history")
    assert "p2p_koikoi.app.records" in loaded
    assert not _under(loaded, "p2p_koikoi.net", "p2p_koikoi.app.netplay", "trio", "aioice", "zeroconf")


def test_a_match_loads_aioice_only_when_it_asks_a_stun_server() -> None:
    """aioice's package brings dnspython and mDNS along; ``net.stun`` and ``net.turn_messages`` import it
    where a STUN or TURN message is made."""
    loaded = _loaded("p2p_koikoi.app.netplay", "p2p_koikoi.app.practice", "p2p_koikoi.net.turn")
    assert "p2p_koikoi.net.stun" in loaded and "p2p_koikoi.net.turn_messages" in loaded
    assert not _under(loaded, "aioice", "dns")
