"""content side by side with mcp-guide itself: the same calls over the same docroot, the texts compared byte for byte.

mcp-guide 1.0.0b1 (PyPI) is installed into a virtualenv of its own and runs its own discovery, reader, plain
formatter and Result in a small driver (``upstream/content_driver.py``), composed as the tools we reproduce were
composed at deeprave/mcp-guide 0b23208 (the last commit with get_content(category_or_collection),
get_category_content and get_collection_content). Three documented rules map upstream's answer onto ours, each a
deviation in docs/toolsets/content.md: "nothing matched" is a ``no_matches`` failure with upstream's sentence and
instruction; a read failure's ``file_read_error`` is the spec's ``io_error``; several documents are the spec's MIME
block, whose parts (category, path, text; in category order, then path order) must be upstream's documents exactly.
Every other difference fails unless the case is in ``DELIBERATE`` with its reason. Without PyPI (the virtualenv
cannot be made) that test is skipped; ``test_upstream_facts`` keeps the answers that needed a fix, copied from a run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import agenttools
from conftest import upstream_unavailable

DRIVER = Path(__file__).parent / "upstream" / "content_driver.py"
PACKAGE = "mcp-guide==1.0.0b1"


@pytest.fixture(scope="module")
def upstream(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("mcp-guide")
    made = subprocess.run([sys.executable, "-m", "venv", str(home / "venv")], capture_output=True, text=True,
                          timeout=300, check=False)
    if made.returncode != 0:
        upstream_unavailable(f"cannot make a virtualenv: {made.stderr.strip()[-200:]}")
    python = home / "venv" / "bin" / "python"
    done = subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", PACKAGE],
                          capture_output=True, text=True, timeout=900, check=False)
    if done.returncode != 0:
        upstream_unavailable(f"cannot install {PACKAGE} from PyPI: {done.stderr.strip()[-200:]}")
    return python


def build(root: Path, outside: Path) -> None:
    """A docroot with every shape the cases need: templates, hidden files, CRLF, symlinks in and out, odd names."""

    def w(rel: str, data: str | bytes, base: Path = root) -> None:
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data if isinstance(data, bytes) else data.encode())

    w("guides/intro.md", "# Intro\n")
    w("guides/intro.txt", "h\u00e9llo \u2713\n")
    w("guides/tutorial.md", "# Tutorial\n")
    w("guides/apple.md", "apple\n")
    w("guides/banana.md", "banana\n")
    w("guides/crlf.md", "line one\r\nline two\r\nlone\rcr\n")
    w("guides/tmpl.md.mustache", "# T {{x}}\n")
    w("guides/both.md", "plain wins\n")
    w("guides/both.md.mustache", "template loses\n")
    w("guides/a\\b.md", "backslash\n")
    w("guides/ab.md", "no backslash\n")
    w("guides/sub/deep.md", "# Deep\n")
    w("guides/sub/code.py", "print(1)\n")
    w("guides/.hidden.md", "hidden\n")
    w("guides/.private/key.md", "SECRET-A\n")
    w("guides/__pycache__/x.md", "cache\n")
    w("guides/meta_.json", "{}\n")
    w("guides/data.json", "[1]\n")
    w("examples/ex.md", "# Ex\n")
    w("front/front.md", "---\ntitle: Front\ninstruction: Read me\n---\n# Body\n")
    w("odd/x.md.bak", "backup\n")
    w("odd/sub/y.md", "why\n")
    w("odd/z.orig", "original\n")
    w("bad/ok.md", "fine\n")
    w("bad/sub/two.md", b"\xfe not utf-8\n")
    w("secret.md", "SECRET-OUT\n", outside)
    (root / "empty").mkdir()
    os.symlink("sub/deep.md", root / "guides" / "link.md")
    os.symlink("intro.md", root / "guides" / "alias.md")
    os.symlink(outside / "secret.md", root / "guides" / "leak.md")
    os.symlink("sub", root / "guides" / "linkdir")
    os.symlink(outside, root / "linked")
    os.symlink("examples", root / "inner")


CATEGORIES = [
    {"name": "guides", "dir": "guides", "patterns": ["*.md"]},
    {"name": "examples", "dir": "examples", "patterns": ["*.md"]},
    {"name": "intro_only", "dir": "guides", "patterns": ["intro.md"]},
    {"name": "empty", "dir": "empty", "patterns": ["*.md"]},
    {"name": "ghostdir", "dir": "missing", "patterns": ["*.md"]},
    {"name": "linked", "dir": "linked", "patterns": ["*.md"]},
    {"name": "inner", "dir": "inner", "patterns": ["*.md"]},
    {"name": "badfiles", "dir": "bad", "patterns": ["**/*.md"]},
    {"name": "front", "dir": "front", "patterns": ["*.md"]},
    {"name": "odd", "dir": "odd", "patterns": ["*.md"]},
]
COLLECTIONS = [
    {"name": "all", "categories": ["examples", "guides"]},
    {"name": "dup", "categories": ["guides", "intro_only"]},
    {"name": "broken", "categories": ["guides", "ghost"]},
    {"name": "withempty", "categories": ["empty", "examples"]},
    {"name": "examples", "categories": ["intro_only"]},
    {"name": "badcoll", "categories": ["examples", "badfiles"]},
]



def _case(tool: str, **args: str) -> tuple[str, str]:
    return tool, json.dumps(args, sort_keys=True)


DELIBERATE = {
    _case("get_category_content", category="front"):
        "front matter is served as written (as at 0b23208); 1.0.0b1 strips it and reads instructions from it",
    _case("get_category_content", category="guides", pattern="**/*.md"):
        "a folder whose name starts with '.' is hidden (as at 0b23208); 1.0.0b1 served .private/key.md",
    _case("get_category_content", category="guides", pattern="*.json"):
        "*_.json files are category metadata, never served (as at 0b23208); 1.0.0b1 served meta_.json",
    _case("get_category_content", category="guides", pattern="linkdir/*.md"):
        "a symlinked folder below a category is never descended; upstream's glob followed one named in a pattern",
    _case("get_category_content", category="guides", pattern="[abc"):
        "an unclosed '[' is an invalid_pattern; fnmatch took it literally",
    _case("get_category_content", category="guides", pattern="../examples/*.md"):
        "a pattern leaving the category is an invalid_pattern; upstream matched it and dropped what it found",
    _case("get_category_content", category="guides", pattern="intro.md.mustache"):
        "a Result (invalid_pattern, 0b23208's words) where upstream let a ValueError out of the tool",
    _case("get_category_content", category="ghostdir"):
        "a Result (io_error) where upstream let FileNotFoundError out of the tool",
    _case("get_category_content", category="linked"):
        "a category folder whose real path leaves the docroot is refused before it is listed",
    _case("get_category_content", category="odd"):
        "*.md is *.md; 1.0.0b1 tried '.*' after every pattern, so its *.md also served x.md.bak",
    _case("get_category_content", category="odd", pattern="**/sub/*.md"):
        "what follows **/ is matched against the path; upstream matched it against file names, finding nothing",
    _case("get_category_content", category="odd", pattern="*.orig"):
        "*.orig files are served like any other (as at 0b23208); 1.0.0b1 hid them as backups",
    _case("get_content", category_or_collection="examples"):
        "get_content tries a category before a collection (the spec); upstream merged both",
    _case("get_content", category_or_collection="nope"):
        "an unknown name is not_found (the spec); upstream answered that nothing matched",
}
"""Cases whose answers differ on purpose: each reason is a deviation listed in docs/toolsets/content.md."""


def expected(answer: dict) -> str | None:
    """Upstream's answer as our envelope carries it, where the two differ in the envelope only (deviation 1).

    Upstream answered "nothing matched" as a success with an instruction, we as a ``no_matches`` failure with the
    same sentence and instruction; its ``file_read_error`` is the spec's ``io_error``.
    """
    if "answer" not in answer:
        return None
    data = json.loads(answer["answer"])
    if data["success"] and answer["documents"] is None:
        return json.dumps({"success": False, "error": data["value"], "error_type": "no_matches",
                           "instruction": data["instruction"]})
    if not data["success"] and data["error_type"] == "file_read_error":
        return json.dumps({**data, "error_type": "io_error"})
    return answer["answer"]


CASES: list[tuple[str, dict[str, str]]] = [
    ("get_category_content", {"category": "examples"}),
    ("get_category_content", {"category": "guides"}),
    ("get_category_content", {"category": "guides", "pattern": "intro"}),
    ("get_category_content", {"category": "guides", "pattern": "intro.md"}),
    ("get_category_content", {"category": "guides", "pattern": "crlf.md"}),
    ("get_category_content", {"category": "front"}),
    ("get_category_content", {"category": "guides", "pattern": "tmpl.md"}),
    ("get_category_content", {"category": "guides", "pattern": "both.md"}),
    ("get_category_content", {"category": "guides", "pattern": "[!a]*.md"}),
    ("get_category_content", {"category": "guides", "pattern": "[!abt]*.md"}),
    ("get_category_content", {"category": "guides", "pattern": "[^a]*.md"}),
    ("get_category_content", {"category": "guides", "pattern": "{intro,tutorial}.md"}),
    ("get_category_content", {"category": "guides", "pattern": "a\\b.md"}),
    ("get_category_content", {"category": "guides", "pattern": "**/*.md"}),
    ("get_category_content", {"category": "guides", "pattern": "sub/*"}),
    ("get_category_content", {"category": "guides", "pattern": "link.md"}),
    ("get_category_content", {"category": "guides", "pattern": "alias.md"}),
    ("get_category_content", {"category": "guides", "pattern": "linkdir/*.md"}),
    ("get_category_content", {"category": "guides", "pattern": "leak.md"}),
    ("get_category_content", {"category": "guides", "pattern": ".hidden.md"}),
    ("get_category_content", {"category": "guides", "pattern": "*.json"}),
    ("get_category_content", {"category": "guides", "pattern": "*.zig"}),
    ("get_category_content", {"category": "guides", "pattern": "[abc"}),
    ("get_category_content", {"category": "guides", "pattern": "../examples/*.md"}),
    ("get_category_content", {"category": "guides", "pattern": "intro.md.mustache"}),
    ("get_category_content", {"category": "empty"}),
    ("get_category_content", {"category": "nope"}),
    ("get_category_content", {"category": "ghostdir"}),
    ("get_category_content", {"category": "linked"}),
    ("get_category_content", {"category": "inner"}),
    ("get_category_content", {"category": "badfiles"}),
    ("get_category_content", {"category": "odd"}),
    ("get_category_content", {"category": "odd", "pattern": "**/sub/*.md"}),
    ("get_category_content", {"category": "odd", "pattern": "*.orig"}),
    ("get_collection_content", {"collection": "all"}),
    ("get_collection_content", {"collection": "all", "pattern": "ex.md"}),
    ("get_collection_content", {"collection": "dup"}),
    ("get_collection_content", {"collection": "dup", "pattern": "intro.md"}),
    ("get_collection_content", {"collection": "withempty"}),
    ("get_collection_content", {"collection": "all", "pattern": "*.zig"}),
    ("get_collection_content", {"collection": "nope"}),
    ("get_collection_content", {"collection": "broken"}),
    ("get_collection_content", {"collection": "badcoll"}),
    ("get_content", {"category_or_collection": "guides", "pattern": "intro.md"}),
    ("get_content", {"category_or_collection": "all", "pattern": "ex.md"}),
    ("get_content", {"category_or_collection": "dup", "pattern": "intro.md"}),
    ("get_content", {"category_or_collection": "examples"}),
    ("get_content", {"category_or_collection": "all", "pattern": "*.zig"}),
    ("get_content", {"category_or_collection": "nope"}),
    ("get_content", {"category_or_collection": "badfiles"}),
]


def run_upstream(python: Path, docroot: Path) -> list[dict]:
    project = {"docroot": str(docroot), "categories": CATEGORIES, "collections": COLLECTIONS}
    lines = "".join(json.dumps({"project": project, "tool": tool, "args": args}) + "\n" for tool, args in CASES)
    done = subprocess.run([str(python), str(DRIVER)], input=lines, capture_output=True, text=True, timeout=300,
                          check=False)
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert len(answers) == len(CASES), done.stderr[-2000:]
    return answers


def parts(value: str) -> list[list[str]]:
    """Our several-document answer as ``[category, path, text]`` parts; the parse is checked to lose nothing."""
    data, out, at = value.encode(), [], 0
    head = b'Content-Type: multipart/mixed; boundary="guide-boundary"\n\n'
    assert data.startswith(head)
    at = len(head)
    while data.startswith(b"--guide-boundary\n", at):
        end = data.index(b"\n\n", at)
        headers = dict(line.split(": ", 1) for line in data[at:end].decode().splitlines()[1:])
        length = int(headers["Content-Length"])
        category, _, path = headers["Content-Location"].removeprefix("guide://category/").partition("/")
        out.append([category, path, data[end + 2:end + 2 + length].decode()])
        assert data[end + 2 + length:end + 4 + length] == b"\n\n"
        at = end + 4 + length
    assert data[at:] == b"--guide-boundary--"
    return out


def in_our_order(documents: list[list[str]]) -> list[list[str]]:
    """Categories in the order they come, paths sorted within each (upstream: file-system order per pattern)."""
    first = {category: i for i, (category, _, _) in reversed(list(enumerate(documents)))}
    return sorted(documents, key=lambda d: (first[d[0]], d[1].removesuffix(".mustache")))


def test_the_same_calls_give_the_same_texts(upstream, tmp_path):
    docroot = tmp_path / "docs"
    build(docroot, tmp_path / "outside")
    answers = run_upstream(upstream, docroot)
    reg = agenttools.toolset("content", docroot=str(docroot), categories=CATEGORIES, collections=COLLECTIONS)
    differences, compared = [], 0
    for (tool, args), answer in zip(CASES, answers, strict=True):
        ours = reg.call(tool, args).text
        key = (tool, json.dumps(args, sort_keys=True))
        theirs = expected(answer) or answer["raised"]
        documents = answer.get("documents")
        if key in DELIBERATE:
            if ours == theirs:
                differences.append(f"{tool} {args}: listed in DELIBERATE but the answers agree now")
            continue
        compared += 1
        if documents and len(documents) > 1:  # several documents: the spec's MIME block (deviation 1)
            data = json.loads(ours)
            several = data.get("success") and data["value"].startswith("Content-Type: multipart/mixed;")
            if not several or parts(data["value"]) != in_our_order(documents):
                differences.append(f"{tool} {args}:\n  upstream documents {in_our_order(documents)!r}\n  ours {ours!r}")
        elif ours != theirs:
            differences.append(f"{tool} {args}:\n  upstream {theirs!r}\n  ours     {ours!r}")
    assert not differences, "\n".join(differences)
    assert compared + len(DELIBERATE) == len(CASES)


NO_MATCH = "Present this error to the user so they can correct the pattern. Do NOT attempt corrective action."
FACTS = [
    (_case("get_category_content", category="guides", pattern="crlf.md"), "line one\nline two\nlone\ncr\n"),
    (_case("get_category_content", category="guides", pattern="a\\b.md"), "backslash\n"),
    (_case("get_content", category_or_collection="dup", pattern="intro.md"), "# Intro\n"),
    (_case("get_category_content", category="guides", pattern="[^a]*.md"),
     ["guides/a\\b.md", "guides/ab.md", "guides/apple.md", "guides/intro.md"]),
    (_case("get_category_content", category="guides", pattern="[!abt]*.md"),
     ["guides/crlf.md", "guides/intro.md", "guides/sub/deep.md"]),
    (_case("get_collection_content", collection="dup", pattern="intro.md"),
     ["guides/intro.md", "intro_only/intro.md"]),
    (_case("get_category_content", category="guides", pattern="{intro,tutorial}.md"),
     ("No files matched pattern '{intro,tutorial}.md' in category 'guides'", "no_matches", NO_MATCH)),
    (_case("get_category_content", category="empty"), ("No files found in category 'empty'", "no_matches", NO_MATCH)),
    (_case("get_collection_content", collection="all", pattern="*.zig"),
     ("No matching content found in collection 'all'", "no_matches", NO_MATCH)),
    (_case("get_content", category_or_collection="all", pattern="*.zig"),
     ("No matching content found for 'all'", "no_matches", NO_MATCH)),
    (_case("get_content", category_or_collection="badfiles"),
     ("Failed to read one or more files in content 'badfiles': 'badfiles/sub/two.md': 'utf-8' codec can't decode "
      "byte 0xfe in position 0: invalid start byte", "io_error",
      "Present this error to the user. The file may have been deleted, moved, or has permission issues.")),
]
"""Answers of mcp-guide 1.0.0b1 through the driver (a run of the test above), in our envelope: one document's text,
several documents' locations, or a failure (error, error_type, instruction)."""


@pytest.mark.parametrize(("case", "fact"), FACTS, ids=[f"{t}:{a}" for (t, a), _ in FACTS])
def test_upstream_facts(tmp_path, case, fact):
    docroot = tmp_path / "docs"
    build(docroot, tmp_path / "outside")
    reg = agenttools.toolset("content", docroot=str(docroot), categories=CATEGORIES, collections=COLLECTIONS)
    data = json.loads(reg.call(case[0], json.loads(case[1])).text)
    if isinstance(fact, str):
        assert data == {"success": True, "value": fact}
    elif isinstance(fact, list):
        assert [f"{c}/{p}" for c, p, _ in parts(data["value"])] == fact
    else:
        assert data == dict(zip(("error", "error_type", "instruction"), fact, strict=True)) | {"success": False}
