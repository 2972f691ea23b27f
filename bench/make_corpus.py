"""Build the benchmark corpus: real repositories at pinned commits laid out as one monorepo, or a synthetic tree.

    python bench/make_corpus.py DEST --preset monorepo [--mirror-dir DIR] [--copies N]
    python bench/make_corpus.py DEST --from-git URL_OR_PATH[@COMMIT] [...] [--mirror-dir DIR] [--copies N]
    python bench/make_corpus.py DEST [--scale N] [--seed S]

Real mode checks each repository out at its commit into DEST/<name> (without its ``.git``; ``--preset monorepo`` is
numpy, sympy, git and scipy, pinned; ``--mirror-dir`` takes them from local mirrors instead of GitHub), writes
``big/big10mb.txt`` (``bench/run.py`` reads line ranges from it), copies the whole tree into ``copy1/`` ...
``copy<N-1>/`` for ``--copies N``, and makes DEST one git repository with everything committed, so that each
repository's ``.gitignore`` files apply to its subdirectory as in a monorepo.

Synthetic mode (the default) writes a monorepo of about 10,000 committed files per unit of ``--scale``: a Python
package tree, a C extension (sources and headers), JavaScript packages, Markdown docs and JSON data, with realistic
line lengths and vocabulary (``self`` and ``while`` everywhere, the literal ``PyErr_SetString`` in a handful of C
files). Its ``.gitignore`` files look like real projects': a root file of 240-280 lines and subproject files of
100-200 lines of wildcard rules (``*.py[cod]``, ``*.so``, ``/build-*/``, ``**/node_modules/``, negations, anchored
paths), a few small ones deeper down, and ignored build trees that match them (``node_modules``, ``build-*``,
``__pycache__``, a virtualenv, ...). There are big files (``big/big10mb.txt``, 10 MiB of log lines; a minified
bundle; a large JSON fixture), binaries, and symlinks to files and directories inside the tree.

Both modes commit with fixed names and dates, so the same arguments give the same bytes and the same commit.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

BIG_FILE = "big/big10mb.txt"
BIG_SIZE = 10 * 1024 * 1024
FILES_PER_SCALE = 10_000

# --- vocabulary --------------------------------------------------------------------------------------------------

def _split(text: str) -> tuple[str, ...]:
    return tuple(text.split())


# Identifier words. None of them is a directory name the ignore files below ignore (build, dist, lib, out, env, ...).
WORDS = _split(
    "buffer parser token index value result config handler stream request response session cache node tree item "
    "entry offset length count state error message context options payload record channel worker queue event "
    "module object target source path name key data size limit timeout retry client server table column row "
    "schema field frame block chunk reader writer lexer scope symbol kind slot pool graph edge vertex matrix "
    "vector point shape layer model header footer cursor window page range span label tag group owner policy "
    "token_type encoder decoder codec digest signature manifest bundle widget layout render style theme plugin "
    "registry loader resolver walker matcher pattern filter mapper reducer counter timer clock lease lock mutex "
    "signal socket address port host route endpoint payload batch shard replica snapshot journal ledger account"
)
PROSE = _split(
    "the a an of to and is in that for it with as on be this by are or when if each every returns given value file "
    "line list new first last next before after until while only not all any from into out its their which so "
    "then than more most less can may must should will would could been being has have had was were does do did "
    "used uses using called calls call read write reads writes keep keeps kept stop stops start starts end ends "
    "empty full open close closed opened size order sorted once twice again still already never always often "
    "here there where how why what who whose other same different number string bytes text path name key item "
    "caller callee result error state data table column row record field buffer stream request response cache"
)
CAPS = ("Note", "Warning", "Example", "Usage", "Overview", "Details", "Design", "Limits", "Errors", "History")
PY_STDLIB = ("import os", "import re", "import sys", "import json", "import time", "import heapq",
             "import itertools", "import functools", "import threading", "from collections import defaultdict",
             "from collections import OrderedDict, deque", "from dataclasses import dataclass, field",
             "from pathlib import Path", "from typing import Any, Iterator, Mapping",
             "from collections.abc import Callable, Iterable, Sequence", "import contextlib")
PY_TYPES = ("int", "str", "bytes", "float", "bool", "Path", "list[str]", "dict[str, int]", "Any", "Sequence[int]")
PY_ERRORS = ("ValueError", "KeyError", "TypeError", "RuntimeError", "LookupError", "OSError", "IndexError")
C_TYPES = ("int", "size_t", "ssize_t", "uint32_t", "uint64_t", "int64_t", "char *", "const char *", "void *",
           "double", "unsigned char *", "PyObject *", "Py_ssize_t")
C_HEADERS = ("<stdio.h>", "<stdlib.h>", "<string.h>", "<stdint.h>", "<stddef.h>", "<errno.h>", "<assert.h>",
             "<limits.h>", "<Python.h>", "<pthread.h>", "<unistd.h>")
PY_EXCEPTIONS = ("PyExc_ValueError", "PyExc_TypeError", "PyExc_RuntimeError", "PyExc_OverflowError",
                 "PyExc_MemoryError", "PyExc_KeyError")
JS_IMPORTS = ("import fs from 'node:fs';", "import path from 'node:path';",
              "import { EventEmitter } from 'node:events';", "import assert from 'node:assert';",
              "import { setTimeout as sleep } from 'node:timers/promises';")
LEVELS = ("INFO", "INFO", "INFO", "DEBUG", "DEBUG", "WARNING", "ERROR")

# Directory names for sources: none matches an ignore rule.
AREAS = ("core", "io", "net", "http", "parsing", "lexing", "codecs", "storage", "indexing", "query", "planner",
         "executor", "runtime", "scheduler", "sync", "auth", "crypto", "compress", "formats", "rendering", "ui",
         "widgets", "layouts", "graphs", "metrics", "tracing", "settings", "cli", "service", "clients", "protocol",
         "caching", "events", "plugins", "registry", "loaders", "walkers", "matchers", "filters", "util", "helpers",
         "models", "schemas", "views", "handlers", "adapters", "backends", "drivers", "streams", "queues")

# --- .gitignore material: what GitHub's templates and real projects carry --------------------------------------

IGNORE_PYTHON = """\
# Byte-compiled / optimized / DLL files
__pycache__/
*.py[cod]
*$py.class
# C extensions
*.so
# Distribution / packaging
.Python
/build/
develop-eggs/
/dist/
downloads/
eggs/
.eggs/
lib64/
parts/
sdist/
wheels/
share/python-wheels/
*.egg-info/
.installed.cfg
*.egg
MANIFEST
# PyInstaller
*.manifest
*.spec
# Installer logs
pip-log.txt
pip-delete-this-directory.txt
# Unit test / coverage reports
htmlcov/
.tox/
.nox/
.coverage
.coverage.*
.cache
nosetests.xml
coverage.xml
*.cover
*.py,cover
.hypothesis/
.pytest_cache/
# Translations
*.mo
*.pot
# Sphinx documentation
docs/_build/
# Jupyter Notebook
.ipynb_checkpoints
# Environments
.env
.venv
venv/
ENV/
env.bak/
venv.bak/
# mypy, ruff, pyre, pytype
.mypy_cache/
.dmypy.json
dmypy.json
.ruff_cache/
.pyre/
.pytype/
# Cython debug symbols
cython_debug/
"""
IGNORE_C = """\
# Prerequisites
*.d
# Object files
*.o
*.ko
*.obj
*.elf
# Linker output
*.ilk
*.map
*.exp
# Precompiled Headers
*.gch
*.pch
# Libraries
*.lib
*.a
*.la
*.lo
# Shared objects (inc. Windows DLLs)
*.dll
*.so
*.so.*
*.dylib
# Executables
*.exe
*.out
*.app
*.i*86
*.x86_64
*.hex
# Debug files
*.dSYM/
*.su
*.idb
*.pdb
# CMake
CMakeLists.txt.user
CMakeCache.txt
CMakeFiles/
CMakeScripts/
Testing/
cmake_install.cmake
install_manifest.txt
compile_commands.json
CTestTestfile.cmake
_deps/
/build-*/
"""
IGNORE_NODE = """\
# Logs
*.log
npm-debug.log*
yarn-debug.log*
yarn-error.log*
lerna-debug.log*
.pnpm-debug.log*
# Runtime data
pids
*.pid
*.seed
*.pid.lock
# Coverage directory used by tools like istanbul
coverage
*.lcov
.nyc_output
# Dependency directories
**/node_modules/
jspm_packages/
web_modules/
# TypeScript cache
*.tsbuildinfo
# Optional caches
.npm
.eslintcache
.stylelintcache
.rpt2_cache/
.rts2_cache_cjs/
.rts2_cache_es/
.node_repl_history
*.tgz
.yarn-integrity
# dotenv environment variable files
.env.local
.env.*.local
# Build output
.parcel-cache
.next
.nuxt
.vuepress/dist
.temp
.docusaurus
.serverless/
.fusebox/
.dynamodb/
.tern-port
.vscode-test
.yarn/cache
.yarn/unplugged
.yarn/build-state.yml
.yarn/install-state.gz
.pnp.*
"""
IGNORE_EDITORS = """\
# Editors and operating systems
.DS_Store
.AppleDouble
.LSOverride
Thumbs.db
ehthumbs.db
Desktop.ini
*.swp
*.swo
*.sw[a-p]
*~
\\#*\\#
.#*
.idea/
*.iml
.vscode/*
!.vscode/settings.json
!.vscode/extensions.json
*.sublime-workspace
*.code-workspace
.history/
*.orig
*.rej
*.bak
*.tmp
"""
# Never dropped from a section: the ignored trees written below rely on them.
IGNORE_KEPT = frozenset({"__pycache__/", "*.py[cod]", "*.so", "/build/", "*.egg-info/", ".mypy_cache/", "docs/_build/",
                         "*.log", "**/node_modules/", "/build-*/", ".venv", "*.o", "*.d"})
