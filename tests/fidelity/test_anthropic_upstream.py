"""anthropic side by side with Anthropic's reference tools: the same calls on the same tree, texts compared to the byte.

The reference is ``computer-use-demo/computer_use_demo/tools`` of anthropics/claude-quickstarts at
370e18d4a20ff5fd4bc1a6bf11d5105b2383977c (MIT), vendored unchanged in ``upstream/anthropic_tools``: its
``EditTool20250728`` and ``BashTool20250124`` run here in-process. A reference result becomes text as its sampling
loop makes it (``loop.py``'s ``_make_api_tool_result``: the error alone, else the output, after a ``<system>`` note)
and a ``ToolError`` is the failure ``ToolCollection.run`` makes of it. Each case runs on a fresh copy of the same
tree at the same path, first through the reference and then through ``reg.call``; the file bytes afterwards are
compared too, except where docs/toolsets/anthropic.md lists a deviation (tabs and line endings kept).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import importlib.util
import os
import shutil
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

import agenttools

UPSTREAM = Path(__file__).parent / "upstream" / "anthropic_tools"
PACKAGE = "agenttools_anthropic_reference"


def _reference() -> tuple[Any, Any, Any]:
    if PACKAGE not in sys.modules:
        spec = importlib.util.spec_from_file_location(PACKAGE, UPSTREAM / "__init__.py",
                                                      submodule_search_locations=[str(UPSTREAM)])
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[PACKAGE] = module
        spec.loader.exec_module(module)
    return (importlib.import_module(f"{PACKAGE}.base"), importlib.import_module(f"{PACKAGE}.edit"),
            importlib.import_module(f"{PACKAGE}.bash"))


BASE, EDIT, BASH = _reference()


def loop_text(result: Any) -> tuple[str, bool]:
    """``_make_api_tool_result`` of the reference's loop.py, as (text, is_error); a system note alone is the note."""
    def note(text: str) -> str:
        return f"<system>{result.system}</system>\n{text}" if result.system else text

    if result.error:
        return note(result.error), True
    if result.output:
        return note(result.output), False
    return result.system or "", False


def run_reference(loop: asyncio.AbstractEventLoop, tool: Any, args: dict[str, Any]) -> tuple[str, bool]:
    try:
        result = loop.run_until_complete(tool(**args))
    except BASE.ToolError as exc:  # ToolCollection.run: ToolFailure(error=e.message)
        return exc.message, True
    return loop_text(result)


BIG = "".join(f"line {i:05d} " + "x" * 40 + "\n" for i in range(600))
A_PY = ("import os\n\n\ndef f(x):\n    return x + 1\n\n\nclass C:\n    def m(self):\n        return 'm'\n\n"
        "    def n(self):\n        return 'n'\n\nvalue = f(1)\nprint(value)\n")


def make_tree(root: Path) -> None:
    if root.exists():
        shutil.rmtree(root)
    (root / "sub" / "deeper" / "deepest").mkdir(parents=True)
    (root / ".hidden").mkdir()
    (root / "a.py").write_text(A_PY)
    (root / "empty.txt").write_text("")
    (root / "one.txt").write_text("single line, no newline")
    (root / "dup.txt").write_text("foo\nbar foo\nfoo bar\nbaz\n")
    (root / "pairs.txt").write_text("a\nb\na\nb\n")
    (root / "big.txt").write_text(BIG)
    (root / "latin1.txt").write_bytes(b"caf\xe9\n")
    (root / "bom.txt").write_text("\ufeffbom\nline 2\n")
    (root / "tabs.py").write_text("def g():\n\tif True:\n\t\treturn 1\n\treturn 2\n")
    (root / "crlf.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    (root / "sub" / "inner.txt").write_text("inner\n")
    (root / "sub" / ".dot").write_text("")
    (root / "sub" / "deeper" / "x.txt").write_text("x\n")
    (root / "sub" / "deeper" / "deepest" / "z.txt").write_text("z\n")
    (root / ".hidden" / "h.txt").write_text("h\n")
    (root / "sub" / "link-to-a").symlink_to("../a.py")
    (root / "linked-sub").symlink_to("sub", target_is_directory=True)
    (root / "sub" / "deeper" / "link-up").symlink_to("..", target_is_directory=True)
    (root / "sub" / "with space.txt").write_text("spaced\n")
    (root / "loop-a").symlink_to("loop-b")
    (root / "loop-b").symlink_to("loop-a")


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.is_symlink()}


