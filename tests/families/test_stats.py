"""The stats family: lines of code per language, cloc-style, bounded by file size, walking without following links."""

from __future__ import annotations

import os

from agenttools.stats import count_lines, language_of


def _tree(root):
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "a.py").write_text("# comment\nimport os\n\n\nprint(os)\n")
    (root / "pkg" / "b.py").write_text('"""doc"""\nx = 1\n')
    (root / "main.c").write_text("/* block\n   comment */\nint main() {\n  return 0; // trailing\n}\n\n")
    (root / "notes.txt").write_text("not code\n")
    (root / "blob.py").write_bytes(b"\x00\x01binary")
    (root / ".git").mkdir()
    (root / ".git" / "hook.py").write_text("x = 1\n")
    (root / "vendor").mkdir()
    (root / "vendor" / "v.py").write_text("x = 1\n")
    return root


def test_counts_per_language_most_code_first(tmp_path):
    counts = count_lines([str(_tree(tmp_path / "p"))])
    rows = {row.language: (row.files, row.blank, row.comment, row.code) for row in counts.languages}
    assert rows["Python"][0] == 3 and rows["Python"][1] == 2 and rows["Python"][2] >= 1
    assert rows["C"] == (1, 1, 2, 3)
    assert counts.languages[0].language == "Python"
    assert counts.total.files == sum(row.files for row in counts.languages)
    assert counts.ignored == 2  # notes.txt (no language) and blob.py (binary); .git/ is never entered
    assert counts.text_files == 6  # .git/hook.py is not among them


def test_excluded_dirs_oversized_files_and_symlinks(tmp_path):
    root = _tree(tmp_path / "p")
    (root / "big.py").write_text("x = 1\n" * 1000)
    os.symlink(tmp_path, root / "loop")  # a link back up: never followed
    counts = count_lines([str(root)], exclude_dirs=["vendor"], max_file_size=1000)
    python = next(row for row in counts.languages if row.language == "Python")
    assert python.files == 2  # a.py, b.py: vendor/ excluded, big.py over the limit, the link not followed
    assert counts.too_large == 1


def test_single_files_and_language_names():
    assert language_of("x/Makefile") == "make"
    assert language_of("a.PY") == "Python"
    assert language_of("README") is None
