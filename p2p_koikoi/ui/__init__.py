"""Rendering and key input for the terminal: what a person sees and presses (no game logic here)."""
