"""``python -m p2p_koikoi.testing > protocol/vectors/wire-match.json``: the wire vectors, made again."""

import json
import sys

from p2p_koikoi.testing.vectors import wire_vectors

json.dump(wire_vectors(), sys.stdout, indent=1)
sys.stdout.write("\n")
