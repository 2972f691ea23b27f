"""The ``content`` toolset: get_content, get_category_content and get_collection_content, as mcp-guide's spec has them.

``agenttools.toolset("content", docroot=..., categories=[...], collections=[...])``, or ``config="guide.toml"``, or
no options (each call then uses ``agenttools.content.session(...)``'s project, or fails with ``no_session``).
Every answer is a Result JSON string. Deviations from upstream are listed in docs/toolsets/content.md.

The package: :mod:`~.texts` (descriptions, schemas, instructions, failures), :mod:`~.render` (the Result envelope
and the MIME multipart of several documents) and :mod:`~.tools` (the handlers and their ToolSpecs).
"""

from __future__ import annotations

from typing import Any

from agenttools.content import Project
from agenttools.errors import ConfigError
from agenttools.registry import Registry
from agenttools.toolsets._options import Option, takes_options
from agenttools.toolsets._spec import build_registry
from agenttools.toolsets.content.texts import render_error
from agenttools.toolsets.content.tools import TOOLS, Source

__all__ = ["OPTIONS", "TOOLS", "build", "render_error"]


OPTIONS = (Option(name="docroot", kind="any", help="the documentation root (or from config)"),
           Option(name="categories", kind="any", help="categories: name, dir under the docroot, default patterns"),
           Option(name="collections", kind="any", help="collections: name and the categories it groups"),
           Option(name="config", kind="any", help="a TOML or JSON file describing the project"),
           Option(name="max_file_size", kind="size", nullable=True, help="the largest document served"),
           Option(name="max_total_size", kind="size", nullable=True, help="the most bytes one answer serves"))
"""The options of ``build``, checked when the toolset is built (the project itself by ``Project.build``)."""


@takes_options("content", OPTIONS)
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

    return build_registry(TOOLS, Source(fixed=fixed), render_error=render_error)
