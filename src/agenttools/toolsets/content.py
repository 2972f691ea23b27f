"""The ``content`` toolset: get_content, get_category_content and get_collection_content, as mcp-guide's spec has them.

``agenttools.toolset("content", docroot=..., categories=[...], collections=[...])``, or ``config="guide.toml"``, or
no options (each call then uses ``agenttools.content.session(...)``'s project, or fails with ``no_session``).
Every answer is a Result JSON string. Deviations from upstream are listed in docs/toolsets/content.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agenttools.content import (
    Category,
    DocrootEscapeError,
    Document,
    PatternRuleError,
    Project,
    Result,
    current_project,
    discover,
    format_documents,
    read_document,
)
from agenttools.errors import AgentToolsError, ArgumentsError, ConfigError, ValidationIssue
from agenttools.output import ToolOutput
from agenttools.registry import Registry, Tool

__all__ = ["DESCRIPTIONS", "INSTRUCTIONS", "PARAMETERS", "build"]

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


class _Fail(AgentToolsError):  # noqa: N818 - internal carrier of a Result
    code = "content_failure"

    def __init__(self, result: Result) -> None:
        self.result = result
        super().__init__(result.error or "")


def _fail(error: str, error_type: str) -> _Fail:
    return _Fail(Result.failure(error, error_type, instruction=INSTRUCTIONS.get(error_type)))


def _field_message(issue: ValidationIssue) -> tuple[str, str]:
    if issue.keyword == "required":
        return str(issue.params["missingProperty"]), "Field required"
    if issue.keyword == "additionalProperties":
        return str(issue.params["additionalProperty"]), "Extra inputs are not permitted"
    if issue.keyword == "type" and issue.params.get("type") == "string":
        return str(issue.argument or ""), "Input should be a valid string"
    return str(issue.argument or ""), issue.describe()


def render_error(tool: str, error: BaseException) -> ToolOutput:
    """Every failure as a Result JSON string."""
    if isinstance(error, _Fail):
        result = error.result
    elif isinstance(error, ArgumentsError):
        fields = [dict(zip(("field", "message"), _field_message(i), strict=True)) for i in error.issues]
        result = Result.failure(f"Invalid tool arguments: {len(fields)} validation error(s)", "validation_error",
                                instruction=INSTRUCTIONS["validation_error"],
                                error_data={"validation_errors": fields})
    else:
        result = Result.failure(str(error) or type(error).__name__, "unknown", exception=error)
    return ToolOutput(text=result.to_json_str(), is_error=True, data=result)


def _read(project: Project, categories: list[Category], pattern: str | None, kind: str, name: str) -> str:
    documents: list[Document] = []
    for category in categories:
        try:
            documents += discover(project, category, [pattern] if pattern else list(category.patterns))
        except PatternRuleError as exc:
            raise _fail(str(exc), "invalid_pattern") from None
        except (DocrootEscapeError, FileNotFoundError) as exc:
            raise _fail(str(exc), "io_error") from None
    if not documents:
        raise _fail(f"No files matched pattern(s) in {kind} '{name}'", "no_matches")
    prefix = "" if kind == "category" else "{}/"
    failed = f"Failed to read one or more files in {kind} '{name}': "
    limit = project.max_file_size
    errors = [f"'{prefix.format(d.category)}{d.basename}': file is {d.size} bytes, over the {limit}-byte limit"
              for d in documents if d.size > limit]  # the sizes discovery found: nothing is read
    if errors:
        raise _fail(failed + "; ".join(errors), "io_error")
    total = sum(document.size for document in documents)
    if total > project.max_total_size:
        raise _fail(failed + f"the documents total {total} bytes, over the {project.max_total_size}-byte limit",
                    "io_error")
    texts, total = [], 0
    for document in documents:  # each read checks fstat again and stops past its limit: files may grow
        try:
            text = read_document(document, min(limit, project.max_total_size - total))
        except (OSError, UnicodeDecodeError) as exc:
            errors.append(f"'{prefix.format(document.category)}{document.basename}': {exc}")
            continue
        total += len(text.encode("utf-8"))
        texts.append((document, text))
    if errors:
        raise _fail(failed + "; ".join(errors), "io_error")
    return format_documents(texts)


def _collection_categories(project: Project, name: str) -> list[Category]:
    collection = project.collection(name)
    if collection is None:
        raise _fail(f"Collection '{name}' not found in project", "not_found")
    categories = []
    for category_name in collection.categories:
        category = project.category(category_name)
        if category is None:
            raise _fail(f"Category '{category_name}' (referenced by collection '{name}') not found", "not_found")
        categories.append(category)
    return categories


def build(*, docroot: Any = None, categories: Any = None, collections: Any = None, config: Any = None,
          max_file_size: Any = None, max_total_size: Any = None) -> Registry:
    """Build the content toolset for a fixed project, or (with no options) for the current session's project.

    ``max_file_size`` (default 10 MiB) and ``max_total_size`` (default 32 MiB, all documents of one answer) bound
    what a call reads; they override a config file's values.

    Raises:
        ConfigError: The options do not describe a valid project.
    """
    fixed = None
    if any(v is not None for v in (docroot, categories, collections, config)):
        fixed = Project.build(docroot=docroot, categories=categories, collections=collections, config=config,
                              max_file_size=max_file_size, max_total_size=max_total_size)
    elif max_file_size is not None or max_total_size is not None:
        raise ConfigError("max_file_size/max_total_size need a project (docroot= or config=); a session's project "
                          "carries its own")

    def project() -> Project:
        found = fixed or current_project()
        if found is None:
            raise _fail("No active project session", "no_session")
        return found

    def ok(value: str) -> str:
        return Result.ok(value).to_json_str()

    def get_content(args: dict[str, Any]) -> str:
        name, pattern, proj = args["category_or_collection"], args.get("pattern"), project()
        category = proj.category(name)
        if category is not None:
            return ok(_read(proj, [category], pattern, "category", name))
        if proj.collection(name) is not None:
            return ok(_read(proj, _collection_categories(proj, name), pattern, "collection", name))
        raise _fail(f"Category or collection '{name}' not found in project", "not_found")

    def get_category_content(args: dict[str, Any]) -> str:
        name, pattern, proj = args["category"], args.get("pattern"), project()
        category = proj.category(name)
        if category is None:
            raise _fail(f"Category '{name}' not found in project", "not_found")
        return ok(_read(proj, [category], pattern, "category", name))

    def get_collection_content(args: dict[str, Any]) -> str:
        name, pattern, proj = args["collection"], args.get("pattern"), project()
        return ok(_read(proj, _collection_categories(proj, name), pattern, "collection", name))

    handlers: dict[str, Callable[[dict[str, Any]], str]] = {
        "get_content": get_content, "get_category_content": get_category_content,
        "get_collection_content": get_collection_content,
    }
    tools = [Tool.from_schema(name=name, description=DESCRIPTIONS[name], parameters=PARAMETERS[name],
                              handler=handler, render_error=render_error, read_only=True, idempotent=True,
                              open_world=False)
             for name, handler in handlers.items()]
    return Registry(tools, render_error=render_error)
