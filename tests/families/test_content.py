"""The content family: projects, document discovery, bounded reads and sessions (no toolset involved)."""

from __future__ import annotations

import asyncio
import os

import pytest

import agenttools
from agenttools import ConfigError
from agenttools.content import (
    DocrootEscapeError,
    DocumentTooLargeError,
    PatternRuleError,
    Project,
    current_project,
    discover,
    read_document,
    session,
)
from conftest import CONTENT_CATEGORIES as CATEGORIES


@pytest.mark.parametrize(
    ("pattern", "paths"),
    [
        ("intro.md", ["intro.md"]),
        ("intro", ["intro.md", "intro.txt"]),
        ("**/*.py", ["sub/code.py"]),
        ("**/*.md", ["both.md", "intro.md", "sub/deep.md", "tmpl.md.mustache", "tutorial.md"]),
        ("t?torial.md", ["tutorial.md"]),
        ("[it]*.md", ["intro.md", "tmpl.md.mustache", "tutorial.md"]),
        ("sub/*", ["sub/code.py", "sub/deep.md"]),
        ("*.json", []),
    ],
)
def test_patterns(docroot, pattern, paths):
    project = Project.build(docroot=docroot, categories=CATEGORIES)
    found = agenttools.content.discover(project, project.category("guides"), [pattern])
    assert [d.path for d in found] == paths


def test_template_basename(docroot):
    project = Project.build(docroot=docroot, categories=CATEGORIES)
    (template,) = agenttools.content.discover(project, project.category("guides"), ["tmpl.md"])
    assert (template.basename, template.is_template) == ("tmpl.md", True)


def test_hidden_and_cache_files_are_never_discovered(docroot):
    project = Project.build(docroot=docroot, categories=CATEGORIES)
    found = {d.path for d in discover(project, project.category("guides"), ["**/*"])}
    assert ".hidden.md" not in found and "__pycache__/x.md" not in found
    assert {"intro.md", "sub/deep.md"} <= found


def test_read_document_is_bounded_by_its_limit(docroot):
    project = Project.build(docroot=docroot, categories=CATEGORIES)
    (intro,) = discover(project, project.category("guides"), ["intro.txt"])
    assert read_document(intro, 1024) == "h\u00e9llo \u2713\n"
    with pytest.raises(DocumentTooLargeError):
        read_document(intro, 4)


def test_a_bad_pattern_is_a_pattern_rule_error(docroot):
    project = Project.build(docroot=docroot, categories=CATEGORIES)
    with pytest.raises(PatternRuleError):
        discover(project, project.category("guides"), ["../escape/*.md"])


def test_a_category_leaving_the_docroot_through_a_symlink_is_refused(docroot, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("secret\n")
    os.symlink(outside, docroot / "linked")
    project = Project.build(docroot=docroot, categories=[{"name": "linked", "dir": "linked"}])
    with pytest.raises((DocrootEscapeError, FileNotFoundError)):
        discover(project, project.category("linked"), ["*.md"])


def test_projects_are_validated_when_built(docroot):
    with pytest.raises(ConfigError):
        Project.build(docroot=docroot, categories=[{"name": "bad name!", "dir": "guides"}])
    with pytest.raises(ConfigError):
        Project.build(docroot=docroot / "missing", categories=CATEGORIES)
    project = Project.build(docroot=docroot, categories=CATEGORIES,
                            collections=[{"name": "all", "categories": ["guides", "examples"]}])
    assert project.collection("all").categories == ("guides", "examples")
    assert project.category("nope") is None


def test_sessions_are_per_task(docroot, tmp_path):
    other = tmp_path / "other"
    (other / "guides").mkdir(parents=True)
    assert current_project() is None

    async def serve(root) -> str:
        with session(docroot=root, categories=CATEGORIES[:1]) as project:
            await asyncio.sleep(0.01)
            return str(current_project().docroot) if current_project() is project else "mixed up"

    async def both() -> list[str]:
        return await asyncio.gather(serve(docroot), serve(other))

    assert asyncio.run(both()) == [str(docroot.resolve()), str(other.resolve())]
    assert current_project() is None
    assert agenttools.content.current_project is current_project
