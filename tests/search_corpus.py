"""A small, deterministic source tree for the search tests: what ripgrep and the Python backend must agree on.

``build(dest)`` writes a git repository of about 600 files: three projects with nested ``.gitignore`` files
(names, ``*.ext``, anchored, negated and directory lines), an ignored ``build/`` tree, CRLF files, form feeds and
tabs, a minified one-line file, latin-1, UTF-16 and BOM files, binaries (PNG, ELF and zip headers) and symlinks
(one inside the tree, one to a directory inside it, one leading out of it). The same call always writes the same
bytes. Everything lives in the repository, so the tests run from a fresh clone.
"""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

__all__ = ["build"]

_VOCABULARY = ["alpha", "beta", "gamma", "value", "result", "index", "count", "buffer", "error", "parse", "token", "stream", "handle", "config", "path", "node", "tree", "item", "key", "data", "offset", "length", "return", "import", "yield", "class", "def", "if", "else", "for", "while", "try", "except", "with", "lambda", "None", "print", "raise", "pass", "break", "continue", "self", "other"]
_CALLS = ("PyErr_SetString(", "malloc(", "free(", "memcpy(", "strlen(")
_SUFFIXES = (".py", ".py", ".py", ".c", ".h", ".md", ".txt", ".js", ".json")
_RULES = {
    "alpha": "build/\n*.o\n__pycache__/\n*.pyc\n/dist\n!keep.o\n",
    "beta": "*.log\n/generated/\ntmp-*\n# a comment\n\\#hash\ndocs/_build/\n",
    "gamma": "*.patch\n!wanted.patch\n/vendor/\n**/fixtures/big/\n*.bak\n",
}
_NESTED_RULES = ("*.tmp\n", "local/\n", "*.bak\n!keep.bak\n")


def _line(rng: random.Random, suffix: str) -> str:
    words = [rng.choice(_VOCABULARY) for _ in range(rng.randint(1, 10))]
    if rng.random() < 0.03:
        words.insert(rng.randrange(len(words) + 1), rng.choice(_CALLS))
    indent = "\t" if suffix == ".txt" and rng.random() < 0.1 else "  " * rng.randint(0, 4)
    if suffix == ".py" and rng.random() < 0.06:
        return f"{indent}def {rng.choice(_VOCABULARY)}_case_test(self):"
    if suffix == ".md" and rng.random() < 0.2:
        return ""
    return indent + " ".join(words) + (";" if suffix in (".c", ".h") else "")


def _source(rng: random.Random, suffix: str, count: int) -> str:
    lines = [_line(rng, suffix) for _ in range(count)]
    if rng.random() < 0.05:
        lines.insert(rng.randrange(len(lines) + 1), "\f")
    return "\n".join(lines) + "\n"


def _project(rng: random.Random, base: Path, files: int) -> None:
    base.mkdir()
    (base / ".gitignore").write_text(_RULES[base.name])
    folders = [base]
    for number in range(12):
        folder = rng.choice(folders) / f"{rng.choice(_VOCABULARY)}{number}"
        folder.mkdir()
        folders.append(folder)
        if number % 4 == 3:
            (folder / ".gitignore").write_text(_NESTED_RULES[number % len(_NESTED_RULES)])
    for number in range(files):
        suffix = rng.choice(_SUFFIXES)
        path = rng.choice(folders) / f"{rng.choice(_VOCABULARY)}_{number}{suffix}"
        text = _source(rng, suffix, rng.randint(5, 120))
        path.write_bytes(text.replace("\n", "\r\n").encode() if number % 37 == 0 else text.encode())
    for number, suffix in enumerate((".log", ".tmp", ".patch", ".bak", ".o", ".pyc") * 3):
        (rng.choice(folders) / f"scrap_{number}{suffix}").write_text(_source(rng, ".txt", 8))
    (base / "keep.o").write_text("keep this object\n")
    (base / "README.md").write_text(f"# {base.name}\n\nkeep reading\n")
    for number in range(60):
        folder = base / "build" / f"part{number % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"generated_{number}.c").write_text(_source(rng, ".c", 10))


def _odd_files(rng: random.Random, odd: Path) -> None:
    odd.mkdir()
    (odd / "minified.js").write_text(";".join(f"var a{n}={n}" for n in range(60_000)) + "\n")
    (odd / "latin1.txt").write_bytes("caf\xe9 cr\xe8me br\xfbl\xe9e\n".encode("latin-1") * 10)
    (odd / "utf16.txt").write_bytes("hello utf-16 world\n".encode("utf-16") * 3)
    (odd / "bom.txt").write_bytes(b"\xef\xbb\xbfwith bom\n")
    (odd / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n" + rng.randbytes(2048))
    (odd / "program.bin").write_bytes(b"\x7fELF" + rng.randbytes(8192))
    (odd / "archive.zip").write_bytes(b"PK\x03\x04" + rng.randbytes(2048))
    (odd / "BM_text.txt").write_text("BM starts this text file\n")
    os.symlink("../alpha/.gitignore", odd / "link_inside.py")
    os.symlink("/etc", odd / "link_outside")
    os.symlink("../beta", odd / "link_dir")


def build(dest: Path, *, files_per_project: int = 150) -> Path:
    """Write the tree into ``dest`` (created), commit it with git, and return ``dest``."""
    rng = random.Random(15_2026)  # noqa: S311 - a fixed seed: the same bytes on every run
    dest.mkdir(parents=True, exist_ok=True)
    for name in _RULES:
        _project(rng, dest / name, files_per_project)
    _odd_files(rng, dest / "odd")
    env = {**os.environ, "GIT_AUTHOR_NAME": "tests", "GIT_AUTHOR_EMAIL": "tests@localhost",
           "GIT_COMMITTER_NAME": "tests", "GIT_COMMITTER_EMAIL": "tests@localhost",
           "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "corpus"]):
        subprocess.run(["git", "-C", str(dest), *command], check=True, env=env, capture_output=True)
    return dest