# Each case: calls (with {root} in strings), and whether the file bytes may differ (a documented deviation).
E = "str_replace_based_edit_tool"
EDITOR_CASES: dict[str, list[dict[str, Any]]] = {
    "view-file": [{"command": "view", "path": "{root}/a.py"}],
    "view-range": [{"command": "view", "path": "{root}/a.py", "view_range": [1, 3]}],
    "view-range-to-end": [{"command": "view", "path": "{root}/a.py", "view_range": [10, -1]}],
    "view-range-one-line": [{"command": "view", "path": "{root}/a.py", "view_range": [4, 4]}],
    "view-range-last-empty-line": [{"command": "view", "path": "{root}/a.py", "view_range": [17, 17]}],
    "view-range-zero": [{"command": "view", "path": "{root}/a.py", "view_range": [0, 2]}],
    "view-range-past-start": [{"command": "view", "path": "{root}/a.py", "view_range": [40, 41]}],
    "view-range-past-end": [{"command": "view", "path": "{root}/a.py", "view_range": [1, 100]}],
    "view-range-backwards": [{"command": "view", "path": "{root}/a.py", "view_range": [5, 2]}],
    "view-range-minus-two": [{"command": "view", "path": "{root}/a.py", "view_range": [5, -2]}],
    "view-range-one-item": [{"command": "view", "path": "{root}/a.py", "view_range": [1]}],
    "view-range-three-items": [{"command": "view", "path": "{root}/a.py", "view_range": [1, 2, 3]}],
    "view-range-strings": [{"command": "view", "path": "{root}/a.py", "view_range": ["1", "2"]}],
    "view-range-floats": [{"command": "view", "path": "{root}/a.py", "view_range": [1.0, 2.0]}],
    "view-range-empty-list": [{"command": "view", "path": "{root}/a.py", "view_range": []}],
    "view-empty-file": [{"command": "view", "path": "{root}/empty.txt"}],
    "view-empty-file-range": [{"command": "view", "path": "{root}/empty.txt", "view_range": [1, 1]}],
    "view-no-final-newline": [{"command": "view", "path": "{root}/one.txt"}],
    "view-big-file-clipped": [{"command": "view", "path": "{root}/big.txt"}],
    "view-big-file-range": [{"command": "view", "path": "{root}/big.txt", "view_range": [590, -1]}],
    "view-not-utf8": [{"command": "view", "path": "{root}/latin1.txt"}],
    "view-bom": [{"command": "view", "path": "{root}/bom.txt"}],
    "view-tabs": [{"command": "view", "path": "{root}/tabs.py"}],
    "view-crlf": [{"command": "view", "path": "{root}/crlf.txt"}],
    "view-crlf-range": [{"command": "view", "path": "{root}/crlf.txt", "view_range": [2, 3]}],
    "view-dir-root": [{"command": "view", "path": "{root}"}],
    "view-dir-sub": [{"command": "view", "path": "{root}/sub"}],
    "view-dir-trailing-slash": [{"command": "view", "path": "{root}/sub/"}],
    "view-dir-hidden": [{"command": "view", "path": "{root}/.hidden"}],
    "view-dir-with-range": [{"command": "view", "path": "{root}/sub", "view_range": [1, 2]}],
    "view-dir-deeper": [{"command": "view", "path": "{root}/sub/deeper"}],
    "view-dir-symlink-itself": [{"command": "view", "path": "{root}/linked-sub"}],
    "view-dir-through-symlink": [{"command": "view", "path": "{root}/linked-sub/deeper"}],
    "view-file-through-symlink": [{"command": "view", "path": "{root}/sub/link-to-a", "view_range": [1, 2]}],
    "view-file-with-space": [{"command": "view", "path": "{root}/sub/with space.txt"}],
    "replace-through-symlink": [{"command": "str_replace", "path": "{root}/sub/link-to-a", "old_str": "import os",
                                 "new_str": "import re"}],
    "create-in-symlinked-dir": [{"command": "create", "path": "{root}/linked-sub/made.txt", "file_text": "m\n"}],
    "view-missing": [{"command": "view", "path": "{root}/nope.txt"}],
    "view-relative": [{"command": "view", "path": "a.py"}],
    "view-empty-path": [{"command": "view", "path": ""}],
    "view-double-slash": [{"command": "view", "path": "{root}//a.py"}],
    "view-dotdot-inside": [{"command": "view", "path": "{root}/sub/../a.py"}],
    "view-under-a-file": [{"command": "view", "path": "{root}/one.txt/x"}],
    "unknown-command": [{"command": "undo_edit", "path": "{root}/a.py"}],
    "unknown-command-missing-path": [{"command": "undo_edit", "path": "{root}/nope.txt"}],
    "unknown-command-directory": [{"command": "delete", "path": "{root}/sub"}],
    "create": [{"command": "create", "path": "{root}/new.txt", "file_text": "hello\nworld\n"},
               {"command": "view", "path": "{root}/new.txt"}],
    "create-empty": [{"command": "create", "path": "{root}/new.txt", "file_text": ""}],
    "create-existing": [{"command": "create", "path": "{root}/a.py", "file_text": "x"}],
    "create-existing-dir": [{"command": "create", "path": "{root}/sub", "file_text": "x"}],
    "create-no-text": [{"command": "create", "path": "{root}/new.txt"}],
    "create-missing-parent": [{"command": "create", "path": "{root}/no/such/new.txt", "file_text": "x"}],
    "create-under-a-file": [{"command": "create", "path": "{root}/one.txt/x", "file_text": "x"}],
    "create-relative": [{"command": "create", "path": "new.txt", "file_text": "x"}],
    "replace": [{"command": "str_replace", "path": "{root}/a.py", "old_str": "return x + 1", "new_str": "return x + 2"}],
    "replace-top": [{"command": "str_replace", "path": "{root}/a.py", "old_str": "import os", "new_str": "import sys"}],
    "replace-bottom": [{"command": "str_replace", "path": "{root}/a.py", "old_str": "print(value)\n",
                        "new_str": "print(value)\nprint('done')\n"}],
    "replace-multiline": [{"command": "str_replace", "path": "{root}/a.py",
                           "old_str": "    def n(self):\n        return 'n'",
                           "new_str": "    def n(self):\n        # changed\n        return 'N'"}],
    "replace-delete": [{"command": "str_replace", "path": "{root}/a.py", "old_str": "value = f(1)\n"}],
    "replace-not-found": [{"command": "str_replace", "path": "{root}/a.py", "old_str": "nothing", "new_str": "x"}],
    "replace-multiple": [{"command": "str_replace", "path": "{root}/dup.txt", "old_str": "foo", "new_str": "x"}],
    "replace-multiple-multiline": [{"command": "str_replace", "path": "{root}/pairs.txt", "old_str": "a\nb",
                                    "new_str": "c"}],
    "replace-empty-old": [{"command": "str_replace", "path": "{root}/dup.txt", "old_str": "", "new_str": "x"}],
    "replace-no-old": [{"command": "str_replace", "path": "{root}/a.py", "new_str": "x"}],
    "replace-directory": [{"command": "str_replace", "path": "{root}/sub", "old_str": "a", "new_str": "b"}],
    "replace-missing-file": [{"command": "str_replace", "path": "{root}/nope.txt", "old_str": "a", "new_str": "b"}],
    "replace-not-utf8": [{"command": "str_replace", "path": "{root}/latin1.txt", "old_str": "caf", "new_str": "x"}],
    "replace-old-with-tab": [{"command": "str_replace", "path": "{root}/a.py", "old_str": "\treturn x + 1",
                              "new_str": "\treturn 0"}],
    "replace-twice": [{"command": "str_replace", "path": "{root}/a.py", "old_str": "f(1)", "new_str": "f(2)"},
                      {"command": "str_replace", "path": "{root}/a.py", "old_str": "f(2)", "new_str": "f(3)"},
                      {"command": "view", "path": "{root}/a.py", "view_range": [14, 16]}],
    "replace-big-file": [{"command": "str_replace", "path": "{root}/big.txt", "old_str": "line 00300 ",
                          "new_str": "LINE 00300 "}],
    "replace-bom": [{"command": "str_replace", "path": "{root}/bom.txt", "old_str": "line 2", "new_str": "two"}],
    "insert-top": [{"command": "insert", "path": "{root}/a.py", "insert_line": 0, "insert_text": "#!/usr/bin/env python"}],
    "insert-middle": [{"command": "insert", "path": "{root}/a.py", "insert_line": 8,
                       "insert_text": "    '''Doc.'''\n"}],
    "insert-end": [{"command": "insert", "path": "{root}/a.py", "insert_line": 17, "insert_text": "tail"}],
    "insert-after-last-text-line": [{"command": "insert", "path": "{root}/a.py", "insert_line": 16,
                                     "insert_text": "more()"}],
    "insert-negative": [{"command": "insert", "path": "{root}/a.py", "insert_line": -1, "insert_text": "x"}],
    "insert-past-end": [{"command": "insert", "path": "{root}/a.py", "insert_line": 18, "insert_text": "x"}],
    "insert-no-text": [{"command": "insert", "path": "{root}/a.py", "insert_line": 1}],
    "insert-new-str-only": [{"command": "insert", "path": "{root}/a.py", "insert_line": 1, "new_str": "x"}],
    "insert-no-line": [{"command": "insert", "path": "{root}/a.py", "insert_text": "x"}],
    "insert-empty-file": [{"command": "insert", "path": "{root}/empty.txt", "insert_line": 0, "insert_text": "a\nb"}],
    "insert-no-final-newline": [{"command": "insert", "path": "{root}/one.txt", "insert_line": 1,
                                 "insert_text": "second"}],
    "insert-then-view": [{"command": "insert", "path": "{root}/dup.txt", "insert_line": 2, "insert_text": "new\nlines"},
                         {"command": "view", "path": "{root}/dup.txt"}],
    "insert-directory": [{"command": "insert", "path": "{root}/sub", "insert_line": 0, "insert_text": "x"}],
    # files whose bytes we keep where the reference rewrites them (tabs, CRLF): texts equal, bytes deviate
    "tabs-replace-as-viewed": [{"command": "str_replace", "path": "{root}/tabs.py", "old_str": "        return 1",
                                "new_str": "        return 10"},
                               {"command": "view", "path": "{root}/tabs.py"}],
    "tabs-replace-with-tab": [{"command": "str_replace", "path": "{root}/tabs.py", "old_str": "\treturn 2",
                               "new_str": "\treturn 20"}],
    "tabs-insert": [{"command": "insert", "path": "{root}/tabs.py", "insert_line": 1, "insert_text": "\t# note"}],
    "tabs-view-after-edit": [{"command": "str_replace", "path": "{root}/tabs.py", "old_str": "def g():",
                              "new_str": "def h():"},
                             {"command": "view", "path": "{root}/tabs.py"}],
    "crlf-replace": [{"command": "str_replace", "path": "{root}/crlf.txt", "old_str": "two\nthree",
                      "new_str": "2\n3"},
                     {"command": "view", "path": "{root}/crlf.txt"}],
    "crlf-insert": [{"command": "insert", "path": "{root}/crlf.txt", "insert_line": 1, "insert_text": "one and a half"},
                    {"command": "view", "path": "{root}/crlf.txt"}],
    "new-str-with-tab": [{"command": "str_replace", "path": "{root}/one.txt", "old_str": "single",
                          "new_str": "\tsingle"}],
    "view-symlink-loop": [{"command": "view", "path": "{root}/loop-a"}],
    "create-symlink-loop": [{"command": "create", "path": "{root}/loop-a", "file_text": "x"}],
    "replace-symlink-loop": [{"command": "str_replace", "path": "{root}/loop-a", "old_str": "x", "new_str": "y"}],
    # a lone surrogate (JSON allows "\udcff") cannot be written: the reference leaves an empty file, we write nothing
    "create-surrogate": [{"command": "create", "path": "{root}/new.txt", "file_text": "x\udcff"}],
    "replace-surrogate": [{"command": "str_replace", "path": "{root}/a.py", "old_str": "import os",
                           "new_str": "import \ud800"}],
    "insert-surrogate": [{"command": "insert", "path": "{root}/a.py", "insert_line": 1, "insert_text": "\udcff"}],
}
KEEPS_BYTES = {"tabs-replace-as-viewed", "tabs-replace-with-tab", "tabs-insert", "tabs-view-after-edit",
               "crlf-replace", "crlf-insert", "new-str-with-tab", "replace-old-with-tab"}
