"""The content toolset and family: every spec scenario and contract text, sessions in concurrent tasks."""

from __future__ import annotations

import asyncio
import json
import os

import pytest

import agenttools
from agenttools import ConfigError
from agenttools.content import session
from agenttools.toolsets.content.render import Result
from conftest import CONTENT_CATEGORIES as CATEGORIES

NOT_FOUND = "Present this error to the user and take no further action."
NO_MATCH = "Present this error to the user so they can correct the pattern. Do NOT attempt corrective action."
IO = "Present this error to the user. The file may have been deleted, moved, or has permission issues."


COLLECTIONS = [{"name": "all", "categories": ["examples", "guides"], "description": "Everything"}]


@pytest.fixture
def reg(docroot):
    return agenttools.toolset("content", docroot=str(docroot), categories=CATEGORIES, collections=COLLECTIONS)


def value(out) -> str:
    data = json.loads(out.text)
    assert data["success"] is True, out.text
    assert not out.is_error
    return data["value"]


def mime(*parts: tuple[str, str, str]) -> str:
    body = "".join(f"--guide-boundary\nContent-Type: {ctype}\nContent-Location: guide://category/{loc}\n"
                   f"Content-Length: {len(text.encode())}\n\n{text}\n\n" for ctype, loc, text in parts)
    return 'Content-Type: multipart/mixed; boundary="guide-boundary"\n\n' + body + "--guide-boundary--"


def test_single_document_is_plain(reg):
    out = reg.call("get_category_content", {"category": "examples"})
    assert out.text == '{"success": true, "value": "# Ex\\n"}'


def test_multiple_documents_are_mime_with_utf8_lengths(reg):
    assert value(reg.call("get_category_content", {"category": "guides", "pattern": "intro"})) == mime(
        ("text/markdown", "guides/intro.md", "# Intro\n"),
        ("text/plain", "guides/intro.txt", "h\u00e9llo \u2713\n"))  # Content-Length 11: bytes, not characters
    assert "Content-Length: 11\n" in value(reg.call("get_category_content", {"category": "guides",
                                                                             "pattern": "intro"}))


def test_default_patterns_templates_and_exclusions(reg):
    assert value(reg.call("get_content", {"category_or_collection": "guides"})) == mime(
        ("text/markdown", "guides/both.md", "plain wins\n"),
        ("text/markdown", "guides/intro.md", "# Intro\n"),
        ("text/markdown", "guides/tmpl.md.mustache", "# T {{x}}\n"),
        ("text/markdown", "guides/tutorial.md", "# Tutorial\n"))


def test_collection_order_and_locations(reg):
    text = value(reg.call("get_collection_content", {"collection": "all", "pattern": "*.md"}))
    locations = [line.split("guide://category/")[1] for line in text.splitlines()
                 if line.startswith("Content-Location")]
    assert locations == ["examples/ex.md", "guides/both.md", "guides/intro.md", "guides/tmpl.md.mustache",
                         "guides/tutorial.md"]
    assert value(reg.call("get_content", {"category_or_collection": "all", "pattern": "ex.md"})) == "# Ex\n"


def test_category_is_tried_before_collection(docroot):
    reg = agenttools.toolset("content", docroot=str(docroot), categories=CATEGORIES,
                             collections=[{"name": "examples", "categories": ["guides"]}])
    assert value(reg.call("get_content", {"category_or_collection": "examples"})) == "# Ex\n"


