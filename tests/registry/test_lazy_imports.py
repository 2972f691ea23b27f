"""Heavy dependencies load on first use: building a toolset and reading a file does not import them."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _loaded_after(code: str, modules: list[str]) -> dict[str, str]:
    """In a fresh process: for each module, "absent", "lazy" (its code not run yet) or "loaded"."""
    script = textwrap.dedent(code) + textwrap.dedent(f"""
        import sys
        for name in {modules!r}:
            module = sys.modules.get(name)
            state = "absent" if module is None else "lazy" if type(module).__name__ == "_LazyModule" else "loaded"
            print(name, state)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    return dict(line.split() for line in done.stdout.splitlines())


def test_a_toolset_and_a_read_load_neither_urllib_request_nor_regex_for_schemas(tmp_path):
    (tmp_path / "a.txt").write_text("hi\n")
    states = _loaded_after(f"""
        import agenttools
        with agenttools.toolset("assistant", root={str(tmp_path)!r}) as reg:
            assert reg.call("read", {{"path": "a.txt"}}).text
    """, ["urllib.request", "http.client"])
    assert states == {"urllib.request": "lazy", "http.client": "absent"}


def test_a_lazy_submodule_is_found_by_a_plain_import_elsewhere(tmp_path):
    states = _loaded_after("""
        import agenttools.message
        import urllib.request
        assert urllib.request.Request is not None  # the attribute path works, and loads it
    """, ["urllib.request"])
    assert states == {"urllib.request": "loaded"}


def test_building_the_gemini_toolset_and_reading_a_file_leave_regex_unloaded(tmp_path):
    (tmp_path / "a.txt").write_text("hi\n")
    states = _loaded_after(f"""
        import agenttools
        with agenttools.toolset("gemini", root={str(tmp_path)!r}) as reg:
            assert reg.call("read_file", {{"absolute_path": {str(tmp_path / "a.txt")!r}}}).text == "hi\\n"
            assert type(__import__("sys").modules["regex"]).__name__ == "_LazyModule"
            assert "L1: hi" in reg.call("search_file_content", {{"pattern": "h."}}).text
    """, ["regex"])
    assert states == {"regex": "loaded"}  # by the search, and only then
