"""``python -m p2p_koikoi`` runs the ``koikoi`` command."""

from p2p_koikoi.cli.main import main

main()
