"""Build the benchmark corpus: a synthetic source tree, or real git repositories at pinned commits.

    python bench/make_corpus.py /tmp/corpus [--scale 1.0] [--seed 7]
    python bench/make_corpus.py /tmp/corpus --from-git https://github.com/numpy/numpy@<commit> /src/git@<commit>

Synthetic mode writes about 10,000 files per unit of ``--scale`` into a git repository: three projects of Python,
C, headers, JavaScript, JSON and Markdown with realistic lines (``self``, ``while`` everywhere, the rare literal
``PyErr_SetString`` in a few files), nested ``.gitignore`` files the size real projects have (hundreds of wildcard
lines: ``*.pyc``, ``*.so``, ``/build-*/``, ``**/node_modules/``, negations, anchored paths) with ignored build
trees that match them, binaries, symlinks inside the tree, and ``big/big10mb.txt`` (10 MB of numbered lines) for
line-range reads. The same arguments always write the same bytes.

``--from-git`` instead clones each repository (a URL or a local path, ``@COMMIT`` to pin one) into DEST/<name>,
so the figures can be measured on real trees; DEST then holds several repositories side by side.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
from pathlib import Path

_WORDS = ("self", "value", "result", "index", "count", "buffer", "error", "parse", "token", "stream", "handle",
          "config", "path", "node", "tree", "item", "key", "data", "offset", "length", "name", "state", "cache")
_PY_LINES = ("    def {w}(self, {v}):", "        while {v} < self.{w}:", "        {v} = self.{w}({v})",
             "        return {v}", "    # {w} the {v} before use", "        if {v} is None:", "            raise "
             "ValueError('{w}')", "import {w}", "from {w} import {v}", "class {W}:", "        self.{w} = {v}")
_C_LINES = ("static int {w}_{v}(struct {w} *self) {{", "    while ({v} < self->{w}) {{", "    {v} = {w}({v});",
            "    return {v};", "}}", "/* {w} the {v} */", "#include \"{w}.h\"", "    if (!{v}) {{",
            "        PyErr_SetString(PyExc_ValueError, \"{w}\");")
_JS_LINES = ("function {w}({v}) {{", "  while ({v} < this.{w}) {{", "  const {v} = {w}(this);", "  return {v};",
             "}}", "// {w} {v}", "export default {w};")
# What a real .gitignore holds: wildcard suffixes, build directories, anchored paths, negations, deep globs.
_IGNORE_LINES = ("*.pyc", "*.pyo", "*.so", "*.o", "*.a", "*.dylib", "*.egg-info/", "__pycache__/", "/build/",
                 "/build-*/", "/dist/", "**/node_modules/", "*.log", "*.tmp", "*.swp", "*~", ".DS_Store",
                 "/.tox/", "/.venv*/", "*.cover", ".coverage*", "/htmlcov/", "*.mo", "*.pot", "/docs/_build/",
                 "**/generated/*.c", "!**/generated/keep.c", "*.orig", "*.rej", "/site/", "**/.cache/",
                 "*.[oa]", "lib*.so.*", "/scratch-*", "*.bak", "!important.bak", "/instance/", "*.sqlite3",
                 "**/fixtures/large/", "core.*", "/out*/", "*.class", "*.jar", "target/", "*.wasm")


def _line(rng: random.Random, templates: tuple[str, ...]) -> str:
    word, value = rng.choice(_WORDS), rng.choice(_WORDS)
    return rng.choice(templates).format(w=word, v=value, W=word.capitalize())


def _source(rng: random.Random, templates: tuple[str, ...], lines: int, rare: str | None) -> str:
    body = [_line(rng, templates) for _ in range(lines)]
    if rare is not None:
        body.insert(rng.randrange(len(body) + 1), rare)
    return "\n".join(body) + "\n"


def _ignore_file(rng: random.Random, size: int) -> str:
    lines = ["# generated ignore rules"]
    while len(lines) < size:
        line = rng.choice(_IGNORE_LINES)
        if rng.random() < 0.3:  # project-specific names and paths, as real files have
            line = rng.choice(("/{w}_{v}/", "*.{w}", "{w}-*.json", "/src/{w}/{v}.c", "!{w}.keep")).format(
                w=rng.choice(_WORDS), v=rng.choice(_WORDS))
        lines.append(line)
    return "\n".join(lines) + "\n"


def synthetic(dest: Path, scale: float, seed: int) -> tuple[int, int]:
    """Write the synthetic tree and commit it; return (files, bytes) written."""
    rng = random.Random(seed)  # noqa: S311 - reproducible content, not secrets
    files = written = 0

    def write(rel: str, data: bytes) -> None:
        nonlocal files, written
        path = dest / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        files += 1
        written += len(data)

    count = max(int(10_000 * scale), 30)
    kinds = ((".py", _PY_LINES), (".py", _PY_LINES), (".c", _C_LINES), (".h", _C_LINES), (".js", _JS_LINES),
             (".md", None), (".json", None))
    write(".gitignore", _ignore_file(rng, 250).encode())
    for project in ("core", "extensions", "tools"):
        rules = _ignore_file(rng, rng.randrange(80, 200)) + "/build-*/\nnode_modules/\n__pycache__/\n"
        write(f"{project}/.gitignore", rules.encode())
    for index in range(count):
        project = ("core", "extensions", "tools")[index % 3]
        depth = rng.randrange(1, 5)
        folder = "/".join(f"{rng.choice(_WORDS)}{rng.randrange(8)}" for _ in range(depth))
        suffix, templates = rng.choice(kinds)
        rel = f"{project}/{folder}/{rng.choice(_WORDS)}_{index}{suffix}"
        if templates is not None:
            rare = "    PyErr_SetString(PyExc_RuntimeError, \"rare\");" if rng.random() < 0.002 else None
            text = _source(rng, templates, rng.randrange(20, 400), rare)
        elif suffix == ".md":
            text = "\n".join(f"{rng.choice(_WORDS).capitalize()} " + " ".join(rng.choices(_WORDS, k=12))
                             for _ in range(rng.randrange(5, 60))) + "\n"
        else:
            text = "{" + ", ".join(f'"{w}": {rng.randrange(1000)}' for w in rng.sample(_WORDS, 8)) + "}\n"
        write(rel, text.encode())
        if rng.random() < 0.02:
            write(f"{project}/{folder}/__pycache__/{rng.choice(_WORDS)}.cpython-311.pyc", os.urandom(64))
    for project in ("core", "extensions"):  # ignored build output the rules must prune
        for index in range(max(int(300 * scale), 5)):
            write(f"{project}/build-x86_64/{rng.choice(_WORDS)}/{index}.o", bytes(rng.randrange(256) for _ in
                                                                                      range(256)))
            write(f"{project}/node_modules/{rng.choice(_WORDS)}/index{index}.js",
                  _source(rng, _JS_LINES, 30, None).encode())
    for index in range(20):
        write(f"assets/image{index}.png", b"\x89PNG\r\n\x1a\n" + bytes(rng.randrange(256) for _ in range(2048)))
    big = "".join(f"line {n}: {' '.join(rng.choices(_WORDS, k=8))}\n" for n in range(200_000))
    while len(big) < 10 << 20:
        big += big[: (10 << 20) - len(big)]
    write("big/big10mb.txt", big.encode())
    write("README.md", b"# corpus\n\nA synthetic tree for the agenttools benchmark.\n")
    (dest / "core" / "tools-link").symlink_to("../tools", target_is_directory=True)  # links inside the tree
    (dest / "readme-link.md").symlink_to("README.md")
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q"], cwd=dest, check=True)
    subprocess.run([*git, "add", "-A"], cwd=dest, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "corpus"], cwd=dest, check=True)
    return files, written


def from_git(dest: Path, sources: list[str]) -> tuple[int, int]:
    """Clone each ``URL_OR_PATH[@COMMIT]`` into DEST/<name>; return (files, bytes) in the work trees."""
    for source in sources:
        location, _, commit = source.rpartition("@")
        if not location or not re.fullmatch(r"[0-9a-fA-F]{7,40}", commit):
            location, commit = source, ""  # no pin (an @ of user@host belongs to the URL)
        name = Path(location.rstrip("/")).name.removesuffix(".git")
        target = dest / name
        subprocess.run(["git", "clone", "-q", location, str(target)], check=True)
        if commit:
            subprocess.run(["git", "-c", "advice.detachedHead=false", "checkout", "-q", commit], cwd=target,
                           check=True)
    files = written = 0
    for top, dirs, names in os.walk(dest):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in names:
            path = os.path.join(top, name)
            if os.path.isfile(path) and not os.path.islink(path):
                files += 1
                written += os.path.getsize(path)
    return files, written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dest", type=Path, help="the directory to create (must not exist or be empty)")
    parser.add_argument("--scale", type=float, default=1.0, help="synthetic size: 1.0 is about 10,000 files")
    parser.add_argument("--seed", type=int, default=7, help="synthetic content seed")
    parser.add_argument("--from-git", nargs="+", metavar="REPO[@COMMIT]", help="clone real repositories instead")
    args = parser.parse_args()
    if args.dest.exists() and any(args.dest.iterdir()):
        sys.exit(f"{args.dest} exists and is not empty")
    args.dest.mkdir(parents=True, exist_ok=True)
    files, written = from_git(args.dest, args.from_git) if args.from_git else synthetic(args.dest, args.scale,
                                                                                           args.seed)
    print(f"{args.dest}: {files} files, {written / (1 << 20):.1f} MiB")


if __name__ == "__main__":
    main()
