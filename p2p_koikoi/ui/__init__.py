"""The terminal table: pure rendering (state in, rich text lines out), key input, and the live
player that ties them to the peer runner. Nothing here holds game logic: views, legal moves,
counts and yaku progress come from the engine and the app layer."""