"""Cases where the reference rewrites the file's tabs or line endings and we keep them (the texts still match)."""
WRITES_NOTHING = {"create-surrogate", "replace-surrogate", "insert-surrogate"}
"""Cases where the reference truncates or creates the file and then fails to encode the text: we leave it as it was."""


def _fill(value: Any, root: Path) -> Any:
    if isinstance(value, str):
        return value.replace("{root}", str(root))
    if isinstance(value, dict):
        return {k: _fill(v, root) for k, v in value.items()}
    return value


@pytest.fixture
def loop():
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


@pytest.mark.parametrize("case", sorted(EDITOR_CASES))
def test_editor_matches_the_reference(tmp_path, loop, monkeypatch, case):
    root = tmp_path / "proj"
    calls = [_fill(call, root) for call in EDITOR_CASES[case]]
    make_tree(root)
    monkeypatch.chdir(tmp_path)
    reference = EDIT.EditTool20250728()
    expected = [run_reference(loop, reference, call) for call in calls]
    expected_bytes = tree_bytes(root)
    make_tree(root)
    before = tree_bytes(root)
    with agenttools.toolset("anthropic", root=str(root)) as reg:
        got = [(out.text, out.is_error) for out in (reg.call(E, call) for call in calls)]
    assert got == expected
    if case in WRITES_NOTHING:
        assert tree_bytes(root) == before != expected_bytes
    elif case not in KEEPS_BYTES:
        assert tree_bytes(root) == expected_bytes


