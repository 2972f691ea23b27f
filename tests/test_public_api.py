"""The public surface: a pinned, sorted __all__, frozen keyword-only results, toolset() errors."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import attrs
import pytest

import agenttools
from agenttools import ConfigError, toolset
from agenttools import toolsets as toolsets_module

PINNED = [
    "AccessDeniedError", "AgentToolsError", "AlreadyExistsError", "ArgumentsError", "ChannelNotFoundError", "ConfigError", "ContentBlock", "DataBlock", "DeniedPathError", "EditError", "EncodingError",
    "ErrorRenderer", "FileTooLargeError", "GitError", "HardLinkError", "ImageBlock", "IsDirectoryError", "MatchCountError", "NoChangeError", "NoMatchError", "NotDirectoryError", "NotFoundError",
    "OutsideWorkspaceError", "OverlappingEditsError", "PathError", "PatternError", "ProcessLimitError", "ProtectedPathError", "Registry", "Sandbox", "SandboxError", "SandboxWarning", "SendError", "SpecialFileError", "StaleFileError", "TextBlock", "Tool",
    "ToolCall", "ToolDefinitionError", "ToolFailure", "ToolInputError", "ToolOutput", "ToolTimeoutError", "UnknownProcessError", "UnknownToolError",
    "ValidationIssue", "Workspace", "toolset",
]


def test_all_is_pinned_and_sorted():
    assert agenttools.__all__ == PINNED
    assert agenttools.__all__ == sorted(agenttools.__all__)
    for name in agenttools.__all__:
        assert hasattr(agenttools, name)


def test_public_classes_report_the_module_that_defines_them():
    assert agenttools.ToolOutput.__module__ == "agenttools.output"
    assert agenttools.MatchCountError.__module__ == "agenttools.errors"
    assert repr(agenttools.ToolOutput(text="x")).startswith("ToolOutput(")


def test_results_are_frozen_and_keyword_only():
    for name in agenttools.__all__:
        obj = getattr(agenttools, name)
        if isinstance(obj, type) and attrs.has(obj):
            params = attrs.fields(obj)
            assert all(f.kw_only for f in params), name
            instance_kwargs = {f.name: None for f in params if f.default is attrs.NOTHING}
            with pytest.raises(TypeError):
                obj(*instance_kwargs.values())  # positional construction is refused
            instance = obj(**instance_kwargs)
            with pytest.raises(attrs.exceptions.FrozenInstanceError):
                setattr(instance, params[0].name, "changed")


def test_import_imports_nothing_heavy():
    code = ("import sys, agenttools; print(sorted(m for m in sys.modules if m.startswith(('agenttools.', 'attr', "
            "'regex', 'charset_normalizer', 'filetype'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "[]"


def test_every_public_name_resolves_lazily():
    code = "import agenttools; [getattr(agenttools, n) for n in agenttools.__all__]; print(agenttools.content.Project)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert "Project" in out.stdout
    assert set(agenttools.__all__) <= set(dir(agenttools))
    with pytest.raises(AttributeError):
        agenttools.no_such_name  # noqa: B018


def test_import_is_light():
    code = ("import sys, agenttools; heavy = [m for m in ('openai', 'anthropic', 'google.genai', 'mcp', "
            "'langchain_core', 'pydantic', 'charset_normalizer', 'asyncio.subprocess') if m in sys.modules]; "
            "print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "[]"


def test_unknown_toolset():
    with pytest.raises(ConfigError, match="unknown toolset 'nope'; built-in toolsets: anthropic, assistant, coder, "
                                          "content, editor, filesystem, gemini, openai"):
        toolset("nope")


def test_builtin_toolset_not_built_yet(monkeypatch):
    monkeypatch.setitem(toolsets_module.BUILTIN, "future", "agenttools.toolsets._not_written_yet:build")
    with pytest.raises(ConfigError, match="toolset 'future' is not available yet"):
        toolset("future", root=".")


def test_module_reference_toolsets(tmp_path):
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
    try:
        reg = toolset("cli_fixture_tools:build", root=str(tmp_path))
        assert reg.names() == ("read_text", "add")
        with pytest.raises(ConfigError, match="rejected its options"):
            toolset("cli_fixture_tools:build", bogus=1)
        with pytest.raises(ConfigError, match="has no attribute 'missing'"):
            toolset("cli_fixture_tools:missing")
        with pytest.raises(ConfigError, match="neither a Registry nor a callable"):
            toolset("cli_fixture_tools:TOOLSET_DOC")
    finally:
        sys.path.remove(str(__import__("pathlib").Path(__file__).parent))


@pytest.mark.parametrize("bad", ["", None, 3])
def test_bad_toolset_names(bad):
    with pytest.raises(ConfigError):
        toolset(bad)


# --- the design card's packages: declared, and used where they fit ------------------------------------------------

_CARD = {"attrs": "attrs", "pathspec": "pathspec", "charset-normalizer": "charset_normalizer",
         "filetype": "filetype", "regex": "regex"}  # distribution -> the module src/ imports


def _imported_modules() -> set[str]:
    """Top-level modules src/ imports: import statements anywhere, and names handed to ``lazy_module``."""
    found: set[str] = set()
    for path in Path(agenttools.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name.partition(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module.partition(".")[0])
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "lazy_module"
                  and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                found.add(node.args[0].value.partition(".")[0])
    return found


def test_the_design_cards_packages_are_declared_and_used():
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    declared = {re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0].lower()
                for requirement in pyproject["project"]["dependencies"]}
    assert set(_CARD) <= declared, set(_CARD) - declared
    assert "pathspec[re2]" in "".join(pyproject["project"]["dependencies"]).replace(" ", "")  # RE2, never `re`
    assert set(_CARD.values()) <= _imported_modules(), set(_CARD.values()) - _imported_modules()
