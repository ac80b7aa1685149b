"""Who may use the map editor's API, and where it may write.

The editor listens on 127.0.0.1, but any web page the user visits can send requests there (CSRF), and a
DNS-rebinding page can even read the answers. So every API request must:

- name the editor itself as `Host` (`127.0.0.1:PORT` or `localhost:PORT`) and, when the browser sends
  one, as `Origin`;
- carry the session token (`X-Rtarena-Token`) that only the editor's own page holds: a fresh random
  token per start, written into the page it serves;
- send its body as `application/json` (a cross-site form or `text/plain` body is refused).

Saves are confined to one folder (the edited map's, or `--root`): no absolute paths outside it, no `..`,
no new folders, no overwriting another existing file, and only maps without problems.
"""

from __future__ import annotations

import hmac
import secrets
from pathlib import Path

from rtarena.http_json import BadRequest

TOKEN_HEADER = "X-Rtarena-Token"
TOKEN_PLACEHOLDER = "__RTARENA_TOKEN__"


class Access:
    """The session token and the checks of one running editor."""

    def __init__(self, root: Path) -> None:
        self.token = secrets.token_urlsafe(24)
        self.root = Path(root).resolve()
        self.port = 0  # set once the server is listening

    def hosts(self) -> set[str]:
        return {f"127.0.0.1:{self.port}", f"localhost:{self.port}"}

    def check_host(self, host: str | None, origin: str | None) -> None:
        if (host or "").lower() not in self.hosts():
            raise BadRequest(403, f"wrong Host {host!r}: the editor answers only as 127.0.0.1:{self.port}")
        if origin is not None and origin.lower() not in {f"http://{h}" for h in self.hosts()}:
            raise BadRequest(403, f"requests from {origin!r} are refused: only the editor's own page may call it")

    def check_token(self, token: str | None) -> None:
        if not token or not hmac.compare_digest(token, self.token):
            raise BadRequest(403, f"missing or wrong {TOKEN_HEADER}: reload the editor's page")

    def page(self, html: bytes) -> bytes:
        return html.replace(TOKEN_PLACEHOLDER.encode(), self.token.encode())

    def save_target(self, path: str, current: Path | None) -> Path:
        """Where a save may write: `path` (relative to the root, or absolute inside it), or 400/403."""
        given = Path(path)
        if ".." in given.parts:
            raise BadRequest(403, f"{path!r}: '..' is not allowed in a save path")
        target = (given if given.is_absolute() else self.root / given).resolve()
        if not target.is_relative_to(self.root):
            raise BadRequest(403, f"{path!r} is outside {self.root}; start the editor with --root to save elsewhere")
        if target.suffix.lower() not in (".toml", ".json"):
            raise BadRequest(400, f"a map file ends in .toml or .json, got {target.name!r}")
        if not target.parent.is_dir():
            raise BadRequest(400, f"no folder {target.parent}; the editor does not create folders")
        if target.exists() and (current is None or target != current.resolve()):
            raise BadRequest(409, f"{target} exists and is not the map being edited; choose another name")
        return target
