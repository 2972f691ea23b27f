"""The content contract's words: descriptions, schemas and instructions as mcp-guide has them, and failures.

Every answer is a :class:`~agenttools.toolsets.content.render.Result` JSON string: :func:`fail` makes the
ToolFailure for a failure the handlers word, :func:`render_error` the one for any other error.
"""

from __future__ import annotations

from typing import Any

from agenttools.errors import ArgumentsError, ToolFailure, UnknownToolError, ValidationIssue
from agenttools.output import ToolOutput
from agenttools.toolsets.content.render import Result

__all__ = ["DESCRIPTIONS", "INSTRUCTIONS", "NO_SESSION_HELP", "PARAMETERS", "fail", "render_error"]

INSTRUCTIONS = {
    "not_found": "Present this error to the user and take no further action.",
    "no_matches": "Present this error to the user so they can correct the pattern. Do NOT attempt corrective action.",
    "invalid_pattern": "Present this error to the user with pattern syntax help.",
    "no_session": "Inform user that project context is required.",
    "io_error": "Present this error to the user. The file may have been deleted, moved, or has permission issues.",
    "validation_error": "Return error to user without attempting remediation",
}
DESCRIPTIONS = {
    "get_content": "Retrieve documentation content from a category or a collection (a category name is tried "
                   "first). Without a pattern the category's default patterns are used. One document comes back "
                   "as plain text, several as MIME multipart.",
    "get_category_content": "Retrieve documentation content from one category, optionally filtered by a glob "
                            "pattern (defaults to the category's patterns).",
    "get_collection_content": "Retrieve documentation content from every category of a collection, optionally "
                              "filtered by a glob pattern.",
}
_PATTERN = {"type": "string", "description": "Optional glob pattern overriding the default patterns, e.g. "
                                             "'*.md', '**/*.py', 'intro' (matches intro.md, intro.txt, ...)."}


def _params(name: str, description: str) -> dict[str, Any]:
    return {"type": "object", "properties": {name: {"type": "string", "description": description},
                                             "pattern": _PATTERN},
            "required": [name], "additionalProperties": False}


PARAMETERS = {
    "get_content": _params("category_or_collection", "Name of a category or ID of a collection, e.g. 'guides'."),
    "get_category_content": _params("category", "Category name, e.g. 'examples'."),
    "get_collection_content": _params("collection", "Collection ID, e.g. 'onboarding'."),
}


NO_SESSION_HELP = ("The content toolset has no project: build it with agenttools.toolset('content', "
                   "docroot=..., categories=[...]) or config='guide.toml', or serve calls inside "
                   "agenttools.content.session(...).")
"""Said (as the Result's ``message``) when a call finds no project: how to give it one."""


def fail(error: str, error_type: str, message: str | None = None) -> ToolFailure:
    """A failure answered as the Result JSON of upstream's ``error_type`` (with its instruction)."""
    result = Result.failure(error, error_type, message=message, instruction=INSTRUCTIONS.get(error_type))
    return ToolFailure(result.to_json_str(), code=error_type, data=result)


def _field_message(issue: ValidationIssue) -> tuple[str, str]:
    """``(field, message)`` of one issue in pydantic's words; ``unknown`` where no argument is concerned (upstream)."""
    if issue.keyword == "required":
        return str(issue.params["missingProperty"]), "Field required"
    if issue.keyword == "additionalProperties":
        return str(issue.params["additionalProperty"]), "Extra inputs are not permitted"
    if issue.keyword == "type" and issue.params.get("type") == "string":
        return issue.argument or "unknown", "Input should be a valid string"
    return issue.argument or "unknown", issue.describe()


def render_error(tool: str, error: BaseException) -> ToolOutput:
    """Every failure as a Result JSON string (an unknown tool as the MCP SDK's own ``Unknown tool: <name>``)."""
    if isinstance(error, UnknownToolError):
        return ToolOutput(text=f"Unknown tool: {error.name}", is_error=True, data=error)
    if isinstance(error, ArgumentsError):
        fields = [dict(zip(("field", "message"), _field_message(i), strict=True)) for i in error.issues]
        result = Result.failure(f"Invalid tool arguments: {len(fields)} validation error(s)", "validation_error",
                                instruction=INSTRUCTIONS["validation_error"],
                                error_data={"validation_errors": fields})
    else:
        result = Result.failure(str(error) or type(error).__name__, "unknown", exception=error)
    return ToolOutput(text=result.to_json_str(), is_error=True, data=result)
