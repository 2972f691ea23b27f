"""Anthropic's reference client tools, vendored for the side-by-side tests (tests/fidelity/test_anthropic_upstream.py).

base.py, run.py, edit.py and bash.py are computer-use-demo/computer_use_demo/tools/ of anthropics/claude-quickstarts
at commit 370e18d4a20ff5fd4bc1a6bf11d5105b2383977c, unchanged (MIT License, Copyright (c) 2023 Anthropic: see
LICENSE here). This file replaces the package's __init__.py, which also imports the computer tool we do not need.
"""