@pytest.mark.parametrize(
    ("tool", "args", "error", "error_type", "instruction"),
    [
        ("get_content", {"category_or_collection": "nope"}, "Category or collection 'nope' not found in project",
         "not_found", NOT_FOUND),
        ("get_category_content", {"category": "nope"}, "Category 'nope' not found in project", "not_found",
         NOT_FOUND),
        ("get_collection_content", {"collection": "nope"}, "Collection 'nope' not found in project", "not_found",
         NOT_FOUND),
        ("get_category_content", {"category": "guides", "pattern": "*.zig"},
         "No files matched pattern '*.zig' in category 'guides'", "no_matches", NO_MATCH),
        ("get_collection_content", {"collection": "all", "pattern": "*.zig"},
         "No matching content found in collection 'all'", "no_matches", NO_MATCH),
        ("get_category_content", {"category": "guides", "pattern": "intro.md.mustache"},
         "Patterns should not include .mustache extension: intro.md.mustache. Template files are automatically "
         "discovered.", "invalid_pattern", "Present this error to the user with pattern syntax help."),
        ("get_category_content", {"category": "guides", "pattern": "../examples/*.md"},
         "Pattern must stay inside the category directory: ../examples/*.md", "invalid_pattern",
         "Present this error to the user with pattern syntax help."),
        ("get_category_content", {"category": "guides", "pattern": "[abc"},
         "Invalid pattern '[abc': unclosed '[' in glob pattern '[abc'", "invalid_pattern",
         "Present this error to the user with pattern syntax help."),
    ],
)
def test_failures(reg, tool, args, error, error_type, instruction):
    out = reg.call(tool, args)
    assert out.is_error
    assert out.text == json.dumps({"success": False, "error": error, "error_type": error_type,
                                   "instruction": instruction})


def test_collection_with_a_missing_category_fails_before_reading(docroot):
    reg = agenttools.toolset("content", docroot=str(docroot), categories=CATEGORIES,
                             collections=[{"name": "broken", "categories": ["guides", "ghost"]}])
    assert json.loads(reg.call("get_collection_content", {"collection": "broken"}).text)["error"] == (
        "Category 'ghost' (referenced by collection 'broken') not found")


def test_missing_category_directory_and_unreadable_files(docroot):
    (docroot / "guides" / "bad.md").write_bytes(b"\xff\xfe not utf-8")
    reg = agenttools.toolset("content", docroot=str(docroot),
                             categories=[*CATEGORIES, {"name": "ghost", "dir": "missing"}],
                             collections=[{"name": "g", "categories": ["guides"]}])
    out = json.loads(reg.call("get_category_content", {"category": "ghost"}).text)
    assert (out["error"], out["error_type"], out["instruction"]) == (
        f"Category directory not found: {docroot / 'missing'}", "io_error", IO)
    out = json.loads(reg.call("get_category_content", {"category": "guides"}).text)
    assert out["error_type"] == "io_error"
    assert out["error"].startswith("Failed to read one or more files in category 'guides': 'bad.md': 'utf-8' codec")
    out = json.loads(reg.call("get_collection_content", {"collection": "g"}).text)
    assert out["error"].startswith("Failed to read one or more files in collection 'g': 'guides/bad.md': ")


def test_symlinks_cannot_escape_the_category(docroot, tmp_path):
    (tmp_path / "secret.md").write_text("secret\n")
    (docroot / "examples" / "leak.md").symlink_to(tmp_path / "secret.md")
    (docroot / "examples" / "alias.md").symlink_to(docroot / "examples" / "ex.md")
    reg = agenttools.toolset("content", docroot=str(docroot), categories=CATEGORIES)
    assert value(reg.call("get_category_content", {"category": "examples"})) == "# Ex\n"  # alias de-duplicated


def test_validation_before_retrieval(reg):
    out = reg.call("get_category_content", {"category": 5, "extra": 1})
    assert out.text == json.dumps({
        "success": False, "error": "Invalid tool arguments: 2 validation error(s)", "error_type": "validation_error",
        "error_data": {"validation_errors": [{"field": "extra", "message": "Extra inputs are not permitted"},
                                             {"field": "category", "message": "Input should be a valid string"}]},
        "instruction": "Return error to user without attempting remediation"})
    assert json.loads(reg.call("get_content", {}).text)["error_data"] == {
        "validation_errors": [{"field": "category_or_collection", "message": "Field required"}]}


def test_no_session_and_sessions(docroot):
    reg = agenttools.toolset("content")
    assert reg.call("get_content", {"category_or_collection": "guides"}).text == json.dumps({
        "success": False, "error": "No active project session", "error_type": "no_session",
        "message": "The content toolset has no project: build it with agenttools.toolset('content', docroot=..., "
                   "categories=[...]) or config='guide.toml', or serve calls inside agenttools.content.session(...).",
        "instruction": "Inform user that project context is required."})
    with session(docroot=str(docroot), categories=CATEGORIES):
        assert value(reg.call("get_category_content", {"category": "examples"})) == "# Ex\n"
    assert json.loads(reg.call("get_content", {"category_or_collection": "x"}).text)["error_type"] == "no_session"


