"""The editor's opt-in extensions (``edit_extensions=True``): edit family features on ``view`` and ``str_replace``.

boris's schemas have ``additionalProperties: false``, so by default the toolset keeps them exactly. With the
option on, ``str_replace`` also takes ``edits`` (several replacements, all or none), ``dry_run`` (the unified
diff, nothing written), ``expected_version`` (refuse a file changed since it was viewed) and ``tolerant`` (match
despite whitespace, indentation, line-ending or quote differences, and say which), and a viewed or edited file
ends with its ``[version: sha256:...]``. These words are ours: upstream has no such parameters.
"""

from __future__ import annotations

import copy
import os
from typing import Any

from agenttools import edit
from agenttools.errors import AgentToolsError, OverlappingEditsError, StaleFileError
from agenttools.output import ToolOutput
from agenttools.toolsets.editor import files
from agenttools.toolsets.editor.state import State, arg
from agenttools.toolsets.editor.texts import DESCRIPTIONS, PARAMETERS, failure

__all__ = ["EXTENDED_DESCRIPTIONS", "EXTENDED_PARAMETERS", "str_replace", "view"]

EXTENDED_DESCRIPTIONS: dict[str, str] = {
    "view": DESCRIPTIONS["view"] + " A file's text ends with a [version: ...] line: pass it to str_replace as "
                                   "expected_version.",
    "str_replace": DESCRIPTIONS["str_replace"] + " Or give edits: several replacements applied all or none, each "
                   "found in the file as it was. dry_run shows the diff without writing; expected_version (from "
                   "view) refuses a file changed since; tolerant also matches text that differs in whitespace, "
                   "indentation, line endings or quote characters, and says so.",
}
"""Upstream's descriptions, each followed by what the extensions add."""


def _str_replace_schema() -> dict[str, Any]:
    schema = copy.deepcopy(PARAMETERS["str_replace"])
    schema["required"] = ["path"]
    schema["properties"].update({
        "edits": {"type": "array", "minItems": 1,
                  "description": "several replacements, applied all or none, each found in the file as it was "
                                 "(instead of old_str, new_str and replace_all)",
                  "items": {"type": "object", "additionalProperties": False, "required": ["old_str"],
                            "properties": {
                                "old_str": {"type": "string", "description": "the string to find"},
                                "new_str": {"type": "string", "description": "replacement string"},
                                "replace_all": {"type": "boolean", "description": "replace every occurrence"}}}},
        "dry_run": {"type": "boolean", "description": "show the unified diff the edit would make; write nothing"},
        "expected_version": {"type": "string",
                             "description": "the [version: ...] view printed; the edit is refused if the file "
                                            "changed since"},
        "tolerant": {"type": "boolean",
                     "description": "if old_str is not found exactly, also match text that differs in whitespace, "
                                    "indentation, line endings or quote characters"},
    })
    return schema


EXTENDED_PARAMETERS: dict[str, dict[str, Any]] = {"view": PARAMETERS["view"], "str_replace": _str_replace_schema()}
"""``view``'s schema as upstream's; ``str_replace``'s with the extension parameters (``old_str`` then optional)."""


def _version_line(version: edit.FileVersion | None) -> str:
    return "" if version is None else f"\n[version: {version.token}]"


def view(state: State, args: dict[str, Any]) -> str | ToolOutput:
    """Upstream's ``view``; a file's text ends with the version of the file as it was read.

    The version is taken before the lines are read and kept only if the file's size and mtime are the same
    afterwards, so it never names a version the model did not see.
    """
    try:
        real = files.resolve(state, args["path"])
        before = edit.file_version(state.workspace, real) if os.path.isfile(real) else None
    except (AgentToolsError, OSError):
        before = None  # the view itself words what is wrong with the path
    shown = files.view(state, args)
    if before is None or not isinstance(shown, str) or shown.startswith("Binary file ("):
        return shown
    try:
        after = os.stat(real)
    except OSError:
        return shown
    if (after.st_mtime_ns, after.st_size) != (before.mtime_ns, before.size):
        return shown  # changed while it was read: no version rather than one the model did not see
    return shown + _version_line(before)


def str_replace(state: State, args: dict[str, Any]) -> str:
    """``str_replace`` with the extensions: one replacement or several, dry run, version check, tolerant match."""
    edits = args.get("edits")
    single = {"old_str", "new_str", "replace_all"} & args.keys()
    if edits is None and "old_str" not in args:
        raise failure("INVALID_INPUT", "give old_str, or edits")
    if edits is not None and single:
        raise failure("INVALID_INPUT", f"give either edits or {', '.join(sorted(single))}, not both")
    if edits is None and args["old_str"] == "":
        raise failure("INVALID_INPUT", "old_str must not be empty")
    if edits is not None and any(item["old_str"] == "" for item in edits):
        raise failure("INVALID_INPUT", "old_str must not be empty in any of edits")
    token = arg(args, "expected_version")
    try:
        version = None if token is None else edit.FileVersion.parse(token)
    except ValueError as exc:
        raise failure("INVALID_INPUT", f"expected_version: {exc}") from None
    real = files.edit_target(state, args["path"])
    dry_run = bool(arg(args, "dry_run", False))
    options: dict[str, Any] = {"dry_run": dry_run, "expect_version": version,
                               "tolerant": bool(arg(args, "tolerant", False))}
    replace_all = bool(arg(args, "replace_all", False))
    try:
        with files.edit_errors(real):
            if edits is None:
                result = edit.replace_text(state.workspace, real, args["old_str"], arg(args, "new_str", ""),
                                           expected=None if replace_all else 1, create=False, **options)
            else:
                result = edit.replace_many(state.workspace, real, edits, **options)
    except StaleFileError as exc:
        raise failure("STALE_FILE", str(exc)) from None
    except OverlappingEditsError as exc:
        raise failure("INVALID_INPUT", str(exc)) from None
    if dry_run:
        if not result.diff:
            return f"Dry run: the edit would not change {real}"
        return f"Dry run: nothing written to {real}\n\n{result.diff}"
    if edits is None:
        text = files.replaced(state, real, result, replace_all=replace_all)
    else:
        text = f"Applied {len(edits)} edits in {real} (at lines {', '.join(map(str, result.lines))})"
    if result.strategy != "exact":
        text += f"\n[matched ignoring {result.strategy.replace('_', ' ')}]"
    return text + _version_line(result.version)
