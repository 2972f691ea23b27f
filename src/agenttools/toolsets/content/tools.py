"""The content toolset as data: get_content, get_category_content and get_collection_content, and their handlers."""

from __future__ import annotations

from typing import Any

import attrs

from agenttools.content import (
    Category,
    DocrootEscapeError,
    Document,
    PatternRuleError,
    Project,
    current_project,
    discover,
    read_document,
)
from agenttools.toolsets._spec import READ, ToolSpec
from agenttools.toolsets.content.render import Result, format_documents
from agenttools.toolsets.content.texts import DESCRIPTIONS, NO_SESSION_HELP, PARAMETERS, fail

__all__ = ["TOOLS", "Source"]


@attrs.frozen(kw_only=True)
class Source:
    """Where the documents come from: a fixed project, or else the current session's."""

    fixed: Project | None = None
    """The project given to ``build``; None serves :func:`~agenttools.content.current_project`."""

    def project(self) -> Project:
        """The project a call serves (``no_session`` when there is none)."""
        found = self.fixed or current_project()
        if found is None:
            raise fail("No active project session", "no_session", message=NO_SESSION_HELP)
        return found


def _read(project: Project, categories: list[Category], pattern: str | None, kind: str, name: str) -> str:
    documents: list[Document] = []
    for category in categories:
        try:
            documents += discover(project, category, [pattern] if pattern else list(category.patterns))
        except PatternRuleError as exc:
            raise fail(str(exc), "invalid_pattern") from None
        except (DocrootEscapeError, FileNotFoundError) as exc:
            raise fail(str(exc), "io_error") from None
    if not documents:
        raise fail(f"No files matched pattern(s) in {kind} '{name}'", "no_matches")
    prefix = "" if kind == "category" else "{}/"
    failed = f"Failed to read one or more files in {kind} '{name}': "
    limit = project.max_file_size
    errors = [f"'{prefix.format(d.category)}{d.basename}': file is {d.size} bytes, over the {limit}-byte limit"
              for d in documents if d.size > limit]  # the sizes discovery found: nothing is read
    if errors:
        raise fail(failed + "; ".join(errors), "io_error")
    total = sum(document.size for document in documents)
    if total > project.max_total_size:
        raise fail(failed + f"the documents total {total} bytes, over the {project.max_total_size}-byte limit",
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
        raise fail(failed + "; ".join(errors), "io_error")
    return format_documents(texts)


def _collection_categories(project: Project, name: str) -> list[Category]:
    collection = project.collection(name)
    if collection is None:
        raise fail(f"Collection '{name}' not found in project", "not_found")
    categories = []
    for category_name in collection.categories:
        category = project.category(category_name)
        if category is None:
            raise fail(f"Category '{category_name}' (referenced by collection '{name}') not found", "not_found")
        categories.append(category)
    return categories


def _ok(value: str) -> str:
    return Result.ok(value).to_json_str()


def get_content(source: Source, args: dict[str, Any]) -> str:
    """``get_content``: a category's documents, or else a collection's."""
    name, pattern, proj = args["category_or_collection"], args.get("pattern"), source.project()
    category = proj.category(name)
    if category is not None:
        return _ok(_read(proj, [category], pattern, "category", name))
    if proj.collection(name) is not None:
        return _ok(_read(proj, _collection_categories(proj, name), pattern, "collection", name))
    raise fail(f"Category or collection '{name}' not found in project", "not_found")


def get_category_content(source: Source, args: dict[str, Any]) -> str:
    """``get_category_content``: one category's documents."""
    name, pattern, proj = args["category"], args.get("pattern"), source.project()
    category = proj.category(name)
    if category is None:
        raise fail(f"Category '{name}' not found in project", "not_found")
    return _ok(_read(proj, [category], pattern, "category", name))


def get_collection_content(source: Source, args: dict[str, Any]) -> str:
    """``get_collection_content``: the documents of every category of a collection."""
    name, pattern, proj = args["collection"], args.get("pattern"), source.project()
    return _ok(_read(proj, _collection_categories(proj, name), pattern, "collection", name))


TOOLS: list[ToolSpec[Source]] = [
    ToolSpec(name="get_content", description=DESCRIPTIONS["get_content"], parameters=PARAMETERS["get_content"],
             handler=get_content, hints=READ),
    ToolSpec(name="get_category_content", description=DESCRIPTIONS["get_category_content"],
             parameters=PARAMETERS["get_category_content"], handler=get_category_content, hints=READ),
    ToolSpec(name="get_collection_content", description=DESCRIPTIONS["get_collection_content"],
             parameters=PARAMETERS["get_collection_content"], handler=get_collection_content, hints=READ),
]
"""Each tool of the contract, in the spec's order."""
