"""A tool's docstring read by docstring-parser: the description, and one text per documented parameter.

docstring-parser reads the four styles (Google, NumPy, Sphinx/reST ``:param x:``, Epydoc ``@param x:``). This
adapter is ours because a tool definition needs more than ``docstring_parser.parse`` gives:

- **The style.** The library's AUTO keeps whichever style found the most fields of any kind and silently skips
  a style that fails, so a Google docstring with two lines starting ``:class:`` comes back as reST without its
  parameters. Here the style that finds the most parameters wins, then the one with the most other known fields
  (returns, yields, raises, examples, deprecation); ties go to Google, NumPy, reST, Epydoc in that order, so a
  docstring without sections is read as Google, all of it description.
- **Google section titles**: the ones this package has always ended a description at (``Note:``, ``See Also:``,
  ``Keyword Args:``, ``Todo:``, ...), not only the library's. Only parameter sections are read entry by entry,
  so only they can fail; a Google parameter section that cannot be read is reported (``malformed``) instead of
  the docstring being read as another style with the section in its description.
- **The texts.** The description is the text before the first section exactly as written (the library rebuilds
  it with at most one blank line after the summary); a parameter's lines are joined with single spaces;
  ``*args`` documents ``args``, ``x, y : int`` documents both, and a Google type holding a role (napoleon's
  ``x (:obj:`str`): text``) is not cut at the role's colon. Attributes (``Attributes``, ``:ivar x:``) and
  NumPy ``Receives`` are not parameters; a documented type is ignored, since the annotation gives the schema.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

import attrs
import docstring_parser
from docstring_parser.google import GoogleParser, Section, SectionType

__all__ = ["Docstring", "parse_docstring"]

_PARAMETER_TITLES = ("Args", "Arguments", "Parameters", "Params", "Keyword Args", "Keyword Arguments",
                     "Other Parameters")
_OTHER_TITLES = {"Returns": "returns", "Return": "returns", "Yields": "yields", "Yield": "yields",
                 "Raises": "raises", "Exceptions": "raises", "Exception": "raises", "Examples": "examples",
                 "Example": "examples", "Notes": "notes", "Note": "notes", "Attributes": "attributes",
                 "See Also": "see_also", "Warnings": "warnings", "Warning": "warnings", "Warns": "warns",
                 "Todo": "todo", "References": "references", "Methods": "methods"}
"""Google sections read as free text, by title, with their key (``returns`` etc. make the library's typed field)."""

_GOOGLE = GoogleParser([*(Section(t, "param", SectionType.MULTIPLE) for t in _PARAMETER_TITLES),
                        *(Section(t, key, SectionType.SINGULAR) for t, key in _OTHER_TITLES.items())])
_GOOGLE_TEXT_ONLY = GoogleParser([Section(t, "text", SectionType.SINGULAR) for t in (*_PARAMETER_TITLES,
                                                                                        *_OTHER_TITLES)])
"""The same sections, none read entry by entry: where a malformed Google docstring's description ends."""

_STYLES: tuple[Callable[[str], docstring_parser.Docstring], ...] = (
    _GOOGLE.parse,
    lambda text: docstring_parser.parse(text, docstring_parser.DocstringStyle.NUMPYDOC),
    lambda text: docstring_parser.parse(text, docstring_parser.DocstringStyle.REST),
    lambda text: docstring_parser.parse(text, docstring_parser.DocstringStyle.EPYDOC),
)
"""In tie-break order; Google first."""

_PARAMETER_KEYS = frozenset({"param", "parameter", "arg", "argument", "key", "keyword", "other_param", "type"})
"""The fields that document a parameter (Epydoc files ``@type x:`` before ``@param x:`` under ``type``)."""


@attrs.frozen(kw_only=True)
class Docstring:
    """What a docstring says, split into the parts a tool definition uses."""

    description: str
    """Everything before the first section (summary and extended description), whitespace-trimmed."""
    params: dict[str, str]
    """Parameter name to its description, its lines joined with single spaces."""
    malformed: tuple[str, ...] = ()
    """Why a Google parameter section could not be read (docstring-parser's message); then ``params`` is empty."""


def _params(parsed: docstring_parser.Docstring) -> dict[str, str]:
    params: dict[str, str] = {}
    for param in parsed.params:
        if param.args[0] not in _PARAMETER_KEYS:
            continue
        names, text = param.arg_name, param.description or ""
        if names.rstrip().endswith("(") and "):" in text:  # Google ``x (:class:`T`): text``, cut at the role's colon
            names, text = names.rstrip()[:-1], text.split("):", 1)[1]
        text = " ".join(line.strip() for line in text.splitlines() if line.strip())
        for name in names.split(","):
            if name.strip().lstrip("*"):
                params[name.strip().lstrip("*")] = text
    return params


def _known_fields(parsed: docstring_parser.Docstring) -> int:
    return sum(type(m) not in (docstring_parser.DocstringMeta, docstring_parser.DocstringParam)
               for m in parsed.meta)


def _description(text: str, parsed: docstring_parser.Docstring) -> str:
    """The text before the first section, as written: from its start to the end of what the library kept."""
    short, long = parsed.short_description or "", parsed.long_description or ""
    last = long or short
    return text[: text.find(last, len(short) if long else 0) + len(last)].strip()


def parse_docstring(doc: str | None) -> Docstring:
    """Read a Google, NumPy, Sphinx/reST or Epydoc docstring; the style is chosen as the module docstring says."""
    text = inspect.cleandoc(doc or "")
    candidates: list[tuple[dict[str, str], docstring_parser.Docstring]] = []
    google_error: str | None = None
    for index, style in enumerate(_STYLES):
        try:
            parsed = style(text)
        except (docstring_parser.ParseError, IndexError) as exc:  # reST and Epydoc fail on stray ':'/'@' lines
            google_error = str(exc) if index == 0 else google_error
            continue
        candidates.append((_params(parsed), parsed))
    params, parsed = max(candidates, key=lambda c: (len(c[0]), _known_fields(c[1])))  # the first of equals
    if google_error is not None and not params:
        return Docstring(description=_description(text, _GOOGLE_TEXT_ONLY.parse(text)), params={},
                         malformed=(google_error,))
    return Docstring(description=_description(text, parsed), params=params)