def test_the_cases_are_many():
    assert len(EDITOR_CASES) + len(BASH_CASES) >= 100


def test_an_empty_old_str_in_an_empty_file_is_replaced_where_the_reference_crashes(tmp_path, loop, monkeypatch):
    root = tmp_path / "proj"
    make_tree(root)
    monkeypatch.chdir(tmp_path)
    call = {"command": "str_replace", "path": f"{root}/empty.txt", "old_str": "", "new_str": "now\nfull"}
    with pytest.raises(ValueError, match="empty separator"):  # after writing the file
        loop.run_until_complete(EDIT.EditTool20250728()(**call))
    assert (root / "empty.txt").read_text() == "now\nfull"
    make_tree(root)
    with agenttools.toolset("anthropic", root=str(root)) as reg:
        out = reg.call(E, call)
    assert out.text == (f"The file {root}/empty.txt has been edited. Here's the result of running `cat -n` on a "
                        f"snippet of {root}/empty.txt:\n     1\tnow\n     2\tfull\nReview the changes and make sure "
                        "they are as expected. Edit the file again if necessary.")
    assert (root / "empty.txt").read_text() == "now\nfull"


def test_deviating_cases_keep_tabs_and_line_endings(tmp_path, loop, monkeypatch):
    root = tmp_path / "proj"
    make_tree(root)
    with agenttools.toolset("anthropic", root=str(root)) as reg:
        for case in ("tabs-replace-as-viewed", "crlf-replace"):
            for call in EDITOR_CASES[case]:
                assert not reg.call(E, _fill(call, root)).is_error
    # the old_str matched the second tab's columns and what follows: only that span is replaced, as the model wrote it
    assert (root / "tabs.py").read_bytes() == b"def g():\n\tif True:\n\t        return 10\n\treturn 2\n"
    assert (root / "crlf.txt").read_bytes() == b"one\r\n2\r\n3\r\n"
    make_tree(root)
    monkeypatch.chdir(tmp_path)
    reference = EDIT.EditTool20250728()
    for case in ("tabs-replace-as-viewed", "crlf-replace"):
        for call in EDITOR_CASES[case]:
            run_reference(loop, reference, _fill(call, root))
    # what the reference leaves: tabs expanded in the whole file, CRLF turned into LF
    assert (root / "tabs.py").read_bytes() == b"def g():\n        if True:\n                return 10\n        return 2\n"
    assert (root / "crlf.txt").read_bytes() == b"one\n2\n3\n"


