"""The README's quick start and the runnable example stay true."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.S)


@pytest.mark.parametrize("doc", ["README.md", "docs/index.md"])
def test_first_python_block_runs(doc):
    block = python_blocks(ROOT / doc)[0]
    namespace: dict[str, object] = {}
    exec(compile(block, doc, "exec"), namespace)  # noqa: S102 - executing our own documentation
    reg = namespace["reg"]
    assert reg.call("add", '{"a": 40}').text == "42"  # type: ignore[attr-defined]


def test_readme_error_text_is_what_call_returns():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "# \"Error: invalid arguments for add: argument 'a' must be integer, got string\"" in text
    namespace: dict[str, object] = {}
    exec(compile(python_blocks(ROOT / "README.md")[0], "README.md", "exec"), namespace)  # noqa: S102
    out = namespace["reg"].call("add", {"a": "x"})  # type: ignore[attr-defined]
    assert out.text == "Error: invalid arguments for add: argument 'a' must be integer, got string"


def test_quickstart_example_runs():
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / "quickstart.py")], capture_output=True,
                          text=True, timeout=60, check=True)
    lines = proc.stdout.splitlines()
    assert lines[-1].startswith("Error: path '")
    assert lines[-1].endswith(f"is outside the allowed directories ({ROOT.resolve()})")
    readme_lines = len((ROOT / "README.md").read_bytes().splitlines())
    assert lines[-2] == str(readme_lines)
    assert '"strict": true' in proc.stdout


def test_readme_main_command_runs_on_this_repository():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    line = next(line for line in text.splitlines() if "agenttools call --toolset gemini" in line)
    command = line[line.index("agenttools call"):]
    import shlex

    argv = shlex.split(command)
    script = Path(sys.executable).parent / "agenttools"
    proc = subprocess.run([str(script), *argv[1:]], capture_output=True, text=True, cwd=ROOT, timeout=120,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith('Found 1 match for pattern "^def toolset" in path "." (filter: "*.py"):\n---\n'
                                  "File: src/agenttools/toolsets/__init__.py\nL")


def test_every_test_the_security_page_names_exists():
    """docs/security.md names the test behind each sandbox guarantee: each one must be a test of the suite."""
    named = set(re.findall(r"`(test_[a-z0-9_]+)`", (ROOT / "docs" / "security.md").read_text(encoding="utf-8")))
    defined = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        defined.update(re.findall(r"^(?:async )?def (test_[a-z0-9_]+)\(", path.read_text(encoding="utf-8"), flags=re.M))
    assert len(named) > 20
    assert named <= defined, sorted(named - defined)
