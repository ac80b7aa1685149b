"""The reflector's reading tools, confined to one round's folder.

Every path a tool takes is relative to the round folder. Refused, with a reason the model can read:
absolute paths, any `..` part, and anything whose real location (symlinks resolved) lies outside the
folder; symlinks that lead out are also left out of listings and searches. Size caps: files larger than
`file_bytes` are not opened, `read_text` returns at most `read_chars` characters (saying it truncated),
`grep` at most `grep_matches` matches of at most `LINE_CHARS` characters each, within `grep_seconds`
(the search runs in a child process that is killed at the limit: a model's pattern may backtrack for
ever), `read_image` scales the image so its longest side is at most `image_px` pixels. Every argument is
checked first (text without NUL bytes and at most `ARG_CHARS` long, whole numbers), so a malformed call is
a refusal the model reads, never an exception.

A tool returns a JSON-able value or raises `ToolRefusal`; `ToolSession.call` (reflector.py) turns either
into the tool message `{"ok": true, "result": ...}` / `{"ok": false, "error": ...}`.
"""

from __future__ import annotations

import base64
import io
import json
import re
import subprocess
import sys
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from rtarena.improve.settings import ImproveSettings

LINE_CHARS = 300
TEXT_SUFFIXES = (".md", ".txt", ".jsonl", ".json", ".csv")  # grep's default file types (.jsonl included)
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")
ARG_CHARS = 1000


def text_arg(value: Any, name: str) -> str:
    """A text argument of a tool call: a string without NUL bytes, at most `ARG_CHARS` characters."""
    if not isinstance(value, str):
        raise ToolRefusal(f"{name} must be text, got {type(value).__name__} {str(value)[:40]!r}")
    if "\x00" in value:
        raise ToolRefusal(f"{name} must not hold a NUL byte")
    if len(value) > ARG_CHARS:
        raise ToolRefusal(f"{name} is {len(value)} characters, over the cap of {ARG_CHARS}")
    return value


def int_arg(value: Any, name: str, low: int = 1, high: int = 1_000_000) -> int:
    """A whole-number argument of a tool call within [low, high]."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ToolRefusal(f"{name} must be a whole number, got {type(value).__name__} {str(value)[:40]!r}")
    if not low <= value <= high:
        raise ToolRefusal(f"{name} must be from {low} to {high}, got {value}")
    return value


# The search itself, run by `python -c` in a child process so that a pattern that backtracks for ever is
# killed at the time limit (Python's `re` cannot be interrupted in a thread).
_SEARCH = """
import json, re, sys
job = json.load(sys.stdin)
regex = re.compile(job["pattern"], flags=re.I)
matches = []
for name, path in job["files"]:
    with open(path, encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle.read().splitlines(), 1):
            if regex.search(line):
                if len(matches) == job["cap"]:
                    print(json.dumps({"matches": matches, "truncated": True}))
                    sys.exit(0)
                matches.append({"file": name, "line": number, "text": line[:job["chars"]]})
