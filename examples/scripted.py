"""Offline stand-ins for the SDK clients, so every example runs without an API key.

Each plays a two-turn conversation through the example's real tool loop: the "model" first asks for one tool
call (list the project), then answers with what the tool returned. The responses are built with the SDKs' own
types, exactly as the real clients return them. Used when the example's API key is not set.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

__all__ = ["anthropic_client", "client", "gemini_client", "langchain_model", "openai_chat_client",
           "openai_responses_client", "root_and_question"]

QUESTION = "What is in this project?"


def root_and_question(argv: list[str]) -> tuple[str, str]:
    """``argv[1]`` (default: the current directory) and ``argv[2]`` (default: a question about it)."""
    root = os.path.abspath(argv[1] if len(argv) > 1 else ".")
    return root, argv[2] if len(argv) > 2 else QUESTION


def client(key: str, package: str, real: Callable[[], Any], scripted: Callable[[str], Any], root: str) -> Any:
    """The real SDK client when the ``key`` environment variable is set, else the scripted stand-in.

    Exits with a one-line hint when the SDK (``package`` on PyPI) is not installed.
    """
    try:
        if os.environ.get(key):
            return real()
        print(f"({key} is not set: a scripted client plays the model)")
        return scripted(root)
    except ImportError as exc:
        hint = f"this example needs the {package} package ({exc.name} is missing): pip install {package}"
        raise SystemExit(hint) from None


class _Script:
    """Answers with the first response, then with a summary of the last message the loop sent."""

    def __init__(self, first: Any, final: Callable[[Any], Any]) -> None:
        self.first = first
        self.final = final
        self.turn = 0

    def create(self, **request: Any) -> Any:
        self.turn += 1
        return self.first if self.turn == 1 else self.final(request)


def _summary(text: str) -> str:
    lines = [line for line in str(text).splitlines() if line.strip()]
    first = lines[0] if lines else "-"
    first = first if len(first) <= 100 else first[:97] + "..."
    return f"(scripted model) The tool answered {len(lines)} line(s); the first: {first}"


def openai_chat_client(root: str) -> Any:
    """A Chat Completions client that asks gemini's ``list_directory`` for ``root``."""
    from openai.types.chat import ChatCompletion

    def completion(message: dict[str, Any]) -> Any:
        return ChatCompletion.model_validate({"id": "scripted", "object": "chat.completion", "created": 0,
                                              "model": "scripted", "choices": [{"index": 0, "message": message,
                                                                                "finish_reason": "stop"}]})

    first = completion({"role": "assistant", "content": None, "tool_calls": [{
        "id": "call_1", "type": "function", "function": {"name": "list_directory",
                                                         "arguments": json.dumps({"path": root})}}]})
    script = _Script(first, lambda request: completion(
        {"role": "assistant", "content": _summary(request["messages"][-1]["content"])}))
    return SimpleNamespace(chat=SimpleNamespace(completions=script))


def openai_responses_client(root: str) -> Any:
    """A Responses client that asks the editor's ``view`` for the project directory."""
    from openai.types.responses import ResponseFunctionToolCall

    call = ResponseFunctionToolCall.model_validate({"type": "function_call", "call_id": "fc_1", "name": "view",
                                                    "arguments": json.dumps({"path": "."})})
    script = _Script(SimpleNamespace(output=[call], output_text=""), lambda request: SimpleNamespace(
        output=[], output_text=_summary(request["input"][-1]["output"])))
    return SimpleNamespace(responses=script)


def anthropic_client(root: str) -> Any:
    """A Messages client that asks the coder's ``list_files``."""
    from anthropic.types import Message

    def message(content: list[dict[str, Any]], stop: str) -> Any:
        return Message.model_validate({"id": "scripted", "type": "message", "role": "assistant", "model": "scripted",
                                       "content": content, "stop_reason": stop, "stop_sequence": None,
                                       "usage": {"input_tokens": 0, "output_tokens": 0}})

    first = message([{"type": "tool_use", "id": "toolu_1", "name": "list_files", "input": {}}], "tool_use")
    script = _Script(first, lambda request: message(
        [{"type": "text", "text": _summary(request["messages"][-1]["content"][0]["content"][0]["text"])}],
        "end_turn"))
    return SimpleNamespace(messages=script)


def gemini_client(root: str) -> Any:
    """A google-genai client that asks gemini's ``list_directory`` for ``root``."""
    from google.genai import types

    def response(part: dict[str, Any]) -> Any:
        return types.GenerateContentResponse.model_validate(
            {"candidates": [{"content": {"role": "model", "parts": [part]}}]})

    first = response({"function_call": {"name": "list_directory", "args": {"path": root}}})

    def final(request: dict[str, Any]) -> Any:
        reply = request["contents"][-1].parts[0].function_response.response
        return response({"text": _summary(reply.get("output", reply.get("error", "")))})

    script = _Script(first, final)
    return SimpleNamespace(models=SimpleNamespace(generate_content=script.create))


def langchain_model(root: str) -> Any:
    """A LangChain chat model that asks the assistant's ``list`` tool for the workspace."""
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage

    return GenericFakeChatModel(messages=iter([
        AIMessage(content="", tool_calls=[{"name": "list", "args": {"path": "."}, "id": "c1", "type": "tool_call"}]),
        AIMessage(content="(scripted model) I listed the workspace.")]))