# Project-specific rules, filled in per directory; none of them matches a committed file.
IGNORE_LOCAL = ("/{a}/{w}_generated/", "/{a}/{w}.local.json", "{w}-*.tar.gz", "/scratch-{w}/", "**/{w}/snapshots/",
                "/{a}/fixtures/large/", "!/{a}/fixtures/large/README.md", "/{a}/{w}/*.dump", "{w}_*.sqlite3",
                "/out-{w}/", "**/.{w}-cache/", "/{a}/**/*.{w}.bak", "!**/{w}.keep", "/{a}/{w}/tmp-*/",
                "*.{w}.lock", "/reports/{w}-*.html", "**/{a}/**/{w}.prof")


class Gen:
    """Deterministic text in the shapes real source files have."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.choice = rng.choice
        self.randint = rng.randint
        self.random = rng.random

    def word(self) -> str:
        return self.choice(WORDS)

    def ident(self) -> str:
        return "_".join(self.choice(WORDS) for _ in range(self.randint(1, 2)))

    def camel(self) -> str:
        return "".join(self.choice(WORDS).title().replace("_", "") for _ in range(self.randint(1, 3)))

    def js_ident(self) -> str:
        name = self.camel()
        return name[0].lower() + name[1:]

    def distinct(self, make: Callable[[], str], count: int, taken: set[str] | None = None) -> list[str]:
        """``count`` results of ``make()`` different from each other and from ``taken`` (which they join)."""
        taken = set() if taken is None else taken
        found = []
        while len(found) < count:
            name = make()
            if name not in taken:
                taken.add(name)
                found.append(name)
        return found

    def sentence(self, low: int = 5, high: int = 14) -> str:
        words = [self.choice(PROSE) for _ in range(self.randint(low, high))]
        words[0] = words[0].capitalize()
        return " ".join(words) + "."

    def prose(self, width: int, sentences: int) -> list[str]:
        """Sentences wrapped at ``width`` columns."""
        words = " ".join(self.sentence() for _ in range(sentences)).split()
        lines, current = [], ""
        for word in words:
            if current and len(current) + 1 + len(word) > width:
                lines.append(current)
                current = word
            else:
                current = f"{current} {word}" if current else word
        if current:
            lines.append(current)
        return lines

    def lines(self) -> int:
        """A file length: most files are short, a few are long."""
        return min(int(self.rng.lognormvariate(4.4, 0.8)) + 8, 3000)

    # --- Python ---------------------------------------------------------------------------------------------------

    def python(self, target: int) -> str:
        out = [f'"""{self.sentence(4, 9)}', ""]
        out += self.prose(self.randint(72, 100), self.randint(1, 3))
        out += ['"""', "", "from __future__ import annotations", ""]
        out += sorted({"import logging", *self.rng.sample(PY_STDLIB, self.randint(1, 5))})
        if self.random() < 0.6:
            out += ["", f"from .{self.ident()} import {self.camel()}, {self.ident()}"]
        out += ["", "logger = logging.getLogger(__name__)"]
        for _ in range(self.randint(0, 3)):
            out.append(f"{self.word().upper()}_{self.word().upper()} = {self.randint(1, 65536)}")
        while len(out) < target:
            out += ["", ""]
            out += self.py_class() if self.random() < 0.55 else self.py_function("")
        return "\n".join(out) + "\n"

    def py_class(self) -> list[str]:
        name, attrs = self.camel(), self.distinct(self.ident, self.randint(2, 5))
        out = [f"class {name}({self.choice(('object', 'Exception', 'Mapping[str, Any]', 'Base' + name))}):",
               f'    """{self.sentence(4, 10)}', ""]
        out += ["    " + line for line in self.prose(self.randint(70, 100), self.randint(1, 2))]
        out += ['    """', "", f"    def __init__(self, {', '.join(f'{a}: {self.choice(PY_TYPES)}' for a in attrs)}"
                                 ") -> None:"]
        out += [f"        self.{a} = {a}" for a in attrs]
        out.append(f"        self._{self.ident()}: list[{self.choice(PY_TYPES)}] = []")
        for _ in range(self.randint(1, 5)):
            out.append("")
            out += self.py_function("    ", attrs)
        return out

    def py_function(self, indent: str, attrs: list[str] | None = None) -> list[str]:
        args = self.distinct(self.ident, self.randint(0, 3), {"self"})
        method = attrs is not None
        params = ", ".join((["self"] if method else []) + [f"{a}: {self.choice(PY_TYPES)}" for a in args])
        out = [f"{indent}def {self.choice(('', '_'))}{self.ident()}({params}) -> {self.choice(PY_TYPES)}:"]
        if self.random() < 0.7:
            out.append(f'{indent}    """{self.sentence(4, 12)}"""')
        names = args + [self.ident() for _ in range(2)]
        for _ in range(self.randint(3, 14)):
            out += self.py_statement(indent + "    ", names, attrs or [], depth=0)
        out.append(f"{indent}    return {self.py_expr(names, attrs or [])}")
        return out

    def py_expr(self, names: list[str], attrs: list[str]) -> str:
        name = self.choice(names)
        attr = self.choice(attrs) if attrs else self.word()
        return self.choice((
            name, f"self.{attr}" if attrs else name, f"{name}.{self.word()}({self.choice(names)})",
            f"len({name}) + {self.randint(1, 9)}", f"[{self.word()} for {self.word()} in {name}]",
            f"self._{attr}({name}, {self.choice(names)})" if attrs else f"{self.word()}({name})",
            f"{name} or {self.word().upper()}", f"{{{self.word()!r}: {name}}}", "None", "True",
        ))

    def py_block(self, indent: str, names: list[str], attrs: list[str], depth: int, count: int) -> list[str]:
        """``count`` statements, the last one code (a body of only comments and blank lines is no body)."""
        out = [line for _ in range(count) for line in self.py_statement(indent, names, attrs, depth)]
        if not out or not out[-1].strip() or out[-1].lstrip().startswith("#"):
            out.append(f"{indent}{self.choice(names)} = {self.py_expr(names, attrs)}")
        return out

    def py_statement(self, indent: str, names: list[str], attrs: list[str], depth: int) -> list[str]:
        roll = self.random()
        name, expr = self.choice(names), self.py_expr(names, attrs)
        if depth < 2 and roll < 0.12:
            return [f"{indent}while {name} < {self.py_expr(names, attrs)}:",
                    *self.py_block(indent + "    ", names, attrs, depth + 1, self.randint(1, 4))]
        if depth < 2 and roll < 0.26:
            out = [f"{indent}if {name} is {self.choice(('None', 'not None'))}:",
                   *self.py_block(indent + "    ", names, attrs, depth + 1, 1)]
            if self.random() < 0.3:
                out += [f"{indent}else:", *self.py_block(indent + "    ", names, attrs, depth + 1, 1)]
            return out
        if depth < 2 and roll < 0.34:
            item = self.word()
            return [f"{indent}for {item} in {expr}:", f"{indent}    {name}.append({item})"]
        if roll < 0.42:
            return [f"{indent}# {' '.join(self.choice(PROSE) for _ in range(self.randint(4, 14)))}"]
        if roll < 0.47:
            return [f'{indent}raise {self.choice(PY_ERRORS)}(f"{self.choice(PROSE)} {self.choice(PROSE)} '
                    f'{{{name}!r}}")']
        if roll < 0.52:
            return [f"{indent}logger.debug(\"{self.choice(PROSE)} %s {self.choice(PROSE)} %d\", {name}, "
                    f"len({self.choice(names)}))"]
        if roll < 0.57 and depth < 2:
            return [f"{indent}try:", f"{indent}    {name} = {expr}",
                    f"{indent}except ({self.choice(PY_ERRORS)}, {self.choice(PY_ERRORS)}) as exc:",
                    f"{indent}    raise {self.choice(PY_ERRORS)}({name}) from exc"]
        if roll < 0.65 and attrs:
            return [f"{indent}self.{self.choice(attrs)} = {expr}"]
        if roll < 0.70:
            return [""]
        return [f"{indent}{name} = {expr}"]

    # --- C --------------------------------------------------------------------------------------------------------

    def c_source(self, target: int, header: str, rare: int) -> str:
        prefix = self.word()
        out = ["/*", *(f" * {line}" for line in self.prose(self.randint(70, 90), self.randint(1, 4))), " */", ""]
        out += [f"#include {h}" for h in sorted(set(self.rng.sample(C_HEADERS, self.randint(2, 5))))]
        out += [f'#include "{header}"', ""]
        for _ in range(self.randint(0, 3)):
            out.append(f"#define {prefix.upper()}_{self.word().upper()} {self.randint(1, 4096)}")
        while len(out) < target or rare > 0:
            out.append("")
            out += self.c_function(prefix, python_api=rare > 0)
            rare -= 1
        return "\n".join(out) + "\n"

    def c_function(self, prefix: str, python_api: bool) -> list[str]:
        args = [self.ident() for _ in range(self.randint(1, 3))]
        params = ", ".join(["PyObject *self" if python_api else f"struct {prefix} *self"]
                           + [f"{self.choice(C_TYPES)} {a}" for a in args])
        ret = "PyObject *" if python_api else self.choice(("int ", "static int ", "size_t ", "static void ", "int "))
        out = [f"{ret}{prefix}_{self.ident()}({params})", "{"]
        if self.random() < 0.5:
            out.insert(0, f"/* {self.sentence(4, 12)} */")
        local = self.ident()
        out.append(f"    {self.choice(C_TYPES)} {local} = {self.choice(('0', 'NULL', args[0], '-1'))};")
        if python_api:
            out += [f"    if (!{args[0]}) {{",
                    f'        PyErr_SetString({self.choice(PY_EXCEPTIONS)}, "{self.word()} {self.choice(PROSE)} '
                    f'{self.choice(PROSE)}");', "        return NULL;", "    }"]
        for _ in range(self.randint(3, 12)):
            out += self.c_statement("    ", [local, *args], prefix, depth=0)
        result = f'Py_BuildValue("n", {local})' if python_api else local
        return [*out, f"    return {result};", "}"]

    def c_statement(self, indent: str, names: list[str], prefix: str, depth: int) -> list[str]:
        roll = self.random()
        name, other = self.choice(names), self.choice(names)
        if depth < 2 and roll < 0.15:
            out = [f"{indent}while ({name} < self->{self.word()}) {{"]
            for _ in range(self.randint(1, 3)):
                out += self.c_statement(indent + "    ", names, prefix, depth + 1)
            return [*out, f"{indent}}}"]
        if depth < 2 and roll < 0.3:
            out = [f"{indent}if ({name} == {self.choice(('NULL', '0', other))}) {{"]
            out += self.c_statement(indent + "    ", names, prefix, depth + 1)
            return [*out, f"{indent}}}"]
        if roll < 0.38:
            return [f"{indent}/* {' '.join(self.choice(PROSE) for _ in range(self.randint(3, 12)))} */"]
        if roll < 0.44:
            return [f"{indent}// {' '.join(self.choice(PROSE) for _ in range(self.randint(3, 10)))}"]
        if roll < 0.52:
            return [f"{indent}memcpy(self->{self.word()} + {name}, {other}, sizeof(*self->{self.word()}));"]
        if roll < 0.58:
            return [""]
        return [f"{indent}{name} = {prefix}_{self.word()}(self, {other}{self.choice(('', ', 0', ', NULL'))});"]

    def c_header(self, guard: str) -> str:
        prefix = self.word()
        out = ["/*", f" * {self.sentence(4, 10)}", " */", f"#ifndef {guard}", f"#define {guard}", ""]
        out += [f"#include {h}" for h in sorted(set(self.rng.sample(C_HEADERS[:6], self.randint(1, 3))))]
        out.append("")
        for _ in range(self.randint(1, 3)):
            fields = [f"    {self.choice(C_TYPES)} {self.ident()};" for _ in range(self.randint(2, 8))]
            out += [f"typedef struct {prefix}_{self.word()} {{", *fields, f"}} {prefix}_{self.word()}_t;", ""]
        for _ in range(self.randint(3, 20)):
            if self.random() < 0.3:
                out.append(f"/* {self.sentence(3, 10)} */")
            args = ", ".join(f"{self.choice(C_TYPES)} {self.ident()}" for _ in range(self.randint(0, 3)))
            out.append(f"{self.choice(C_TYPES)} {prefix}_{self.ident()}(struct {prefix} *self"
                       f"{', ' + args if args else ''});")
        out += ["", f"#endif /* {guard} */"]
        return "\n".join(out) + "\n"

    # --- JavaScript -----------------------------------------------------------------------------------------------

    def javascript(self, target: int) -> str:
        out = ["'use strict';", "", "/**", *(f" * {line}" for line in self.prose(self.randint(70, 90), 2)), " */",
               *sorted(set(self.rng.sample(JS_IMPORTS, self.randint(1, 3))))]
        top = {"fs", "path", "EventEmitter", "assert", "sleep"}  # module scope: every name declared once
        out += [f"import {{ {self.distinct(self.js_ident, 1, top)[0]} }} from './{self.js_ident()}.js';", ""]
        while len(out) < target:
            out.append("")
            out += self.js_class(top) if self.random() < 0.45 else self.js_function("", top=top)
        out += ["", f"export default {self.js_ident()};"]
        return "\n".join(out) + "\n"

    def js_class(self, top: set[str]) -> list[str]:
        fields = self.distinct(self.js_ident, self.randint(1, 4))
        out = [f"export class {self.distinct(self.camel, 1, top)[0]} {{", f"  constructor({', '.join(fields)}) {{"]
        out += [f"    this.{f} = {f};" for f in fields]
        out.append("  }")
        for _ in range(self.randint(1, 4)):
            out.append("")
            out += self.js_function("  ", method=True, fields=fields)
        return [*out, "}"]

    def js_function(self, indent: str, method: bool = False, fields: list[str] | None = None,
                    top: set[str] | None = None) -> list[str]:
        name = self.js_ident() if top is None else self.distinct(self.js_ident, 1, top)[0]
        taken: set[str] = set()
        args = self.distinct(self.js_ident, self.randint(0, 3), taken)
        head = f"{name}({', '.join(args)})"
        out = [f"{indent}/** {self.sentence(3, 10)} */"] if self.random() < 0.5 else []
        out.append(f"{indent}{'' if method else 'export ' + self.choice(('', 'async ')) + 'function '}{head} {{")
        names = [*args, *self.distinct(self.js_ident, 1, taken)]
        this = [f"this.{f}" for f in fields or []] or names
        out.append(f"{indent}  let {names[-1]} = {self.choice(this)};")
        for _ in range(self.randint(2, 10)):
            roll, name = self.random(), self.choice(names)
            if roll < 0.15:
                out += [f"{indent}  while ({name} < {self.choice(this)}.length) {{",
                        f"{indent}    {name} += {self.randint(1, 8)};", f"{indent}  }}"]
            elif roll < 0.3:
                out += [f"{indent}  if (!{name}) {{",
                        f"{indent}    throw new Error(`{self.choice(PROSE)} {self.choice(PROSE)}: ${{{name}}}`);",
                        f"{indent}  }}"]
            elif roll < 0.4:
                out.append(f"{indent}  // {' '.join(self.choice(PROSE) for _ in range(self.randint(3, 12)))}")
            elif roll < 0.5:
                const = self.distinct(self.js_ident, 1, taken)[0]
                out.append(f"{indent}  const {const} = {name}.map(({self.word()}) => {self.word()}.{self.js_ident()});")
            else:
                out.append(f"{indent}  {name} = {self.choice(this)}.{self.js_ident()}({self.choice(names)});")
        return [*out, f"{indent}  return {self.choice(names)};", f"{indent}}}"]

    # --- Markdown and JSON ----------------------------------------------------------------------------------------

    def markdown(self, target: int) -> str:
        out = [f"# {self.sentence(2, 5)[:-1]}", ""]
        while len(out) < target:
            roll = self.random()
            if roll < 0.15:
                out += [f"## {self.choice(CAPS)}: {self.sentence(2, 5)[:-1].lower()}", ""]
            elif roll < 0.3:
                out += [f"- {self.sentence(3, 14)}" for _ in range(self.randint(2, 6))] + [""]
            elif roll < 0.4:
                name = self.camel()
                out += ["```python", f"{self.word()} = {name}({self.word()}={self.randint(1, 99)})",
                        f"while {self.word()}.{self.word()}:", f"    self.{self.word()}({self.word()})", "```", ""]
            elif roll < 0.45:
                out += ["| name | default | meaning |", "|---|---|---|"]
                out += [f"| `{self.ident()}` | `{self.randint(0, 512)}` | {self.sentence(3, 9)} |"
                        for _ in range(self.randint(2, 6))] + [""]
            else:
                out += [*self.prose(self.randint(72, 100), self.randint(2, 6)), ""]
        return "\n".join(out).rstrip("\n") + "\n"

    def json_value(self, depth: int) -> object:
        roll = self.random()
        if depth < 3 and roll < 0.25:
            return {self.ident(): self.json_value(depth + 1) for _ in range(self.randint(1, 6))}
        if depth < 3 and roll < 0.35:
            return [self.json_value(depth + 1) for _ in range(self.randint(1, 5))]
        if roll < 0.55:
            return self.randint(-1000, 100000)
        if roll < 0.65:
            return self.random() < 0.5
        if roll < 0.7:
            return None
        return " ".join(self.choice(PROSE) for _ in range(self.randint(1, 8)))

    def json_doc(self, target: int) -> str:
        records: list[object] = []
        doc = {"name": self.ident(), "version": f"{self.randint(0, 4)}.{self.randint(0, 30)}.{self.randint(0, 9)}",
               "records": records}
        lines = 6
        while lines < target:
            record = {"id": self.randint(1, 10**6), **{self.ident(): self.json_value(1)
                                                         for _ in range(self.randint(2, 7))}}
            records.append(record)
            lines += json.dumps(record, indent=2).count("\n") + 1
        return json.dumps(doc, indent=2) + "\n"

    # --- ignore files ---------------------------------------------------------------------------------------------

    def gitignore(self, sections: list[str], area: str, target: int, extra: list[str]) -> str:
        """Template sections (shuffled, some lines dropped), ``extra`` rules, padded to ``target`` lines."""
        out = [f"# {self.sentence(3, 8)}", ""]
        for section in self.rng.sample(sections, len(sections)):
            out += [line for line in section.splitlines()
                    if line.startswith("#") or line in IGNORE_KEPT or self.random() < 0.9] + [""]
        out += ["# this project", *extra]
        while len(out) < target:
            out.append(self.choice(IGNORE_LOCAL).format(a=area, w=self.word()))
        return "\n".join(out) + "\n"