def test_two_concurrent_sessions_in_asyncio_tasks(tmp_path):
    for name in ("a", "b"):
        (tmp_path / name / "docs").mkdir(parents=True)
        (tmp_path / name / "docs" / "readme.md").write_text(f"project {name}\n")
    reg = agenttools.toolset("content")

    async def serve(name: str) -> list[str]:
        seen = []
        with session(docroot=str(tmp_path / name), categories=[{"name": "docs", "dir": "docs"}]):
            for _ in range(5):
                out = await reg.acall("get_category_content", {"category": "docs"})
                seen.append(value(out))
                await asyncio.sleep(0.001)
        return seen

    async def main() -> list[list[str]]:
        return list(await asyncio.gather(serve("a"), serve("b")))

    first, second = asyncio.run(main())
    assert first == ["project a\n"] * 5
    assert second == ["project b\n"] * 5


def test_config_files(docroot, tmp_path):
    toml = tmp_path / "guide.toml"
    toml.write_text(f'docroot = "{docroot.name}"\n\n[[categories]]\nname = "guides"\ndir = "guides"\n'
                    'patterns = ["intro.md"]\n\n[[collections]]\nname = "c"\ncategories = ["guides"]\n')
    reg = agenttools.toolset("content", config=str(toml))
    assert value(reg.call("get_content", {"category_or_collection": "c"})) == "# Intro\n"
    as_json = tmp_path / "guide.json"
    as_json.write_text(json.dumps({"docroot": str(docroot), "categories": CATEGORIES}))
    assert value(agenttools.toolset("content", config=str(as_json)).call(
        "get_category_content", {"category": "examples"})) == "# Ex\n"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"categories": CATEGORIES}, "needs docroot"),
        ({"docroot": "/nonexistent-dir"}, "is not an existing directory"),
        ({"docroot": ".", "categories": [{"name": "bad name!", "dir": "x"}]}, "must be 1-30 characters"),
        ({"docroot": ".", "categories": [{"name": "x" * 31, "dir": "x"}]}, "must be 1-30 characters"),
        ({"docroot": ".", "categories": [{"name": "a", "dir": "x"}, {"name": "a", "dir": "y"}]}, "duplicate"),
        ({"docroot": ".", "categories": [{"name": "a"}]}, "invalid category"),
        ({"config": "/nonexistent.toml"}, "cannot read content config"),
        ({"config": "x.toml", "docroot": "."}, "not both"),
    ],
)
def test_bad_configuration(options, message):
    with pytest.raises(ConfigError, match=message):
        agenttools.toolset("content", **options)


def test_result_json_exactly():
    assert Result.ok("# Test Content").to_json_str() == '{"success": true, "value": "# Test Content"}'
    assert Result.ok(None, message="m").to_json_str() == '{"success": true, "message": "m"}'
    failure = Result.failure("Category 'x' not found in project", "not_found", instruction=NOT_FOUND)
    assert failure.to_json_str() == (
        '{"success": false, "error": "Category \'x\' not found in project", "error_type": "not_found", '
        '"instruction": "Present this error to the user and take no further action."}')
    boom = Result.failure("boom", exception=ValueError("bad"), message="note", error_data={"k": 1})
    assert boom.to_json() == {"success": False, "error": "boom", "error_type": "unknown", "error_data": {"k": 1},
                              "exception_type": "ValueError", "exception_message": "bad", "message": "note"}
    assert Result.ok("\u00e9").to_json_str() == '{"success": true, "value": "\\u00e9"}'


