"""The content toolset as data: get_content, get_category_content and get_collection_content, and their handlers."""

from __future__ import annotations

from pathlib import Path
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


def _name(document: Document) -> str:
    """How a read error names a document: its path in its category, without ``.mustache`` (upstream's name)."""
    return document.path.removesuffix(".mustache")


def _read(project: Project, categories: list[Category], pattern: str | None, *, context: str, name: str,
          no_match: str, once: bool = False) -> str:
    """The documents of ``categories``, formatted; failures worded as the tool asking (``context``) words them.

    ``context`` is ``category``, ``collection`` or ``content`` (get_content), as upstream's read errors say; outside
    ``category`` a document is named with its category. With ``once`` (get_content) a file two categories share
    comes once, under the first: upstream keys it by its category directory as configured and its path there,
    while get_collection_content lists it under each category.
    """
    documents: list[Document] = []
    seen: set[Path] = set()
    for category in categories:
        try:
            found = discover(project, category, [pattern] if pattern else list(category.patterns))
        except PatternRuleError as exc:
            raise fail(str(exc), "invalid_pattern") from None
        except (DocrootEscapeError, FileNotFoundError) as exc:
            raise fail(str(exc), "io_error") from None
        for document in found:
            key = project.docroot / category.dir / document.path
            if not (once and key in seen):
                seen.add(key)
                documents.append(document)
    if not documents:
        raise fail(no_match, "no_matches")
    prefix = "" if context == "category" else "{}/"
    failed = f"Failed to read one or more files in {context} '{name}': "
    limit = project.max_file_size
    errors = [f"'{prefix.format(d.category)}{_name(d)}': file is {d.size} bytes, over the {limit}-byte limit"
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
            errors.append(f"'{prefix.format(document.category)}{_name(document)}': {exc}")
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
        categories = [category]
    elif proj.collection(name) is not None:
        categories = _collection_categories(proj, name)
    else:
        raise fail(f"Category or collection '{name}' not found in project", "not_found")
    return _ok(_read(proj, categories, pattern, context="content", name=name,
                     no_match=f"No matching content found for '{name}'", once=True))


def get_category_content(source: Source, args: dict[str, Any]) -> str:
    """``get_category_content``: one category's documents."""
    name, pattern, proj = args["category"], args.get("pattern"), source.project()
    category = proj.category(name)
    if category is None:
        raise fail(f"Category '{name}' not found in project", "not_found")
    no_match = (f"No files matched pattern '{pattern}' in category '{name}'" if pattern
                else f"No files found in category '{name}'")
    return _ok(_read(proj, [category], pattern, context="category", name=name, no_match=no_match))


def get_collection_content(source: Source, args: dict[str, Any]) -> str:
    """``get_collection_content``: the documents of every category of a collection."""
    name, pattern, proj = args["collection"], args.get("pattern"), source.project()
    return _ok(_read(proj, _collection_categories(proj, name), pattern, context="collection", name=name,
                     no_match=f"No matching content found in collection '{name}'"))


TOOLS: list[ToolSpec[Source]] = [
    ToolSpec(name="get_content", description=DESCRIPTIONS["get_content"], parameters=PARAMETERS["get_content"],
             handler=get_content, hints=READ._replace(title="Get content")),
    ToolSpec(name="get_category_content", description=DESCRIPTIONS["get_category_content"],
             parameters=PARAMETERS["get_category_content"], handler=get_category_content,
             hints=READ._replace(title="Get category content")),
    ToolSpec(name="get_collection_content", description=DESCRIPTIONS["get_collection_content"],
             parameters=PARAMETERS["get_collection_content"], handler=get_collection_content,
             hints=READ._replace(title="Get collection content")),
]
"""Each tool of the contract, in the spec's order."""