class Corpus:
    """Writes files under ``dest`` and keeps count."""

    def __init__(self, dest: Path) -> None:
        self.dest = dest
        self.files = 0
        self.links = 0
        self.used: set[str] = set()

    def write(self, rel: str, data: str | bytes) -> str:
        """Write ``data`` at ``rel`` (made unique if taken); return the path used."""
        base, dot, ext = rel.rpartition(".") if "." in rel.rsplit("/", 1)[-1] else (rel, "", "")
        n = 1
        while rel in self.used:
            n += 1
            rel = f"{base}_{n}{dot}{ext}"
        self.used.add(rel)
        path = self.dest / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        raw = data.encode() if isinstance(data, str) else data
        path.write_bytes(raw)
        self.files += 1
        return rel

    def link(self, rel: str, target: str) -> None:
        path = self.dest / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(target)
        self.links += 1


def big_text(seed: int, size: int = BIG_SIZE) -> bytes:
    """``size`` bytes (and the rest of the last line) of numbered log lines of varied length; the same in both modes."""
    gen = Gen(random.Random(f"agenttools-bench-big-{seed}"))  # noqa: S311 - reproducible content, not secrets
    lines, total, n = [], 0, 0
    while total < size:
        n += 1
        message = " ".join(gen.choice(PROSE) for _ in range(gen.randint(3, 22)))
        if gen.random() < 0.1:  # a log quoting the code that failed, as real logs do
            message += f" in {gen.camel()}.{gen.ident()}: self.{gen.word()} while {gen.word()} < {gen.randint(1, 99)}"
        line = (f"{n:>7} 2024-{1 + n // 400000 % 12:02d}-{1 + n // 20000 % 28:02d}T{n // 3600 % 24:02d}:"
                f"{n // 60 % 60:02d}:{n % 60:02d} {gen.choice(LEVELS):<7} {gen.choice(AREAS)}.{gen.word()}: "
                f"{message}\n")
        lines.append(line)
        total += len(line)
    return "".join(lines).encode()


