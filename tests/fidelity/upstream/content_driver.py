"""mcp-guide's content tools, run by mcp-guide itself: reads JSON lines on stdin, prints one JSON line per request.

Runs in a separate virtualenv holding ``mcp-guide==1.0.0b1`` from PyPI (never in agenttools' own environment).
Each request is ``{"project": {"docroot", "categories", "collections"}, "tool", "args"}``; each answer is
``{"answer": <the Result JSON string upstream answers>, "documents": [[category, path, text], ...] | null}`` or
``{"raised": "<Type>: <message>"}`` when upstream lets an exception out of the tool (FastMCP then answers it as an
MCP tool error, not as a Result).

Discovery (``discover_category_files``), reading (``read_and_render_file_contents``), the default plain formatter
and the Result JSON are mcp-guide 1.0.0b1's own functions, called as they are. In 1.0.0b1 the three tools had
already been merged into one ``get_content(expression)``; the tool layer below composes those functions the way
``get_category_content``, ``get_collection_content`` and ``get_content(category_or_collection)`` did in the last
upstream commit that had them (deeprave/mcp-guide 0b23208, 2025-12-15: src/mcp_guide/tools/tool_category.py,
tool_collection.py and tool_content.py), with that commit's messages and instructions.
"""

import asyncio
import json
import sys
from pathlib import Path

from mcp_guide.content.formatters.plain import PlainFormatter
from mcp_guide.content.utils import create_file_read_error_result, read_and_render_file_contents, resolve_patterns
from mcp_guide.core.result import Result
from mcp_guide.discovery.files import discover_category_files

# 1.0.0b1 gives every Result a default instruction (set when mcp_guide.result is imported); the tools had none.
Result.default_success_instruction = Result.default_failure_instruction = None

# The words of the tool layer at 0b23208 (src/mcp_guide/tools/tool_constants.py).
NOT_FOUND, FILE_READ = "not_found", "file_read_error"
INSTRUCTION_NOT_FOUND = "Present this error to the user and take no further action."
INSTRUCTION_PATTERN = "Present this error to the user so they can correct the pattern. Do NOT attempt corrective action."
INSTRUCTION_FILE = "Present this error to the user. The file may have been deleted, moved, or has permission issues."


class Project:
    """The categories and collections of one request."""

    def __init__(self, data):
        self.docroot = Path(data["docroot"])
        self.categories = {c["name"]: c for c in data.get("categories", [])}
        self.collections = {c["name"]: c for c in data.get("collections", [])}


async def discover(project, category, pattern):
    category_dir = project.docroot / category["dir"]
    files = await discover_category_files(category_dir, resolve_patterns(pattern, category.get("patterns") or []))
    for file in files:
        file.category = category["name"]
    return category_dir, files


async def read(project, category_dir, files, prefix):
    """Read (upstream's reader), and the documents as [category, path relative to its category, text]."""
    paths = {id(file): file.path.as_posix() for file in files}  # reading makes ``path`` absolute
    errors = await read_and_render_file_contents(files, category_dir, project.docroot, None, category_prefix=prefix)
    return errors, [[file.category, paths[id(file)], file.content] for file in files]  # those read


async def answer(files, documents, errors, name, kind):
    if errors:
        return create_file_read_error_result(errors, name, kind, FILE_READ, INSTRUCTION_FILE).to_json_str(), None
    return Result.ok(await PlainFormatter().format(files, name)).to_json_str(), documents


async def get_category_content(project, args):
    name, pattern = args["category"], args.get("pattern")
    category = project.categories.get(name)
    if category is None:
        return Result.failure(f"Category '{name}' not found in project", error_type=NOT_FOUND,
                              instruction=INSTRUCTION_NOT_FOUND).to_json_str(), None
    category_dir, files = await discover(project, category, pattern)
    if not files:
        message = (f"No files matched pattern '{pattern}' in category '{name}'" if pattern
                   else f"No files found in category '{name}'")
        return Result.ok(message, instruction=INSTRUCTION_PATTERN).to_json_str(), None
    errors, documents = await read(project, category_dir, files, None)
    return await answer(files, documents, errors, name, "category")


async def get_collection_content(project, args):
    name, pattern = args["collection"], args.get("pattern")
    collection = project.collections.get(name)
    if collection is None:
        return Result.failure(f"Collection '{name}' not found in project", error_type=NOT_FOUND,
                              instruction=INSTRUCTION_NOT_FOUND).to_json_str(), None
    for category_name in collection["categories"]:
        if category_name not in project.categories:
            return Result.failure(f"Category '{category_name}' (referenced by collection '{name}') not found",
                                  error_type=NOT_FOUND, instruction=INSTRUCTION_NOT_FOUND).to_json_str(), None
    all_files, all_documents, all_errors = [], [], []
    for category_name in collection["categories"]:
        category_dir, files = await discover(project, project.categories[category_name], pattern)
        if not files:
            continue
        errors, documents = await read(project, category_dir, files, category_name)
        all_errors += errors
        all_files += files
        all_documents += documents
    if all_errors:
        return await answer(all_files, all_documents, all_errors, name, "collection")
    if not all_files:
        return Result.ok(f"No matching content found in collection '{name}'",
                         instruction=INSTRUCTION_PATTERN).to_json_str(), None
    return await answer(all_files, all_documents, [], name, "collection")


async def get_content(project, args):
    """Collections first, then categories; both searched, files de-duplicated by category dir / relative path."""
    name, pattern = args["category_or_collection"], args.get("pattern")
    collection = project.collections.get(name)
    names = [c for c in (collection["categories"] if collection else []) if c in project.categories]
    found = [await discover(project, project.categories[c], pattern) for c in [*names, name]
             if c in project.categories]
    seen, groups = set(), {}
    for category_dir, files in found:
        for file in files:
            if category_dir / file.path not in seen:
                seen.add(category_dir / file.path)
                groups.setdefault(category_dir, []).append(file)
    if not groups:
        return Result.ok(f"No matching content found for '{name}'", instruction=INSTRUCTION_PATTERN).to_json_str(), None
    all_files, all_documents, all_errors = [], [], []
    for category_dir, files in groups.items():
        errors, documents = await read(project, category_dir, files, files[0].category)
        all_errors += errors
        all_files += files
        all_documents += documents
    return await answer(all_files, all_documents, all_errors, name, "content")


TOOLS = {"get_category_content": get_category_content, "get_collection_content": get_collection_content,
         "get_content": get_content}


async def main():
    for line in sys.stdin:
        request = json.loads(line)
        try:
            text, documents = await TOOLS[request["tool"]](Project(request["project"]), request["args"])
            out = {"answer": text, "documents": documents}
        except Exception as exc:  # noqa: BLE001 - upstream let it out of the tool: report it
            out = {"raised": f"{type(exc).__name__}: {exc}"}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


asyncio.run(main())