# --- bash ---------------------------------------------------------------------------------------------------------

B = "bash"
BASH_CASES: dict[str, list[dict[str, Any]]] = {
    "echo": [{"command": "echo hi"}],
    "no-final-newline": [{"command": "printf 'no newline'"}],
    "two-lines": [{"command": "echo one; echo two"}],
    "blank-lines-kept": [{"command": "printf 'a\\n\\n\\n'"}],
    "stderr-only": [{"command": "echo oops >&2"}],
    "stdout-and-stderr": [{"command": "echo out; echo err >&2"}],
    "exit-status-is-not-shown": [{"command": "false"}],
    "empty-output": [{"command": "true"}],
    "command-not-found": [{"command": "no-such-command-xyz"}],
    "line-numbers-count-commands": [{"command": "echo a"}, {"command": "echo b"}, {"command": "no-such-command-xyz"}],
    "line-numbers-count-lines": [{"command": "echo a\necho b\necho c"}, {"command": "no-such-command-xyz"}],
    "error-inside-multiline": [{"command": "echo a\nno-such-command-xyz\necho c"}],
    "cd-persists": [{"command": "mkdir -p d && cd d"}, {"command": "pwd"}],
    "variable-persists": [{"command": "X=42"}, {"command": "echo $X"}],
    "export-persists": [{"command": "export Y=7"}, {"command": "sh -c 'echo $Y'"}],
    "function-persists": [{"command": "greet() { echo hello $1; }"}, {"command": "greet you"}],
    "function-error-line": [{"command": "f() {\n  no-such-command-xyz\n}"}, {"command": "f"}],
    "restart": [{"restart": True}],
    "restart-resets-state": [{"command": "Z=1; cd /"}, {"restart": True}, {"command": "echo ${Z:-unset}; pwd"}],
    "restart-with-command": [{"command": "echo ignored", "restart": True}],
    "no-command": [{}],
    "no-command-after-use": [{"command": "echo hi"}, {}],
    "unicode": [{"command": "echo 'héllo wörld ✓'"}],
    "quotes-and-backslashes": [{"command": "echo \"a'b\" 'c\"d' \\\\ \\$HOME"}],
    "many-lines": [{"command": "seq 1 2000"}],
    "pipeline": [{"command": "printf 'b\\na\\nc\\n' | sort | head -2"}],
    "subshell-exit": [{"command": "(exit 3); echo after"}],
    "cat-a-file": [{"command": "printf 'x\\ny\\n' > f.txt; cat -n f.txt"}],
    "ls": [{"command": "touch b a c; ls"}],
    "stderr-then-success": [{"command": "echo err >&2"}, {"command": "echo ok"}],
    "tab-in-output": [{"command": "printf 'a\\tb\\n'"}],
    "trailing-spaces": [{"command": "echo 'x   '"}],
    "case-statement": [{"command": "case a in a) echo A;; esac"}],
    "for-loop": [{"command": "for i in 1 2 3; do echo $i; done"}],
    "while-multiline": [{"command": "i=0\nwhile [ $i -lt 3 ]; do\n  i=$((i+1))\n  echo $i\ndone"}],
    "set-option-error": [{"command": "set -o no-such-option"}],
    "return-at-top-level": [{"command": "return 1"}],
    "cd-missing": [{"command": "cd /no/such/dir"}],
    "nul-byte-dropped": [{"command": "echo a\x00b; echo c"}],
    "shell-options-persist": [{"command": "shopt -s extglob; set -o noglob"}, {"command": "echo * $-"}],
    "trap-persists": [{"command": "trap 'echo trapped' USR1"}, {"command": "kill -USR1 $$; echo after"}],
}


