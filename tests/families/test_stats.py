"""The stats family: lines of code per language, cloc-style, on small files written here and counted by hand.

Each line is blank, comment or code; version-control directories and ``exclude_dirs`` are not entered, ``exclude``
drops paths, files over ``max_file_size`` are skipped unread, binaries and unknown languages are ignored, symlinks
are never followed.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agenttools.stats import LanguageCount, LineCount, count_lines, language_of

# file name -> (text, language, blank, comment, code), each count worked out by hand
SAMPLES: dict[str, tuple[str, str, int, int, int]] = {
    "app.py": ('#!/usr/bin/env python\n"""Module docstring\nspanning lines.\n"""\n\nimport os  # trailing\n\n'
               "def f():\n    '''one-line doc'''\n    return os.sep\n", "Python", 2, 5, 3),
    "main.c": ("/* header\n * block\n */\n#include <stdio.h>\n\nint main(void) {  // entry\n    /* one line */\n"
               "    int x = 1; /* trailing */\n    /* closed */ return x;\n}\n", "C", 1, 4, 5),
    "util.h": ("#pragma once\n// helpers\nint add(int a, int b);\n", "C/C++ Header", 0, 1, 2),
    "app.js": ("// comment\nconst a = 1;\n\n/* block */\nexport default a;\n", "JavaScript", 1, 2, 2),
    "README.md": ("# Title\n\n<!-- hidden\nnote -->\nText.\n", "Markdown", 1, 2, 2),
    "data.json": ('{\n  "a": 1\n}\n', "JSON", 0, 0, 3),
    "tool.rb": ("# c\n=begin\ndoc\n=end\nputs 1\n", "Ruby", 0, 4, 1),
    "conf.yml": ("# c\nkey: v\n\n", "YAML", 1, 1, 1),
    "query.sql": ("-- all\nSELECT 1;\n", "SQL", 0, 1, 1),
    "Makefile": ("# build\nall:\n\techo hi\n", "make", 0, 1, 2),
}


def _write(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def _rows(counts: LineCount) -> dict[str, tuple[int, int, int, int]]:
    return {row.language: (row.files, row.blank, row.comment, row.code) for row in counts.languages}


# --- languages -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("path", "language"), [
    ("a.py", "Python"), ("pkg/a.PYI", "Python"), ("x.c", "C"), ("x.h", "C/C++ Header"), ("x.hpp", "C/C++ Header"),
    ("x.cpp", "C++"), ("x.ts", "TypeScript"), ("x.tsx", "TypeScript"), ("x.rs", "Rust"), ("x.go", "Go"),
    ("x.yml", "YAML"), ("x.sh", "Bourne Shell"), ("src/Makefile", "make"), ("GNUmakefile", "make"),
    ("Dockerfile", "Dockerfile"), ("README.markdown", "Markdown"),
])
def test_language_of_known_names(path, language):
    assert language_of(path) == language


@pytest.mark.parametrize("path", ["README", "notes.txt", "archive.tar.gz", ".bashrc", "makefile.bak", "dir.py/x"])
def test_language_of_unknown_names(path):
    assert language_of(path) is None


# --- counting ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_blank_comment_and_code_lines_of_one_file(tmp_path, name):
    text, language, blank, comment, code = SAMPLES[name]
    counts = count_lines([str(_write(tmp_path, {name: text}) / name)])
    assert counts.languages == (LanguageCount(language=language, files=1, blank=blank, comment=comment, code=code),)
    assert (counts.text_files, counts.ignored, counts.too_large) == (1, 0, 0)


def test_a_tree_is_summed_per_language_most_code_first(tmp_path):
    root = _write(tmp_path, {name: text for name, (text, *_) in SAMPLES.items()} | {"pkg/more.py": "x = 1\ny = 2\n"})
    counts = count_lines([str(root)])
    expected = {language: (1, blank, comment, code) for _, language, blank, comment, code in SAMPLES.values()}
    expected["Python"] = (2, 2, 5, 5)
    assert _rows(counts) == expected
    assert [row.language for row in counts.languages] == [
        "C", "Python", "JSON", "C/C++ Header", "JavaScript", "Markdown", "make", "Ruby", "SQL", "YAML"]
    assert counts.total == LanguageCount(language="SUM", files=11, blank=6, comment=21, code=24)
    assert (counts.text_files, counts.ignored) == (11, 0)


def test_line_endings_and_a_missing_final_newline(tmp_path):
    root = _write(tmp_path, {"crlf.py": b"x = 1\r\n\r\n# c\r\n", "open.py": "x = 1\n\ny = 2"})
    assert _rows(count_lines([str(root / "crlf.py")])) == {"Python": (1, 1, 1, 1)}
    assert _rows(count_lines([str(root / "open.py")])) == {"Python": (1, 1, 0, 2)}


def test_undecodable_bytes_are_counted_as_text(tmp_path):
    root = _write(tmp_path, {"latin.c": "/* caf\xe9 */\nint caf\xe9;\n".encode("latin-1")})
    assert _rows(count_lines([str(root)])) == {"C": (1, 0, 1, 1)}


def test_binaries_and_unknown_languages_are_seen_but_ignored(tmp_path):
    root = _write(tmp_path, {"blob.py": b"x = 1\n\x00\x01\x02", "notes.txt": "text\n", "real.py": "x = 1\n",
                             "late.py": b"x = 1\n" * 2000 + b"\x00"})  # a NUL past the first 8 KiB: text, 2001 lines
    counts = count_lines([str(root)])
    assert _rows(counts) == {"Python": (2, 0, 0, 2002)}
    assert (counts.text_files, counts.ignored, counts.too_large) == (4, 2, 0)


def test_files_over_max_file_size_are_skipped_unread(tmp_path):
    root = _write(tmp_path, {"big.py": "x = 1\n" * 100, "limit.py": "x = 1\n" * 10, "small.py": "x = 1\n",
                             "big.txt": "y\n" * 1000})
    counts = count_lines([str(root)], max_file_size=60)
    assert _rows(counts) == {"Python": (2, 0, 0, 11)}  # limit.py is exactly 60 bytes: counted
    assert (counts.text_files, counts.ignored, counts.too_large) == (4, 2, 1)  # big.txt: no language, not read
    assert count_lines([str(root)]).too_large == 0  # no limit by default


# --- what is walked ------------------------------------------------------------------------------------------------

def test_version_control_and_excluded_directories_are_not_entered(tmp_path):
    root = _write(tmp_path, {"a.py": "x = 1\n", ".git/hooks/h.py": "x\n", ".svn/s.py": "x\n", ".hg/h.py": "x\n",
                             "vendor/v.py": "x\n", "src/vendor/w.py": "x\n", "src/b.py": "x = 1\n"})
    counts = count_lines([str(root)], exclude_dirs=["vendor"])
    assert _rows(counts) == {"Python": (2, 0, 0, 2)}
    assert counts.text_files == 2  # what lies in skipped directories is not even seen


def test_exclude_drops_files_and_prunes_directories(tmp_path):
    root = _write(tmp_path, {"keep.py": "x = 1\n", "secret.py": "x\n", "private/a.py": "x\n", "pub/b.py": "x\n"})
    asked: list[str] = []

    def denied(path: str) -> bool:
        asked.append(path)
        return os.path.basename(path) in ("secret.py", "private")

    counts = count_lines([str(root), str(root / "secret.py")], exclude=denied)
    assert _rows(counts) == {"Python": (2, 0, 0, 2)}
    assert counts.text_files == 2
    assert str(root / "private" / "a.py") not in asked  # the directory was never entered


def test_symlinks_are_never_followed(tmp_path):
    root = _write(tmp_path / "tree", {"a.py": "x = 1\n"})
    _write(tmp_path / "outside", {"o.py": "x = 1\n"})
    os.symlink(tmp_path / "outside", root / "linked-dir")
    os.symlink(root / "a.py", root / "linked.py")
    os.symlink(tmp_path, root / "loop")
    os.mkfifo(root / "pipe.py")  # would block a reader forever
    counts = count_lines([str(root)])
    assert _rows(counts) == {"Python": (1, 0, 0, 1)}
    assert counts.text_files == 1


def test_files_can_be_given_directly_and_missing_paths_are_passed_by(tmp_path):
    root = _write(tmp_path, {"a.py": "x = 1\n", "b.c": "int b;\n", "notes.txt": "n\n"})
    counts = count_lines([str(root / "a.py"), str(root / "b.c"), str(root / "notes.txt"), str(root / "gone.py")])
    assert _rows(counts) == {"Python": (1, 0, 0, 1), "C": (1, 0, 0, 1)}
    assert (counts.text_files, counts.ignored) == (3, 1)
    assert count_lines([]) == LineCount(languages=(), text_files=0, ignored=0)


def test_a_file_given_twice_is_counted_once(tmp_path):
    root = _write(tmp_path, {"a.py": "x = 1\n"})
    assert _rows(count_lines([str(root), str(root / "a.py"), str(root / "a.py")])) == {"Python": (1, 0, 0, 1)}


# --- defects found by these tests, fixed ------------------------------------------------------------------------

def test_an_unclosed_block_comment_at_the_end_of_a_file(tmp_path):
    root = _write(tmp_path, {"a.c": "int a;\n/* never closed\n"})
    assert _rows(count_lines([str(root)])) == {"C": (1, 0, 1, 1)}


def test_an_empty_file_has_no_lines(tmp_path):
    root = _write(tmp_path, {"empty.py": ""})
    assert _rows(count_lines([str(root)])) == {"Python": (1, 0, 0, 0)}


def test_lua_block_comments(tmp_path):
    root = _write(tmp_path, {"a.lua": "--[[ block\ninside\n]]\nx = 1\n"})
    assert _rows(count_lines([str(root)])) == {"Lua": (1, 0, 3, 1)}


def test_text_files_counts_unique_files(tmp_path):
    root = _write(tmp_path, {"a.py": "x = 1\n"})
    assert count_lines([str(root), str(root / "a.py")]).text_files == 1


def test_exclude_applies_to_a_directory_given_directly(tmp_path):
    root = _write(tmp_path, {"private/a.py": "x = 1\n"})
    counts = count_lines([str(root / "private")], exclude=lambda path: path == str(root / "private"))
    assert counts.languages == ()


@pytest.mark.parametrize(("name", "text", "row"), [
    # A triple-quoted string opened after code: its lines are not read as code, and its closing quotes do not open
    # a new block (which turned every following code line into a comment).
    ("mid.py", 'x = """\ntext # not a comment\n"""\ny = 1\nz = 2\n', (1, 0, 2, 3)),
    # A block comment opened after code on the same line runs on to the lines below.
    ("after.c", "int x; /* starts here\n   still a comment\n*/\nint y;\n", (1, 0, 2, 2)),
    # Code, a whole block comment, then more code on one line; then a block closed and a line comment after it.
    ("inline.c", "int a; /* c */ int b;\n/* c */ // d\n/* open\nclose */ int c;\n", (1, 0, 2, 2)),
    # Blank lines inside a block comment belong to it.
    ("blank.c", "/*\n\n*/\n\nint a;\n", (1, 1, 3, 1)),
])
def test_block_comments_are_followed_across_a_line(tmp_path, name, text, row):
    root = _write(tmp_path, {name: text})
    (language,) = _rows(count_lines([str(root)]))
    assert _rows(count_lines([str(root)]))[language] == row
