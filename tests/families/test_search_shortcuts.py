"""grep's shortcuts give the results a plain search gives: the byte-level prefilter of the Python backend, a capped
ripgrep search read in one parallel run, denied files left out before the cap, results built through slots."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest

from agenttools import Workspace
from agenttools.search import GrepMatch, grep
from agenttools.search import rg as _rg
from agenttools.search.python import plain_text, required_literal
from agenttools.search.results import build_matches


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("PyErr_SetString", "PyErr_SetString"),
        (r"def \w+\(", "def "),
        (r"\bimport\s+numpy", "import"),
        ("ab*cde", "cde"),  # b is optional
        ("colou?r", "colo"),
        ("x+yz_w", "yz_w"),  # x repeats: left out, a run never holds a character a quantifier follows
        (r"a\.b\.c", "a.b.c"),
        ("abc[de]fgh", "abc"),  # nothing after a class is scanned
        ("abcd(ef)gh", "abcd"),
        ("é-long-text", "-long-text"),  # non-ASCII text ends a run
        ("^start.end$", "start"),
        ("foo|barbaz", None),  # an alternation anywhere
        ("x{3}abcdef", None),  # a counted repeat, or regex's fuzzy constraints
        ("(?i)abcdef", None),  # an inline flag (verbose mode would change what the text is)
        ("[[:alpha:]]xyz", None),  # a POSIX class: not scanned at all
        (r"\x41BCD", None),  # an escape with an argument stops the scan
        ("ab", None),  # too short to be worth a pass
    ],
)
def test_required_literal(pattern, expected):
    assert required_literal(pattern) == expected


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [("foo bar", "foo bar"), (r"a\.b\(", "a.b("), ("a.b", None), (r"\d", None), ("", None), ("café", None),
     ("x+", None)],
)
def test_plain_text(pattern, expected):
    assert plain_text(pattern) == expected


def test_non_ascii_letters_that_fold_to_ascii_ones_pass_the_prefilter(tmp_path):
    # case-insensitively, U+212A KELVIN SIGN matches k, U+017F LONG S matches s, U+0130 matches i: the raw bytes of
    # these lines do not hold the ASCII text of the pattern, yet the line matches
    (tmp_path / "kelvin.txt").write_text("the \u212aey here\n", encoding="utf-8")
    (tmp_path / "longs.txt").write_text("a \u017fetup step\n", encoding="utf-8")
    (tmp_path / "dotted.txt").write_text("\u0130ndexed\n", encoding="utf-8")
    ws = Workspace(tmp_path)
    for backend in ("rg", "python"):
        assert [m.line for m in grep(ws, "key here", backend=backend).matches] == ["the \u212aey here"]
        assert [m.line for m in grep(ws, "setup step", backend=backend).matches] == ["a \u017fetup step"]
        assert grep(ws, "key here", backend=backend, ignore_case=False).matches == ()
    assert [m.line for m in grep(ws, "indexed", backend="python").matches] == ["\u0130ndexed"]


def test_utf16_text_passes_the_prefilter(tmp_path):
    (tmp_path / "wide.txt").write_bytes("first\nfind the needle\n".encode("utf-16"))
    (tmp_path / "plain.txt").write_text("no match here\n")
    for backend in ("rg", "python"):
        found = grep(Workspace(tmp_path), "the needle", backend=backend)
        assert [(m.rel, m.line_number, m.line) for m in found.matches] == [("wide.txt", 2, "find the needle")]


def test_plain_text_in_ascii_files_keeps_its_case_rules_and_binary_files(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"Needle one\r\nno\nNEEDLE two\n")
    (tmp_path / "b.bin").write_bytes(b"needle\n\0")
    ws = Workspace(tmp_path)
    found = grep(ws, "needle", backend="python")
    assert [(m.rel, m.line_number, m.line) for m in found.matches] == [("a.txt", 1, "Needle one\r"),
                                                                        ("a.txt", 3, "NEEDLE two")]
    exact = grep(ws, "NEEDLE", backend="python", ignore_case=False)
    assert [m.line_number for m in exact.matches] == [3]


def test_a_capped_python_search_stops_a_file_at_the_cap_but_still_drops_a_late_nul(tmp_path, monkeypatch):
    from agenttools.search import python as _pygrep

    monkeypatch.setattr(_pygrep, "_LARGE", 10)
    monkeypatch.setattr(_pygrep, "_BLOCK", 64)
    (tmp_path / "a.txt").write_bytes(b"needle\n" * 50 + b"\0")
    (tmp_path / "b.txt").write_bytes(b"x\nneedle\n" * 50)
    found = grep(Workspace(tmp_path), "needle", backend="python", max_matches=3)
    assert [(m.rel, m.line_number) for m in found.matches] == [("b.txt", 2), ("b.txt", 4), ("b.txt", 6)]
    assert found.truncated


def _many_files(root: Path) -> None:
    """60 files of 100 matching lines in nested directories, names whose path order is not their name order."""
    for index in range(60):
        name = ["a/b", "a-c", "a.d", "ab", "a/b/c", "z"][index % 6] + f"/f{index:02d}.txt"
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(f"needle {index} {line}\n" if line % 3 == 0 else "other\n" for line in range(300)))


@pytest.mark.parametrize("backend", ["rg", "python"])
def test_a_large_cap_returns_the_first_lines_in_path_order(tmp_path, backend):
    _many_files(tmp_path)
    # ripgrep prints the 1,500 early lines of this file, then finds its NUL: it is binary, dropped whole; sorting
    # first, it must not count toward the cap while its lines are read
    (tmp_path / "a" / "0late.txt").write_bytes(b"needle\n" * 1500 + b"x" * 100_000 + b"\n\0")
    ws = Workspace(tmp_path)
    full = grep(ws, "needle", backend=backend)
    assert len(full.matches) == 6000
    assert full.matches[0].rel == "a/b/c/f04.txt"  # "a/b/..." sorts before "a/b/f..." and before "a-c"
    for cap in (1000, 2500, 5999):
        capped = grep(ws, "needle", backend=backend, max_matches=cap)
        assert capped.truncated
        assert capped.matches == full.matches[:cap]
    assert grep(ws, "needle", backend=backend, max_matches=6000).matches == full.matches


def test_a_capped_ripgrep_run_with_too_much_output_turns_to_a_sorted_run(tmp_path, monkeypatch):
    _many_files(tmp_path)
    ws = Workspace(tmp_path)
    full = grep(ws, "needle", backend="rg")
    runs: list[list[str]] = []
    real = _rg._Ripgrep

    def recording(args, *rest, **kwargs):
        runs.append(args)
        return real(args, *rest, **kwargs)

    monkeypatch.setattr(_rg, "_Ripgrep", recording)
    capped = grep(ws, "needle", backend="rg", max_matches=1200)
    assert len(runs) == 1 and "--sort=path" not in runs[0]  # one parallel run, read to the end
    monkeypatch.setattr(_rg, "_READ_WHOLE_BYTES", 1)  # any output is too much: the sorted run serves the cap
    runs.clear()
    turned = grep(ws, "needle", backend="rg", max_matches=1200)
    assert len(runs) == 2 and "--sort=path" in runs[1]
    assert capped.matches == turned.matches == full.matches[:1200]
    assert capped.truncated and turned.truncated


@pytest.mark.parametrize("backend", ["rg", "python"])
@pytest.mark.parametrize("cap", [50, 1100])
def test_denied_files_do_not_count_toward_the_cap(tmp_path, backend, cap):
    _many_files(tmp_path)
    ws = Workspace(tmp_path, deny=["a/b/c/**", "z"])
    allowed = [m for m in grep(Workspace(tmp_path), "needle", backend=backend).matches
               if not m.rel.startswith(("a/b/c/", "z/"))]
    capped = grep(ws, "needle", backend=backend, max_matches=cap)
    assert capped.truncated
    assert capped.matches == tuple(allowed[:cap])
    assert not any(m.rel.startswith(("a/b/c/", "z/")) for m in grep(ws, "needle", backend=backend).matches)


@pytest.mark.parametrize(
    "piece",
    [b"1:a\n2:b", b"1:a\n\n", b"\n", b"\n1:a", b"1:a\n", b"12:x:y\n./f.txt" + _rg._WARNING + b" (found...)\n\n",
     b"3:\xff\xfe\r"],
)
def test_lines_are_counted_as_parsed(piece):
    assert _rg._count_lines(piece) == len(_rg._TEXT_LINE.findall(piece.decode("utf-8", errors="replace")))


def test_built_matches_equal_constructed_ones_and_stay_frozen():
    files = [("a.txt", "/r/a.txt", [(1, "x"), (5, "y")]), ("b/c.txt", "/r/b/c.txt", [(2, "z")])]
    built, cut = build_matches(files, 2)
    assert cut
    assert built == [GrepMatch(path="/r/a.txt", rel="a.txt", line_number=1, line="x"),
                     GrepMatch(path="/r/a.txt", rel="a.txt", line_number=5, line="y")]
    assert build_matches(files) == ([*built, GrepMatch(path="/r/b/c.txt", rel="b/c.txt", line_number=2, line="z")],
                                    False)
    assert hash(built[0]) == hash(GrepMatch(path="/r/a.txt", rel="a.txt", line_number=1, line="x"))
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        built[0].line = "changed"  # type: ignore[misc]


@pytest.mark.parametrize("cap", [None, 5, 1500])
def test_a_file_name_with_a_line_feed_is_not_read_as_lines(tmp_path, cap):
    # ripgrep prints "name NUL first line": the name "b\n7:needle injected" would read as a line "b" (dropped) and
    # a file "7:needle injected", or with --heading as a line 7 of the file printed before it; the Python backend
    # serves such a tree (it used to report "7:needle injected" as the file)
    (tmp_path / "a.txt").write_text("needle a\n")
    (tmp_path / "b\n7:needle injected").write_text("needle b\n")
    (tmp_path / "c\n\nd.txt").write_text("needle c\n")
    found = grep(Workspace(tmp_path), "needle", max_matches=cap)
    assert found.backend == "python"
    assert [(m.rel, m.line_number, m.line) for m in found.matches] == [
        ("a.txt", 1, "needle a"), ("b\n7:needle injected", 1, "needle b"), ("c\n\nd.txt", 1, "needle c")]
