"""The error tree: one root, stable codes, builtin mixins, data fields, messages as str()."""

from __future__ import annotations

import errno
import inspect

import pytest

import agenttools
from agenttools import errors


def _classes() -> list[type[errors.AgentToolsError]]:
    return [obj for name, obj in vars(errors).items()
            if inspect.isclass(obj) and issubclass(obj, errors.AgentToolsError) and not name.startswith("_")]


def test_every_error_is_exported_and_under_the_root():
    exported = set(errors.__all__)
    for cls in _classes():
        assert cls.__name__ in exported
        assert cls.__name__ in agenttools.__all__
        assert issubclass(cls, errors.AgentToolsError)


def test_codes_are_unique_and_snake_case():
    codes = [cls.code for cls in _classes()]
    assert len(codes) == len(set(codes))
    assert all(code.replace("_", "").isalpha() and code.islower() for code in codes)


def test_every_class_appears_in_the_tree_drawing():
    doc = errors.__doc__ or ""
    for cls in _classes():
        assert cls.__name__ in doc, cls.__name__
        assert cls.code in doc, cls.code


@pytest.mark.parametrize(
    ("error", "builtin", "code"),
    [
        (errors.NotFoundError(path="/w/x"), FileNotFoundError, errno.ENOENT),
        (errors.IsDirectoryError(path="/w/d"), IsADirectoryError, errno.EISDIR),
        (errors.NotDirectoryError(path="/w/f"), NotADirectoryError, errno.ENOTDIR),
        (errors.OutsideWorkspaceError(path="/etc/x", given="../x", roots=["/w"]), PermissionError, errno.EACCES),
        (errors.DeniedPathError(path="/w/.env", pattern="**/.env"), PermissionError, errno.EACCES),
        (errors.FileTooLargeError(path="/w/big", size=2, limit=1), OSError, errno.EFBIG),
    ],
)
def test_os_errors_behave_like_their_builtin(error, builtin, code):
    assert isinstance(error, builtin)
    assert error.errno == code
    assert error.filename == error.path
    assert str(error) == error.message
    assert "[Errno" not in str(error)
    with pytest.raises(builtin):
        raise error


def test_value_errors_and_lookup():
    assert isinstance(errors.ArgumentsError("t", []), ValueError)
    assert isinstance(errors.PathError("bad", path="x"), ValueError)
    assert isinstance(errors.ConfigError("bad"), ValueError)
    assert isinstance(errors.UnknownToolError("x", ["a"]), LookupError)
    assert isinstance(errors.ToolDefinitionError("tool 'x'", ["p"]), TypeError)
    assert isinstance(errors.ToolTimeoutError("slow", seconds=1.0), TimeoutError)


def test_data_fields_and_repr():
    e = errors.SpecialFileError(path="/w/p", kind="fifo")
    assert (e.path, e.kind, e.code) == ("/w/p", "fifo", "special_file")
    assert repr(e) == "SpecialFileError('/w/p is a fifo, not a regular file')"
    t = errors.ToolTimeoutError("Command timed out after 5 seconds.", seconds=5, partial={"stdout": "x"})
    assert t.partial == {"stdout": "x"}
    assert t.seconds == 5


def test_validation_issue_texts():
    issue = errors.ValidationIssue(path=("paths", 0), keyword="type", message="must be string",
                                   params={"type": "string"}, value=3)
    assert issue.pointer == "/paths/0"
    assert issue.ajv_text() == "params/paths/0 must be string"
    assert issue.describe() == "argument 'paths.0' must be string, got integer"
    assert issue.argument == "paths"
    missing = errors.ValidationIssue(path=(), keyword="required", message="must have required property 'q'",
                                     params={"missingProperty": "q"})
    assert missing.ajv_text() == "params must have required property 'q'"
    assert missing.argument == "q"
    slash = errors.ValidationIssue(path=("a/b~c",), keyword="minimum", message="must be >= 1")
    assert slash.pointer == "/a~1b~0c"


@pytest.mark.parametrize("error", [
    errors.NotFoundError(path="/w/x"),
    errors.OutsideWorkspaceError(path="/etc/x", given="../x", roots=["/w"]),
    errors.HardLinkError(path="/w/h", links=3),
    errors.FileTooLargeError(path="/w/big", size=2, limit=1),
    errors.MatchCountError(path="/w/f", expected=1, found=2, lines=(3, 9)),
    errors.ToolTimeoutError("slow", seconds=1.5, partial={"stdout": "x"}),
    errors.UnknownProcessError("abc"),
    errors.PatternError(pattern="(", kind="regex", reason="missing )"),
    errors.ConfigError("bad"),
])
def test_errors_survive_pickling(error):
    """Keyword-only constructors must not stop an error crossing a process boundary."""
    import pickle

    copy = pickle.loads(pickle.dumps(error))  # noqa: S301 - our own bytes
    assert type(copy) is type(error)
    assert (str(copy), repr(copy), copy.code) == (str(error), repr(error), error.code)
    assert copy.__dict__ == error.__dict__
    if isinstance(error, OSError):
        assert (copy.errno, copy.filename) == (error.errno, error.filename)