def _reap(loop: asyncio.AbstractEventLoop, session: Any) -> None:
    """Kill a reference session's process group (sh and the bash it started) and wait for it inside the loop."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(session._process.pid, signal.SIGKILL)
    loop.run_until_complete(session._process.wait())


@pytest.fixture
def reference_bash(loop, monkeypatch):
    tools = []

    def make() -> Any:
        tool = BASH.BashTool20250124()
        tools.append(tool)
        return tool

    yield make
    for tool in tools:  # stop every session the reference started, and reap it inside the loop
        for session in [tool._session, *getattr(tool, "_old", [])]:
            if session is not None and session._started:
                _reap(loop, session)


def _run_reference_bash(loop: asyncio.AbstractEventLoop, tool: Any, calls: list[dict[str, Any]]) -> list[Any]:
    old: list[Any] = []
    tool._old = old
    results = []
    for call in calls:
        if call.get("restart") and tool._session is not None:
            old.append(tool._session)
        results.append(run_reference(loop, tool, call))
        for session in old:  # the reference only terminates the `sh -c /bin/bash` of a session it restarts: reap it
            _reap(loop, session)
    return results


@pytest.mark.parametrize("case", sorted(BASH_CASES))
def test_bash_matches_the_reference(tmp_path, loop, monkeypatch, reference_bash, case):
    root = tmp_path / "proj"
    calls = BASH_CASES[case]
    root.mkdir()
    monkeypatch.chdir(root)  # the reference's bash starts in the current directory; ours in the root
    expected = _run_reference_bash(loop, reference_bash(), calls)
    shutil.rmtree(root)
    root.mkdir()
    with agenttools.toolset("anthropic", root=str(root)) as reg:
        got = [(out.text, out.is_error) for out in (reg.call(B, call) for call in calls)]
    assert got == expected


HANGS: dict[str, tuple[list[dict[str, Any]], str]] = {
    "trailing-comment": ([{"command": "echo hi # a comment"}], "hi"),
    "heredoc": ([{"command": "cat <<EOF\nfrom a heredoc\nEOF"}], "from a heredoc"),
    "background-job": ([{"command": "sleep 0.1 &"}, {"command": "echo next"}], "next"),
    "reads-stdin": ([{"command": "cat"}], ""),
}
"""Commands the reference never sees end (its sentinel is commented out, swallowed, a syntax error, or read)."""


@pytest.mark.parametrize("case", sorted(HANGS))
def test_commands_the_reference_never_ends_end_here(tmp_path, loop, monkeypatch, reference_bash, case):
    calls, last = HANGS[case]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(BASH._BashSession, "_timeout", 1.0)
    expected = _run_reference_bash(loop, reference_bash(), calls[:1])
    assert expected == [("timed out: bash has not returned in 1.0 seconds and must be restarted", True)]
    with agenttools.toolset("anthropic", root=str(tmp_path), bash_timeout=5) as reg:
        outs = [reg.call(B, call) for call in calls]
    assert (outs[-1].text, outs[-1].is_error) == (last, False)


def test_exit_ends_the_session_at_once_with_the_references_text(tmp_path, loop, monkeypatch, reference_bash):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(BASH._BashSession, "_timeout", 1.0)
    reference = reference_bash()
    first, after = _run_reference_bash(loop, reference, [{"command": "exit 3"}, {"command": "echo hi"}])
    assert first == ("timed out: bash has not returned in 1.0 seconds and must be restarted", True)
    with agenttools.toolset("anthropic", root=str(tmp_path)) as reg:
        ours = [reg.call(B, {"command": "exit 3"}), reg.call(B, {"command": "echo hi"})]
        assert [(o.text, o.is_error) for o in ours] == [after, after]
        assert reg.call(B, {"restart": True}).text == "tool has been restarted."
        assert reg.call(B, {"command": "echo back"}).text == "back"




def test_a_directory_with_a_space_is_listed_where_the_reference_splits_it(tmp_path, loop, monkeypatch):
    root = tmp_path / "proj"
    (root / "a dir").mkdir(parents=True)
    (root / "a dir" / "f.txt").write_text("f\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LC_ALL", "C")  # find quotes names with ' (curly quotes in a UTF-8 locale)
    call = {"command": "view", "path": f"{root}/a dir"}
    text, is_error = run_reference(loop, EDIT.EditTool20250728(), call)
    # `find {path}` through a shell: two operands, neither of which exists
    assert is_error and text == (f"find: '{root}/a': No such file or directory\n"
                                 "find: 'dir': No such file or directory\n")
    with agenttools.toolset("anthropic", root=str(root)) as reg:
        out = reg.call(E, call)
    assert (out.text, out.is_error) == (
        f"Here's the files and directories up to 2 levels deep in {root}/a dir, excluding hidden items:\n"
        f"{root}/a dir\n{root}/a dir/f.txt\n\n", False)
