"""Heavy dependencies load on first use: building a toolset and reading a file does not import them."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _loaded_after(code: str, modules: list[str]) -> dict[str, str]:
    """In a fresh process: for each module, "absent" (not imported yet) or "loaded"."""
    script = textwrap.dedent(code) + textwrap.dedent(f"""
        import sys
        for name in {modules!r}:
            module = sys.modules.get(name)
            state = "absent" if module is None else "loaded"
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
    assert states == {"urllib.request": "absent", "http.client": "absent"}


def test_docstring_parser_loads_with_the_first_function_tool_and_not_for_a_toolset(tmp_path):
    states = _loaded_after(f"""
        import sys, agenttools
        with agenttools.toolset("coder", root={str(tmp_path)!r}):
            assert "docstring_parser" not in sys.modules
        def add(a: int) -> int:
            "Add."
            return a
        agenttools.Registry().tool(add)
    """, ["docstring_parser"])
    assert states == {"docstring_parser": "loaded"}


def test_a_plain_import_elsewhere_is_unaffected(tmp_path):
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
            assert "regex" not in __import__("sys").modules
            assert "L1: hi" in reg.call("search_file_content", {{"pattern": "h."}}).text
    """, ["regex"])
    assert states == {"regex": "loaded"}  # by the search, and only then


def test_threads_that_first_use_a_lazy_module_together_all_get_it():
    """The stdlib LazyLoader (3.11) let 7 of 8 threads see a half-imported ``regex``: AttributeError."""
    script = textwrap.dedent("""
        import sys, threading
        import agenttools.search.pattern as pattern
        assert "regex" not in sys.modules
        errors, start = [], threading.Barrier(8)

        def search() -> None:
            start.wait()
            try:
                pattern.compile_pattern("a+b")
            except Exception as exc:
                errors.append(repr(exc))

        threads = [threading.Thread(target=search) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        print(errors)
    """)
    for _ in range(3):
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
        assert done.stdout.strip() == "[]", done.stdout


def test_a_gemini_listing_loads_no_backend_logging_difflib_or_secrets(tmp_path):
    """What only a search, a logged failure or a misspelled option needs stays out of a listing's process."""
    (tmp_path / "a.txt").write_text("hi\n")
    heavy = ["agenttools.search.rg", "agenttools.search.python", "logging", "difflib", "secrets", "hashlib",
             "dataclasses", "uuid", "agenttools._tolerant", "agenttools._notebook"]
    states = _loaded_after(f"""
        import agenttools
        with agenttools.toolset("gemini", root={str(tmp_path)!r}) as reg:
            assert reg.call("list_directory", {{"path": {str(tmp_path)!r}}}).text.endswith("a.txt")
    """, heavy)
    assert states == dict.fromkeys(heavy, "absent")


def test_the_lazy_pieces_load_when_used(tmp_path):
    (tmp_path / "a.txt").write_text("hi\n")
    states = _loaded_after(f"""
        import logging, io
        import agenttools
        stream = io.StringIO()
        logging.getLogger("agenttools").addHandler(logging.StreamHandler(stream))
        with agenttools.toolset("gemini", root={str(tmp_path)!r}) as reg:
            assert "L1: hi" in reg.call("search_file_content", {{"pattern": "h."}}).text
        reg = agenttools.Registry()

        @reg.tool
        def boom() -> str:
            \"\"\"Fail.\"\"\"
            raise RuntimeError("kaboom")

        assert reg.call("boom").is_error
        assert "tool boom raised RuntimeError" in stream.getvalue()
        try:
            agenttools.toolset("gemini", root={str(tmp_path)!r}, max_outptu=1)
        except agenttools.ConfigError as exc:
            assert "max_output" in str(exc), exc
    """, ["agenttools.search.rg", "difflib"])
    assert states == {"agenttools.search.rg": "loaded", "difflib": "loaded"}