def synthetic(dest: Path, scale: float, seed: int) -> int:
    """Write the synthetic monorepo into ``dest`` and commit it; return how many paths should be committed."""
    rng = random.Random(f"agenttools-bench-{seed}")  # noqa: S311 - reproducible content, not secrets
    gen, corpus = Gen(rng), Corpus(dest)
    budget = max(int(FILES_PER_SCALE * scale), 60)
    # Fixed files, then the bulk split among the kinds of source.
    packages = gen.distinct(lambda: f"{rng.choice(AREAS)}{rng.choice(('kit', 'lib', 'core', 'tools', 'py'))}", 3)
    js_packages = gen.distinct(lambda: f"{gen.word().replace('_', '-')}-{rng.choice(('ui', 'client', 'sdk', 'cli'))}",
                               max(2, int(8 * scale)))
    corpus.write("README.md", gen.markdown(60))
    corpus.write("LICENSE", "MIT License\n\n" + "\n".join(gen.prose(78, 8)) + "\n")
    corpus.write("pyproject.toml", f'[project]\nname = "{packages[0]}"\nversion = "1.0.0"\n'
                                   'requires-python = ">=3.11"\n\n[tool.ruff]\nline-length = 100\n')
    corpus.write("package.json", json.dumps({"name": "monorepo", "private": True,
                                             "workspaces": [f"web/packages/{p}" for p in js_packages]}, indent=2))
    counts = {"py": 0.36, "c": 0.14, "h": 0.09, "js": 0.2, "md": 0.11, "json": 0.1}
    quota = {kind: max(int(budget * share), 4) for kind, share in counts.items()}

    # Python: packages of nested subpackages, tests alongside.
    py_dirs: list[str] = []
    for index in range(quota["py"]):
        package = packages[index % len(packages)]
        if not py_dirs or rng.random() < 0.12:
            depth = rng.randint(0, 3)
            py_dirs.append("/".join([f"python/{package}", *rng.sample(AREAS, depth)]))
        folder = rng.choice(py_dirs[-8:])
        is_test = rng.random() < 0.2
        name = f"test_{gen.ident()}.py" if is_test else f"{gen.ident()}.py"
        corpus.write(f"{folder}/tests/{name}" if is_test else f"{folder}/{name}", gen.python(gen.lines()))
    for folder in sorted(set(py_dirs)):
        corpus.write(f"{folder}/__init__.py", f'"""{gen.sentence(3, 8)}"""\n')
    for _ in range(max(quota["py"] // 100, 8)):  # benchmarks at the top, as numpy's and pandas' asv_bench/
        corpus.write(f"asv_bench/benchmarks/bench_{gen.ident()}.py", gen.python(gen.lines()))

    # C: sources and headers; a handful of functions use the Python C API (the only PyErr_SetString calls).
    rare_files = set(rng.sample(range(quota["c"]), min(quota["c"], max(3, round(12 * scale)))))
    headers = []
    for index in range(quota["h"]):
        area = rng.choice(AREAS)
        rel = corpus.write(f"native/include/{packages[0]}/{area}/{gen.ident()}.h",
                           gen.c_header(f"{packages[0].upper()}_{area.upper()}_{index}_H"))
        headers.append(rel.removeprefix("native/include/"))
    for index in range(quota["c"]):
        area = rng.choice(AREAS)
        corpus.write(f"native/src/{area}/{area}_{gen.ident()}.c",
                     gen.c_source(gen.lines(), rng.choice(headers), rng.randint(1, 3) if index in rare_files else 0))

    # JavaScript: workspace packages with nested source folders.
    for index in range(quota["js"]):
        package = js_packages[index % len(js_packages)]
        depth = rng.randint(0, 3)
        folder = "/".join([f"web/packages/{package}/src", *rng.sample(AREAS, depth)])
        corpus.write(f"{folder}/{gen.js_ident()}.js", gen.javascript(gen.lines()))

    # Markdown: docs in two versions, and READMEs.
    for _ in range(quota["md"]):
        version = rng.choice(("v1", "v2", "v2"))
        folder = "/".join([f"docs/{version}", *rng.sample(AREAS, rng.randint(0, 2))])
        corpus.write(f"{folder}/{gen.ident().replace('_', '-')}.md", gen.markdown(gen.lines() // 2 + 10))
    for package in js_packages:
        corpus.write(f"web/packages/{package}/README.md", gen.markdown(40))
        corpus.write(f"web/packages/{package}/package.json", json.dumps(
            {"name": f"@mono/{package}", "version": "1.0.0", "type": "module", "main": "src/index.js",
             "dependencies": {gen.word().replace("_", "-"): f"^{rng.randint(1, 9)}.0.0" for _ in range(4)}},
            indent=2) + "\n")

    # JSON: fixtures and settings.
    for _ in range(quota["json"]):
        folder = rng.choice(("data/fixtures", "data/schemas", "config", f"python/{packages[0]}/tests/data"))
        corpus.write(f"{folder}/{rng.choice(AREAS)}/{gen.ident().replace('_', '-')}.json",
                     gen.json_doc(gen.lines() // 2 + 5))

    # Big files and binaries (committed).
    corpus.write(BIG_FILE, big_text(seed))
    corpus.write("web/vendor/bundle.min.js", "\n".join(";".join(  # minified: lines of about 50,000 characters
        f"function {gen.js_ident()}(a,b){{while(a<b.length){{a+={rng.randint(1, 9)}}}return this.{gen.js_ident()}"
        f"(a)}}" for _ in range(500)) for _ in range(80)) + "\n")
    corpus.write("data/fixtures/records-large.json", gen.json_doc(60_000))
    for index in range(max(int(40 * scale), 4)):
        corpus.write(f"assets/img/{gen.ident()}-{index}.png",
                     b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + rng.randbytes(rng.randint(2_000, 60_000)))
    for name in ("inter-regular", "inter-bold", "mono"):
        corpus.write(f"assets/fonts/{name}.woff2", b"wOF2\x00\x01\x00\x00" + rng.randbytes(40_000))
    corpus.write("data/model.bin", rng.randbytes(1 << 20))
    corpus.write("native/vendor/prebuilt/libzstd.so", b"\x7fELF\x02\x01\x01\x00" + rng.randbytes(200_000))

    # Symlinks inside the tree, to files and directories.
    corpus.write(f"python/{packages[0]}/_compat.py", gen.python(40))
    corpus.link(f"python/{packages[0]}/compat.py", "_compat.py")
    corpus.link("include", "native/include")
    corpus.link("docs/latest", "v2")
    corpus.link("README.rst", "README.md")
    corpus.link(f"web/packages/{js_packages[1]}/src/shared", f"../../{js_packages[0]}/src")
    corpus.link(f"native/src/{packages[0]}.h", f"../include/{headers[0]}")

    # The ignore files: large ones at the root and in each subproject, small ones deeper.
    corpus.write(".gitignore", gen.gitignore(
        [IGNORE_PYTHON, IGNORE_C, IGNORE_NODE, IGNORE_EDITORS], "data", rng.randint(240, 280),
        ["/build-*/", "/scratch/", "!/native/vendor/prebuilt/*.so", "/reports/", "**/.cache/", ".venv/"]))
    corpus.write("python/.gitignore", gen.gitignore(
        [IGNORE_PYTHON, IGNORE_EDITORS], packages[0], rng.randint(110, 170),
        [f"/{p}/_version.py" for p in packages] + ["!**/tests/data/*.json", "*.prof"]))
    corpus.write("native/.gitignore", gen.gitignore(
        [IGNORE_C, IGNORE_EDITORS], "src", rng.randint(100, 150), ["/build/", "!vendor/prebuilt/*.so", "*.gcda",
                                                                   "*.gcno", "/src/**/autogen_*.c"]))
    corpus.write("web/.gitignore", gen.gitignore(
        [IGNORE_NODE, IGNORE_EDITORS], "packages", rng.randint(150, 200),
        ["node_modules/", "dist", "/packages/*/lib/", "!/packages/*/lib/README.md", "*.min.js.map"]))
    corpus.write("docs/.gitignore", "_build/\n*.inv\n/v1/**/*.html\n")
    for package in js_packages:
        corpus.write(f"web/packages/{package}/.gitignore", "\n".join(
            ["dist/", "coverage/", "*.log", f"/{gen.word()}-*.tgz", "!fixtures/*.log"]) + "\n")
    corpus.write(f"python/{packages[0]}/tests/.gitignore", "*.actual\n__snapshots__/\n!golden.actual\n")
    tracked_before_ignored = corpus.files

    # Ignored trees the rules must prune: build output, dependencies, caches, a virtualenv.
    ignored = max(int(3000 * scale), 60)
    for _ in range(ignored // 3):
        module = rng.choice([js_packages[0], "lodash", "react-dom", "acorn", "esbuild", "typescript", "yargs"])
        nested = f"/node_modules/{gen.word()}" if rng.random() < 0.3 else ""
        corpus.write(f"web/node_modules/{module}{nested}/{rng.choice(('lib', 'dist', 'src'))}/{gen.js_ident()}.js",
                     gen.javascript(rng.randint(10, 80)))
    for _ in range(ignored // 6):
        corpus.write(f"build-linux-x86_64/{rng.choice(AREAS)}/{gen.ident()}.o", rng.randbytes(rng.randint(500, 8000)))
        corpus.write(f"build-linux-x86_64/{rng.choice(AREAS)}/{gen.ident()}.d", f"{gen.ident()}.o: {gen.ident()}.c\n")
    for _ in range(ignored // 6):
        corpus.write(f".venv/lib/python3.11/site-packages/{rng.choice(AREAS)}/{gen.ident()}.py",
                     gen.python(rng.randint(20, 120)))
    for folder in sorted(set(py_dirs))[: max(len(py_dirs) // 2, 1)]:
        for _ in range(rng.randint(1, 4)):
            corpus.write(f"{folder}/__pycache__/{gen.ident()}.cpython-311.pyc", rng.randbytes(rng.randint(400, 6000)))
    for index in range(ignored // 20):
        corpus.write(f"native/build/temp.linux-x86_64-cpython-311/{gen.ident()}.o", rng.randbytes(3000))
        corpus.write(f"web/packages/{rng.choice(js_packages)}/dist/{gen.js_ident()}.js", gen.javascript(30))
        corpus.write(f"docs/_build/html/{gen.ident()}.html", "<html><body>" + gen.sentence() + "</body></html>\n")
        corpus.write(f".mypy_cache/3.11/{gen.ident()}.meta.json", json.dumps({"mtime": index}) + "\n")
    corpus.write("build/lib.linux-x86_64-cpython-311/_speedups.cpython-311-x86_64-linux-gnu.so", rng.randbytes(90_000))
    corpus.write("native/src/core/core_debug.log", "\n".join(gen.prose(100, 40)) + "\n")
    corpus.write(f"python/{packages[0]}.egg-info/PKG-INFO", f"Metadata-Version: 2.1\nName: {packages[0]}\n")
    print(f"wrote {tracked_before_ignored:,} files to commit and {corpus.files - tracked_before_ignored:,} "
          "ignored ones; committing", file=sys.stderr, flush=True)
    commit(dest)
    return tracked_before_ignored + corpus.links


def git(*args: str, cwd: Path, isolated: bool = True) -> str:
    """Run git; ``isolated``: without the user's and the system's configuration, with fixed dates (same commit)."""
    env = dict(os.environ)
    if isolated:
        env.update(GIT_AUTHOR_DATE="2024-01-01T00:00:00Z", GIT_COMMITTER_DATE="2024-01-01T00:00:00Z",
                   GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    config = ["-c", "user.name=bench", "-c", "user.email=bench@localhost", "-c", "commit.gpgsign=false",
              "-c", "init.defaultBranch=main", "-c", "core.autocrlf=false", "-c", "advice.detachedHead=false"]
    done = subprocess.run(["git", *config, *args], cwd=cwd, env=env, check=True, stdout=subprocess.PIPE, text=True)
    return done.stdout


def commit(dest: Path, message: str = "Synthetic benchmark corpus") -> None:
    """Make ``dest`` one repository and commit everything its ignore rules keep, with fixed names and dates."""
    git("init", "-q", cwd=dest)
    git("add", "-A", cwd=dest)
    git("commit", "-q", "-m", message, cwd=dest)


# Real repositories, pinned: a Python/C monorepo's worth of numpy, sympy, git and scipy (about 12,200 files and 46
# .gitignore files together). ``--mirror-dir`` finds them in local mirrors when the machine cannot reach GitHub.
PRESETS: dict[str, tuple[str, ...]] = {
    "monorepo": (
        "https://github.com/numpy/numpy@1f90bbb55e65e7de68921bc3f1a2d94492fdf689",
        "https://github.com/sympy/sympy@e950d313a932bc6cccbc95376b3821cd2f8b5af4",
        "https://github.com/git/git@1a3e64c6c4a623626ff0687008732a8e007e2a1c",
        "https://github.com/scipy/scipy@3dbf660a919b1479cdf30d533176053b428d08d3",
    ),
}


def split_source(source: str) -> tuple[str, str | None]:
    """``URL_OR_PATH[@COMMIT]`` -> (location, commit or None); the @ of ``git@host:...`` belongs to the URL."""
    if Path(source).expanduser().exists():  # a local path with an @ in its name
        return source, None
    location, at, revision = source.rpartition("@")
    if at and location and revision and "/" not in revision and ":" not in revision:
        return location, revision
    return source, None


def _is_git_dir(path: Path) -> bool:
    """A repository: a work tree with ``.git``, or a bare git directory."""
    return (path / ".git").exists() or ((path / "HEAD").is_file() and (path / "objects").is_dir())


def in_mirror(mirror_dir: Path, location: str) -> Path | None:
    """The local copy of the repository at URL ``location`` under ``mirror_dir``, or None.

    Tried in order, for ``https://github.com/OWNER/NAME``: ``OWNER+NAME/repo``, ``OWNER+NAME``, ``OWNER/NAME``,
    ``OWNER/NAME.git``, ``NAME``, ``NAME.git`` (bare git directories or clones).
    """
    parts = location.rstrip("/").removesuffix(".git").replace(":", "/").split("/")
    name = parts[-1]
    owner = parts[-2] if len(parts) > 1 else ""
    candidates = [f"{owner}+{name}/repo", f"{owner}+{name}", f"{owner}/{name}", f"{owner}/{name}.git", name,
                  f"{name}.git"]
    for candidate in candidates:
        path = mirror_dir / candidate
        if _is_git_dir(path):
            return path
    return None


def export(dest: Path, source: str, mirror_dir: Path | None) -> tuple[str, str]:
    """Check ``source`` out at its commit into ``dest/<name>`` without its ``.git``; return (directory, commit).

    A repository is cloned (``--shared`` when local: its objects are read in place, never written) and checked out
    with ``--detach``, so the tree holds the committed files, not a clone's uncommitted edits; a local directory
    that is not a repository is copied as is. Symlinks are kept.
    """
    location, revision = split_source(source)
    name = Path(location.rstrip("/")).name.removesuffix(".git") or "repo"
    parent = Path(location.rstrip("/")).parent.name
    if name == "repo" and "+" in parent:  # a mirror laid out as OWNER+NAME/repo
        name = parent.split("+", 1)[1]
    target, n = dest / name, 1
    while target.exists():
        n += 1
        target = dest / f"{name}-{n}"
    local = Path(location).expanduser()
    if not local.exists() and mirror_dir is not None:
        found = in_mirror(mirror_dir, location)
        if found is None:
            sys.exit(f"make_corpus: {location} is not under {mirror_dir} (tried OWNER+NAME/repo, OWNER/NAME, NAME)")
        local = found
    if local.is_dir() and not _is_git_dir(local):
        if revision is not None:
            sys.exit(f"make_corpus: {location} is not a git repository, it has no commit {revision}")
        shutil.copytree(local, target, symlinks=True)
        return target.name, "(copied)"
    origin = str(local.resolve()) if local.exists() else location
    # a URL takes the user's configuration (credentials, proxies, URL rewrites); a local clone takes none
    remote = not local.exists()
    git("clone", "-q", "--no-checkout", *(() if remote else ("--shared",)), "--", origin, str(target), cwd=dest,
        isolated=not remote)
    git("-c", "core.symlinks=true", "checkout", "-q", "--detach", revision or "HEAD", cwd=target,
        isolated=not remote)
    head = git("rev-parse", "HEAD", cwd=target).strip()
    if revision is not None and len(revision) == 40 and head != revision.lower():
        sys.exit(f"make_corpus: {location} checked out {head}, not {revision}")
    # a mirror may lack the blobs of its largest files (git then says "unable to read sha1 file" and goes on)
    staged = git("ls-files", "-s", "-z", cwd=target).split("\0")
    missing = [entry.split("\t", 1)[1] for entry in staged
               if entry and not entry.startswith("160000 ")  # submodules stay empty directories
               and not os.path.lexists(target / entry.split("\t", 1)[1])]
    if missing:
        print(f"make_corpus: warning: {location} lacks {len(missing)} committed file(s): {', '.join(missing[:5])}",
              file=sys.stderr)
    shutil.rmtree(target / ".git")  # one repository for the whole tree: the monorepo's own .git is at the top
    return target.name, head


def from_git(dest: Path, sources: list[str], seed: int, mirror_dir: Path | None) -> list[tuple[str, str, str]]:
    """Lay each source out side by side in ``dest`` (see :func:`export`); return (source, directory, commit)."""
    laid_out = []
    for source in sources:
        directory, head = export(dest, source, mirror_dir)
        print(f"{source}: {directory}/ at {head}", file=sys.stderr, flush=True)
        laid_out.append((source, directory, head))
    if not (dest / BIG_FILE).exists():  # bench/run.py reads line ranges from it
        (dest / BIG_FILE).parent.mkdir(parents=True, exist_ok=True)
        (dest / BIG_FILE).write_bytes(big_text(seed))
    return laid_out


def replicate(dest: Path, copies: int) -> None:
    """Copy everything in ``dest`` (but ``.git``) into ``dest/copy1`` ... ``dest/copy<copies-1>``.

    The tree then holds ``copies`` times the files, with the same ignore structure in each copy; regular copies,
    not hard links, so the page cache holds ``copies`` times the bytes as well.
    """
    top = sorted(entry.name for entry in dest.iterdir() if entry.name != ".git")
    for index in range(1, copies):
        copy = dest / f"copy{index}"
        copy.mkdir()
        for name in top:
            source = dest / name
            if source.is_dir() and not source.is_symlink():
                shutil.copytree(source, copy / name, symlinks=True)
            else:
                shutil.copy2(source, copy / name, follow_symlinks=False)
        print(f"copied the tree into {copy.name}/", file=sys.stderr, flush=True)


def summary(dest: Path) -> tuple[int, int, int]:
    """(regular files, their bytes, symlinks) under ``dest``, ``.git`` directories left out."""
    files = size = links = 0
    for top, dirs, names in os.walk(dest):
        dirs[:] = [d for d in dirs if d != ".git"]
        for entry in (*names, *(d for d in dirs if os.path.islink(os.path.join(top, d)))):
            path = os.path.join(top, entry)
            if os.path.islink(path):
                links += 1
            elif os.path.isfile(path):
                files += 1
                size += os.path.getsize(path)
    return files, size, links


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dest", type=Path, help="directory to create (it must not exist, or be empty)")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="synthetic size: 1 is about 10,000 committed files (default 1)")
    parser.add_argument("--seed", type=int, default=1, help="synthetic content seed (default 1)")
    parser.add_argument("--from-git", nargs="+", default=[], metavar="URL_OR_PATH[@COMMIT]",
                        help="lay these repositories out (checked out at COMMIT) instead of writing a synthetic tree")
    parser.add_argument("--preset", choices=sorted(PRESETS),
                        help="pinned real repositories: monorepo = numpy, sympy, git and scipy")
    parser.add_argument("--mirror-dir", type=Path, metavar="DIR",
                        help="take repositories named by URL from local mirrors or clones under DIR")
    parser.add_argument("--copies", type=int, default=1, metavar="N",
                        help="N times the files: the tree is copied into copy1/ ... copy<N-1>/ (default 1)")
    args = parser.parse_args()
    if args.scale <= 0:
        parser.error("--scale must be positive")
    if args.copies < 1:
        parser.error("--copies must be at least 1")
    if args.dest.exists() and (not args.dest.is_dir() or any(args.dest.iterdir())):
        parser.error(f"{args.dest} exists and is not an empty directory")
    sources = [*(PRESETS[args.preset] if args.preset else ()), *args.from_git]
    real = bool(sources)
    dest = args.dest.resolve()
    dest.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    expected = 0
    laid_out: list[tuple[str, str, str]] = []
    try:
        if real:
            laid_out = from_git(dest, sources, args.seed, args.mirror_dir)
            replicate(dest, args.copies)
            commit(dest, "Benchmark corpus: " + ", ".join(f"{d} at {h}" for _, d, h in laid_out))
        else:
            if args.copies > 1:
                parser.error("--copies is for real repositories; the synthetic corpus grows with --scale")
            expected = synthetic(dest, args.scale, args.seed)
    except subprocess.CalledProcessError as exc:
        sys.exit(f"make_corpus: {' '.join(exc.cmd)} failed with exit status {exc.returncode}")
    files, size, links = summary(dest)
    tracked = git("ls-files", "-z", cwd=dest).count("\0")
    head = git("rev-parse", "--short", "HEAD", cwd=dest).strip()
    ignores = sum(1 for _, _, names in os.walk(dest) for name in names if name == ".gitignore")
    print(f"{args.dest}: {files:,} files, {size:,} bytes ({size / (1 << 20):.1f} MiB), {links} symlinks, "
          f"{ignores} .gitignore files; {tracked:,} committed (commit {head}), {files + links - tracked:,} ignored; "
          f"{time.monotonic() - started:.1f} s")
    if not real and tracked != expected:  # an ignore rule caught a source file, or missed a build file
        sys.exit(f"make_corpus: {tracked} paths committed, {expected} expected: check the .gitignore material")


if __name__ == "__main__":
    main()
