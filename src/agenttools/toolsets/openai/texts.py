"""The openai toolset's contract texts: Codex's JSON ``apply_patch`` definition and the ``shell`` tool's schema.

``APPLY_PATCH_DESCRIPTION`` and the ``input`` schema are Codex's ``create_apply_patch_json_tool`` (openai/codex,
codex-rs/core/src/tools/handlers/apply_patch_spec.rs, the version with ``*** Environment ID`` support that
0.169.0 ships), without the multi-environment addendum. The ``shell`` function form mirrors the Responses API's
``shell_call.action`` (``commands``, ``timeout_ms``, ``max_output_length``); its description is ours.
"""

from __future__ import annotations

from typing import Any

__all__ = ["APPLY_PATCH_DESCRIPTION", "DESCRIPTIONS", "NATIVE", "PARAMETERS", "SHELL_DESCRIPTION"]

APPLY_PATCH_DESCRIPTION = """Use the `apply_patch` tool to edit files.
Your patch language is a stripped-down, file-oriented diff format designed to be easy to parse and safe to apply. \
You can think of it as a high-level envelope:

*** Begin Patch
[ one or more file sections ]
*** End Patch

Within that envelope, you get a sequence of file operations.
You MUST include a header to specify the action you are taking.
Each operation starts with one of three headers:

*** Add File: <path> - create a new file. Every following line is a + line (the initial contents).
*** Delete File: <path> - remove an existing file. Nothing follows.
*** Update File: <path> - patch an existing file in place (optionally with a rename).

May be immediately followed by *** Move to: <new path> if you want to rename the file.
Then one or more hunks, each introduced by @@ (optionally followed by a hunk header).
Within a hunk each line starts with:

- " " (space) for context lines
- "-" for removed lines
- "+" for added lines

By default, show 3 lines of code immediately above and 3 lines immediately below each change. If a change is within \
3 lines of a previous change, do NOT duplicate the first change's trailing context lines in the second change's \
leading context lines.
If 3 lines of context is insufficient to uniquely identify the snippet of code within the file, use the @@ operator \
to indicate the class or function to which the snippet belongs.

A full patch can combine several operations:

*** Begin Patch
*** Add File: hello.txt
+Hello world
*** Update File: src/app.py
*** Move to: src/main.py
@@ def greet():
-print("Hi")
+print("Hello, world!")
*** Delete File: obsolete.txt
*** End Patch

It is important to remember:

- You must include a header with your intended action (Add/Delete/Update)
- You must prefix new lines with `+` even when creating a new file
- File references can only be relative, NEVER ABSOLUTE.
"""

SHELL_DESCRIPTION = (
    "Runs shell commands in the project directory, one after another, each with bash -c. Returns, for each "
    "command, its stdout, its stderr and its outcome: the exit code, or a timeout (a command that times out is "
    "killed and the commands after it do not run). timeout_ms bounds each command; max_output_length bounds the "
    "characters of stdout plus stderr kept per command.")

DESCRIPTIONS = {"apply_patch": APPLY_PATCH_DESCRIPTION, "shell": SHELL_DESCRIPTION}

PARAMETERS: dict[str, dict[str, Any]] = {
    "apply_patch": {
        "type": "object",
        "properties": {"input": {"type": "string", "description": "The entire contents of the apply_patch command"}},
        "required": ["input"],
        "additionalProperties": False,
    },
    "shell": {
        "type": "object",
        "properties": {
            "commands": {"type": "array", "items": {"type": "string"},
                         "description": "Shell commands to run in order."},
            "timeout_ms": {"type": "integer", "minimum": 1,
                           "description": "Milliseconds each command may run before it is killed."},
            "max_output_length": {"type": "integer", "minimum": 0,
                                  "description": "The most characters of stdout plus stderr kept per command."},
        },
        "required": ["commands"],
        "additionalProperties": False,
    },
}

NATIVE: dict[str, dict[str, dict[str, Any]]] = {
    "apply_patch": {"openai-responses": {"type": "apply_patch"}},
    "shell": {"openai-responses": {"type": "shell"}},
}
"""The Responses API's own tool declarations, emitted instead of function definitions for that format."""
