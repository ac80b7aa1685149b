"""The reflector's reading tools: confined to the round folder, capped, documented by their schemas."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from PIL import Image

from rtarena.improve.reflector import ToolSession
from rtarena.improve.schema import tool_schema
from rtarena.improve.settings import ImproveSettings
from rtarena.improve.submit import RoundState, Submissions
from rtarena.improve.tools import RoundFolder, ToolRefusal


@pytest.fixture
def folder(tmp_path):
    root = tmp_path / "round_00"
    (root / "evidence").mkdir(parents=True)
    (root / "lints.md").write_text("# Signals\n- empty_skill: none yet\n")
    (root / "evidence" / "a.steps.jsonl").write_text("".join(json.dumps({"i": i, "reasoning": f"pole angle {i}"})
                                                             + "\n" for i in range(50)))
    Image.fromarray(np.zeros((300, 1200, 3), dtype=np.uint8)).save(root / "evidence" / "frame.png")
    outside = tmp_path / "secret"
    outside.mkdir()
    (outside / "key.txt").write_text("pole angle: the secret\n")
    Image.fromarray(np.zeros((8, 8, 3), dtype=np.uint8)).save(outside / "x.png")
    os.symlink(outside / "key.txt", root / "link.txt")
    os.symlink(outside / "x.png", root / "link.png")
    os.symlink(outside, root / "linkdir")
    return RoundFolder(root, ImproveSettings(read_chars=200, grep_matches=7, image_px=64, file_bytes=5000))


ESCAPES = ["../secret/key.txt", "evidence/../../secret/key.txt", "/etc/passwd", "~/x", "..\\secret\\key.txt"]


@pytest.mark.parametrize("path", ESCAPES)
def test_every_tool_refuses_dot_dot_and_absolute_paths(folder, path):
    for call in (lambda: folder.list_dir(path), lambda: folder.read_text(path), lambda: folder.read_image(path),
                 lambda: folder.grep("secret", path)):
        with pytest.raises(ToolRefusal, match="not allowed"):
            call()


def test_every_tool_refuses_symlinks_that_lead_out(folder):
    with pytest.raises(ToolRefusal, match="outside"):
        folder.read_text("link.txt")
    with pytest.raises(ToolRefusal, match="outside"):
        folder.read_image("link.png")
    with pytest.raises(ToolRefusal, match="outside"):
        folder.list_dir("linkdir")
    with pytest.raises(ToolRefusal, match="outside"):
        folder.grep("secret", "linkdir")
    names = {e["name"] for e in folder.list_dir(".")}
    assert names == {"evidence", "lints.md"}  # the links out are not even listed
    assert all("secret" not in m["text"] for m in folder.grep("pole angle", ".", 999)["matches"])


def test_read_text_truncates_to_the_character_cap_and_pages_by_lines(folder):
    first = folder.read_text("evidence/a.steps.jsonl", max_lines=1000)
    assert len(first["text"]) == 200 and first["truncated"] and first["total_lines"] == 50
    page = folder.read_text("evidence/a.steps.jsonl", start_line=49, max_lines=5)
    assert page["lines_returned"] == 2 and not page["truncated"] and '"i": 49' in page["text"]


def test_files_over_the_byte_cap_are_not_opened(folder):
    (folder.root / "big.md").write_text("x" * 6000)
    with pytest.raises(ToolRefusal, match="over the cap"):
        folder.read_text("big.md")


def test_grep_caps_matches_and_searches_jsonl_by_default(folder):
    found = folder.grep("pole angle", ".", max_matches=100)
    assert len(found["matches"]) == 7 and found["truncated"]
    assert found["matches"][0]["file"] == "evidence/a.steps.jsonl"
    with pytest.raises(ToolRefusal, match="regular expression"):
        folder.grep("(", ".")


def test_read_image_resizes_to_the_cap_and_attaches_the_image(folder):
    result = folder.read_image("evidence/frame.png")
    assert (result["width"], result["height"]) == (64, 16)
    assert folder.images[0]["image_url"]["url"].startswith("data:image/png;base64,")
    with pytest.raises(ToolRefusal, match="not an image"):
        folder.read_image("lints.md")


def test_binary_files_are_refused_by_read_text(folder):
    (folder.root / "x.parquet").write_bytes(b"PAR1\xff\xfe\x00")
    with pytest.raises(ToolRefusal, match="not UTF-8"):
        folder.read_text("x.parquet")


def test_each_tool_has_a_schema_from_its_signature_and_docstring(folder):
    session = ToolSession(folder, Submissions(folder.root, RoundState(0, "", "", False, []), ImproveSettings(), None))
    schemas = {s["function"]["name"]: s["function"] for s in session.schemas}
    assert set(schemas) == {"list_dir", "read_text", "read_image", "grep", "get_previous_skill", "submit_diagnosis",
                            "validate_skill", "submit_skill"}
    grep = schemas["grep"]["parameters"]
    assert grep["required"] == ["pattern"] and grep["properties"]["max_matches"]["type"] == "integer"
    assert "regular expression" in grep["properties"]["pattern"]["description"]
    diagnosis = schemas["submit_diagnosis"]["parameters"]["properties"]
    assert diagnosis["causes"] == {"type": "array", "items": {"type": "string"},
                                   "description": diagnosis["causes"]["description"]}
    assert schemas["get_previous_skill"]["parameters"]["properties"] == {}

    def undocumented(x: int) -> None:
        """No Args section."""

    with pytest.raises(TypeError, match="not documented"):
        tool_schema(undocumented)
    # a call with wrong arguments becomes a refusal the model can read, not a crash
    assert session.call("read_text", {"nope": 1})["ok"] is False
    assert session.call("rm", {})["error"].startswith("no tool")


def test_a_pattern_that_backtracks_for_ever_is_stopped_at_the_time_limit(folder, tmp_path):
    import time

    (folder.root / "evil.txt").write_text("a" * 40 + "!\n")
    slow = RoundFolder(folder.root, ImproveSettings(grep_seconds=1.0))
    started = time.monotonic()
    with pytest.raises(ToolRefusal, match="longer than 1 s"):
        slow.grep("(a+)+$", "evil.txt")
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("name, args, words", [
    ("read_text", {"path": "lints.md\x00x"}, "NUL"),
    ("read_text", {"path": "lints.md", "max_lines": "ten"}, "max_lines"),
    ("read_text", {"path": "lints.md", "start_line": True}, "start_line"),
    ("grep", {"pattern": "x", "path": "a\x00"}, "NUL"),
    ("grep", {"pattern": 3}, "pattern"),
    ("grep", {"pattern": "x" * 5000}, "pattern"),
    ("grep", {"pattern": "x", "max_matches": -1}, "max_matches"),
    ("list_dir", {"path": ["."]}, "path"),
    ("read_text", {"path": "lints.md", "colour": 1}, "colour"),
])
def test_malformed_tool_arguments_are_a_refusal_the_model_reads(folder, name, args, words):
    session = ToolSession(folder, Submissions(folder.root, RoundState(0, "", "", False, []), ImproveSettings(), None))
    answer = session.call(name, args)
    assert answer["ok"] is False and words in answer["error"], answer