print(json.dumps({"matches": matches, "truncated": False}))
"""


class ToolRefusal(Exception):
    """A tool call the runner refuses; its message goes back to the model."""


class RoundFolder:
    """One round's folder and the tools that read it."""

    def __init__(self, root: Path, settings: ImproveSettings) -> None:
        self.root = Path(root).resolve()
        self.settings = settings
        self.images: list[dict[str, Any]] = []  # image parts `read_image` asks the runner to attach

    def resolve(self, path: str) -> Path:
        """The real path of `path` inside the folder, or a refusal."""
        text = text_arg("." if path is None else path, "path").strip() or "."
        if PurePosixPath(text).is_absolute() or PureWindowsPath(text).is_absolute() or text.startswith(("\\", "~")):
            raise ToolRefusal(f"absolute paths are not allowed: {text!r}; give a path inside the round folder")
        if ".." in re.split(r"[\\/]", text):
            raise ToolRefusal(f"'..' is not allowed in paths: {text!r}")
        real = (self.root / text).resolve()
        if real != self.root and self.root not in real.parents:
            raise ToolRefusal(f"{text!r} leads outside the round folder (a symlink out)")
        if not real.exists():
            raise ToolRefusal(f"no such file or folder: {text!r}")
        return real

    def _inside(self, path: Path) -> bool:
        real = path.resolve()
        return real == self.root or self.root in real.parents

    def _openable(self, path: str) -> Path:
        real = self.resolve(path)
        if not real.is_file():
            raise ToolRefusal(f"{path!r} is not a file")
        if real.stat().st_size > self.settings.file_bytes:
            raise ToolRefusal(f"{path!r} is {real.stat().st_size} bytes, over the cap of {self.settings.file_bytes}")
        return real

    def list_dir(self, path: str = ".") -> list[dict[str, Any]]:
        """List a folder of the round: each entry's name, whether it is a folder, and its size in bytes.

        Args:
            path: a folder relative to the round folder ("." for the round folder itself).
        """
        real = self.resolve(path)
        if not real.is_dir():
            raise ToolRefusal(f"{path!r} is not a folder")
        entries = []
        for child in sorted(real.iterdir()):
            if not self._inside(child):
                continue  # a symlink that leads out is not shown
            entries.append({"name": child.name, "folder": child.is_dir(),
                            "bytes": child.stat().st_size if child.is_file() else None})
        return entries

    def read_text(self, path: str, start_line: int = 1, max_lines: int = 200) -> dict[str, Any]:
        """Read lines of a text file of the round (step tables, lints, skills, summaries), truncated to a cap.

        Args:
            path: a file relative to the round folder.
            start_line: the first line to return, counting from 1.
            max_lines: how many lines to return at most.
        """
        real = self._openable(path)
        start_line, max_lines = int_arg(start_line, "start_line"), int_arg(max_lines, "max_lines")
        try:
            lines = real.read_text(encoding="utf-8").splitlines()
        except UnicodeDecodeError:
            raise ToolRefusal(f"{path!r} is not UTF-8 text (binary files such as Parquet cannot be read)") from None
        start = max(1, int(start_line))
        chosen = lines[start - 1:start - 1 + max(1, int(max_lines))]
        text = "\n".join(chosen)
        truncated = start - 1 + len(chosen) < len(lines)
        if len(text) > self.settings.read_chars:
            text, truncated = text[: self.settings.read_chars], True
        return {"text": text, "first_line": start, "lines_returned": len(chosen), "total_lines": len(lines),
                "truncated": truncated}

    def read_image(self, path: str) -> dict[str, Any]:
        """Look at an image of the round (a frame); it is resized and attached to the next message.

        Args:
            path: a .png or .jpg file relative to the round folder.
        """
        real = self._openable(path)
        if real.suffix.lower() not in IMAGE_SUFFIXES:
            raise ToolRefusal(f"{path!r} is not an image ({', '.join(IMAGE_SUFFIXES)})")
        from PIL import Image, UnidentifiedImageError

        try:
            with Image.open(real) as image:
                image = image.convert("RGB")
                image.thumbnail((self.settings.image_px, self.settings.image_px))
                buffer = io.BytesIO()
                image.save(buffer, format="PNG")
        except (UnidentifiedImageError, OSError):
            raise ToolRefusal(f"{path!r} is not a readable image") from None
        url = "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()
        self.images.append({"type": "image_url", "image_url": {"url": url}})
        return {"path": path, "width": image.width, "height": image.height, "attached": True}

    def grep(self, pattern: str, path: str = ".", max_matches: int = 50) -> dict[str, Any]:
        """Search the round's text files (.md, .txt, .jsonl, .json, .csv) for a regular expression.

        Args:
            pattern: a Python regular expression, matched case-insensitively line by line.
            path: a file or folder relative to the round folder to search in.
            max_matches: how many matching lines to return at most (capped by the run's setting).
        """
        pattern = text_arg(pattern, "pattern")
        try:
            re.compile(pattern, flags=re.I)
        except re.error as error:
            raise ToolRefusal(f"not a valid regular expression: {error}") from None
        real = self.resolve(path)
        cap = min(int_arg(max_matches, "max_matches"), self.settings.grep_matches)
        files = [real] if real.is_file() else sorted(p for p in real.rglob("*") if p.is_file())
        chosen = [(file.relative_to(self.root).as_posix(), str(file)) for file in files
                  if self._inside(file) and file.suffix.lower() in TEXT_SUFFIXES
                  and file.stat().st_size <= self.settings.file_bytes]
        job = json.dumps({"pattern": pattern, "files": chosen, "cap": cap, "chars": LINE_CHARS})
        limit = self.settings.grep_seconds
        try:
            done = subprocess.run([sys.executable, "-I", "-c", _SEARCH], input=job, capture_output=True, text=True,
                                  timeout=limit)
        except subprocess.TimeoutExpired:
            raise ToolRefusal(f"the search took longer than {limit:g} s and was stopped; use a simpler pattern "
                              "or a narrower path") from None
        if done.returncode != 0:
            raise ToolRefusal(f"the search failed: {(done.stderr.strip().splitlines() or ['?'])[-1][:200]}")
        return json.loads(done.stdout)