def test_unexpected_errors_are_unknown(reg, monkeypatch):
    def explode(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr("agenttools.toolsets.content.tools.format_documents", explode)
    out = json.loads(reg.call("get_category_content", {"category": "examples"}).text)
    assert out == {"success": False, "error": "disk on fire", "error_type": "unknown",
                   "exception_type": "RuntimeError", "exception_message": "disk on fire"}


# --- untrusted docroot: hidden files behind symlinks, loops, escapes, huge files, deep trees, long patterns ---


def _error(out) -> tuple[str, str]:
    data = json.loads(out.text)
    assert data["success"] is False and out.is_error, out.text
    return data["error"], data["error_type"]


def test_a_hidden_file_is_not_served_through_a_symlink(docroot):
    guides = docroot / "guides"
    (guides / ".private").mkdir()
    (guides / ".private" / "key.md").write_text("SECRET-A\n")
    (guides / "__internal__").mkdir()
    (guides / "__internal__" / "notes.md").write_text("SECRET-B\n")
    (guides / "plain.md").symlink_to(".hidden.md")  # .hidden.md is in the fixture
    (guides / "key.md").symlink_to(".private/key.md")
    (guides / "notes.md").symlink_to("__internal__/notes.md")
    (guides / "sub" / "cfg.md").symlink_to("../meta_.json")
    reg = agenttools.toolset("content", docroot=str(docroot), categories=CATEGORIES)
    text = value(reg.call("get_category_content", {"category": "guides", "pattern": "**/*.md"}))
    for secret in ("hidden\n", "SECRET-A", "SECRET-B", "{}"):
        assert secret not in text
    assert "guides/intro.md" in text and "guides/sub/deep.md" in text


def test_a_symlink_loop_does_not_break_the_category(docroot):
    guides = docroot / "guides"
    (guides / "self.md").symlink_to("self.md")
    (guides / "ping.md").symlink_to("pong.md")
    (guides / "pong.md").symlink_to("ping.md")
    (guides / "dangling.md").symlink_to("nowhere.md")
    (guides / "loopdir").symlink_to("loopdir")
    reg = agenttools.toolset("content", docroot=str(docroot), categories=CATEGORIES)
    assert value(reg.call("get_category_content", {"category": "guides", "pattern": "intro.md"})) == "# Intro\n"
    text = value(reg.call("get_category_content", {"category": "guides"}))
    assert "guides/intro.md" in text and "self.md" not in text and "ping.md" not in text


def test_a_looping_category_directory_is_not_found(docroot):
    (docroot / "loop").symlink_to("loop")
    reg = agenttools.toolset("content", docroot=str(docroot), categories=[{"name": "l", "dir": "loop"}])
    error, kind = _error(reg.call("get_category_content", {"category": "l"}))
    assert error.startswith("Category directory not found: ") and kind == "io_error"


@pytest.mark.parametrize(("directory", "reason"), [
    ("../outside", "Path traversal is not allowed"),
    ("guides/../../outside", "Path traversal is not allowed"),
    ("/etc", "Absolute paths are not allowed"),
])
def test_a_category_dir_outside_the_docroot_is_a_config_error(docroot, directory, reason):
    with pytest.raises(ConfigError, match=f"category 'x': dir '{directory}' must be inside the docroot: {reason}"):
        agenttools.toolset("content", docroot=str(docroot), categories=[{"name": "x", "dir": directory}])


def test_a_category_folder_symlinked_out_of_the_docroot_is_refused(docroot, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("SECRET\n")
    (docroot / "linked").symlink_to(outside)
    (docroot / "guides" / "nested").symlink_to(outside)  # a folder below a category: never descended
    (docroot / "inner").symlink_to(docroot / "examples")  # a link that stays inside is fine
    reg = agenttools.toolset("content", docroot=str(docroot), categories=[
        {"name": "linked", "dir": "linked"}, {"name": "guides", "dir": "guides", "patterns": ["**/*.md"]},
        {"name": "inner", "dir": "inner"}], collections=[{"name": "c", "categories": ["inner", "linked"]}])
    for call in (("get_category_content", {"category": "linked"}),
                 ("get_content", {"category_or_collection": "linked"}),
                 ("get_collection_content", {"collection": "c"})):
        out = reg.call(*call)
        assert "SECRET" not in out.text
        error, kind = _error(out)
        assert (error, kind) == (f"Base directory must be within docroot: {docroot / 'linked'}", "io_error")
    assert "SECRET" not in value(reg.call("get_category_content", {"category": "guides"}))
    assert value(reg.call("get_category_content", {"category": "inner"})) == "# Ex\n"


def test_a_huge_document_is_refused_by_its_size_before_reading(docroot):
    import tracemalloc

    huge = docroot / "examples" / "huge.md"
    with open(huge, "wb") as handle:  # sparse: 200 MiB that costs no disk
        handle.truncate(200 << 20)
    reg = agenttools.toolset("content", docroot=str(docroot), categories=CATEGORIES)
    tracemalloc.start()
    try:
        out = reg.call("get_category_content", {"category": "examples", "pattern": "huge.md"})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert _error(out) == ("Failed to read one or more files in category 'examples': 'huge.md': file is "
                           "209715200 bytes, over the 10485760-byte limit", "io_error")
    assert peak < 2 << 20
    huge.unlink()
    for i in range(4):  # the total of one answer is bounded too, before anything is read
        with open(docroot / "examples" / f"part{i}.md", "wb") as handle:
            handle.truncate(9 << 20)
    out = reg.call("get_category_content", {"category": "examples"})
    assert _error(out)[0] == ("Failed to read one or more files in category 'examples': the documents total "
                              "37748741 bytes, over the 33554432-byte limit")


def test_size_limits_are_options(docroot, tmp_path):
    (docroot / "examples" / "big.md").write_text("x" * 3000)
    reg = agenttools.toolset("content", docroot=str(docroot), categories=CATEGORIES, max_file_size="2KB")
    error, _ = _error(reg.call("get_category_content", {"category": "examples", "pattern": "big"}))
    assert error.endswith("'big.md': file is 3000 bytes, over the 2048-byte limit")
    assert value(reg.call("get_category_content", {"category": "examples", "pattern": "ex"})) == "# Ex\n"
    reg = agenttools.toolset("content", docroot=str(docroot), categories=CATEGORIES, max_total_size=3004)
    error, _ = _error(reg.call("get_category_content", {"category": "examples"}))
    assert error.endswith("the documents total 3005 bytes, over the 3004-byte limit")
    toml = tmp_path / "g.toml"
    toml.write_text(f'docroot = "{docroot}"\nmax_file_size = "1KB"\n[[categories]]\nname = "e"\ndir = "examples"\n')
    error, _ = _error(agenttools.toolset("content", config=str(toml)).call("get_content", {
        "category_or_collection": "e", "pattern": "big"}))
    assert error.endswith("over the 1024-byte limit")
    with pytest.raises(ConfigError, match="invalid size"):
        agenttools.toolset("content", docroot=str(docroot), max_file_size="lots")
    with pytest.raises(ConfigError, match="need a project"):
        agenttools.toolset("content", max_file_size=10)


def test_a_file_that_grows_while_read_stops_at_the_limit(docroot):
    from agenttools.content import Document, DocumentTooLargeError, read_document

    path = docroot / "examples" / "ex.md"
    doc = Document(category="examples", path="ex.md", basename="ex.md", real_path=path, size=5, mtime=0.0)
    assert read_document(doc, 5) == "# Ex\n"
    with pytest.raises(DocumentTooLargeError, match="over the 4-byte limit"):
        read_document(doc, 4)
    fifo = docroot / "examples" / "pipe.md"
    os.mkfifo(fifo)
    fifo_doc = Document(category="examples", path="pipe.md", basename="pipe.md", real_path=fifo, size=0, mtime=0.0)
    with pytest.raises(OSError, match="not a regular file"):
        read_document(fifo_doc, 100)  # opened without blocking, refused by fstat
    reg = agenttools.toolset("content", docroot=str(docroot), categories=CATEGORIES)
    assert value(reg.call("get_category_content", {"category": "examples"})) == "# Ex\n"  # the FIFO is passed by


def test_a_long_pattern_is_refused(reg):
    error, kind = _error(reg.call("get_category_content", {"category": "guides", "pattern": "a" * 5000}))
    assert (error, kind) == ("Pattern is too long: 5000 characters (at most 1024)", "invalid_pattern")


def test_a_validation_error_with_no_argument_concerned_names_field_unknown(reg):
    """mcp-guide's decorator: ``str(err["loc"][0]) if err["loc"] else "unknown"``."""
    for arguments in ("[1]", "not json"):
        data = json.loads(reg.call("get_category_content", arguments).text)
        assert data["error_type"] == "validation_error"
        assert [e["field"] for e in data["error_data"]["validation_errors"]] == ["unknown"]
