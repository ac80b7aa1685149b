"""The game suite: solo (and later multiplayer) games behind one keyboard-and-mouse action interface.

`base.py` holds `SuiteGame`, the family's base class; `keys.py` the action space and its chunked text form;
`rules.py` the level-file schemas; `canvas.py` the compiled 2D renderer; one module per game; rules and
timings in `levels/*.toml`.
"""
