"""Where the map editor may write: one folder (the edited map's, or `--root`), and nothing risky in it.

The editor writes files as the user who started it, so a save request (even from the editor's own page)
is confined: no `..`, no path outside the folder (symlinks resolved), no new folders, no overwriting of
any file but the map being edited, and only `.toml` / `.json` map files.
"""

from __future__ import annotations

from pathlib import Path

from rtarena.webapp import RequestError


def save_target(root: Path, path: str, current: Path | None) -> Path:
    """The file a save of `path` (relative to `root`, or absolute inside it) may write, or a 4xx."""
    given = Path(path)
    if ".." in given.parts or "\x00" in path:
        raise RequestError(403, f"{path!r}: '..' is not allowed in a save path")
    target = (given if given.is_absolute() else root / given).resolve()
    if not target.is_relative_to(root):
        raise RequestError(403, f"{path!r} is outside {root}; start the editor with --root to save elsewhere")
    if target.suffix.lower() not in (".toml", ".json"):
        raise RequestError(400, f"a map file ends in .toml or .json, got {target.name!r}")
    if not target.parent.is_dir():
        raise RequestError(400, f"no folder {target.parent}; the editor does not create folders")
    if target.exists() and (current is None or target != current.resolve()):
        raise RequestError(409, f"{target} exists and is not the map being edited; choose another name")
    return target
