"""p2p-koikoi: Koi-Koi between two people over a direct, trustless TCP connection."""

__version__ = "0.1.0"
