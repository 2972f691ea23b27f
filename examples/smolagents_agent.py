"""smolagents: the gemini toolset as smolagents tools, driven by smolagents' own ``ToolCallingAgent``.

``reg.to_smolagents()`` gives the ``smolagents.Tool``\\ s; ``attach(agent)`` lets the agent show the model the images
our tools return and lets ``agent.interrupt()`` stop a running command. A model class made with ``exact_schemas``
sends our JSON Schemas verbatim (smolagents would rebuild them from ``Tool.inputs``).

Run it: ``python examples/smolagents_agent.py [PROJECT [QUESTION]]``. With ``OPENAI_API_KEY`` set, OpenAI's gpt-4.1
plays the model (``pip install 'smolagents[openai]'``); without it, :class:`ScriptedModel` below does.
"""

from __future__ import annotations

from typing import Any

from smolagents import ToolCallingAgent
from smolagents.models import (
    ChatMessage,
    ChatMessageToolCall,
    ChatMessageToolCallFunction,
    MessageRole,
    Model,
)

import agenttools


def run(model: Any, root: str, question: str) -> str:
    """Let a smolagents ``ToolCallingAgent`` answer ``question`` with the gemini tools over ``root``."""
    with agenttools.toolset("gemini", root=root) as reg:
        tools = reg.to_smolagents()
        agent = tools.attach(ToolCallingAgent(tools=tools, model=model, max_steps=10))
        return str(agent.run(question))


def openai_model() -> Any:
    """gpt-4.1 through smolagents' ``OpenAIModel``, sending our schemas verbatim."""
    from smolagents import OpenAIModel

    from agenttools.sdk.smolagents import exact_schemas

    return exact_schemas(OpenAIModel)(model_id="gpt-4.1")


class ScriptedModel(Model):
    """An offline smolagents model: lists the project with ``list_directory``, then answers with what it got."""

    def __init__(self, root: str) -> None:
        super().__init__(model_id="scripted")
        self.root = root

    def generate(self, messages: list[ChatMessage], stop_sequences: list[str] | None = None,
                 response_format: dict[str, str] | None = None, tools_to_call_from: list[Any] | None = None,
                 **kwargs: Any) -> ChatMessage:
        """The next step: a ``list_directory`` call first, then the ``final_answer`` call."""
        results = [message for message in messages if message.role == MessageRole.TOOL_RESPONSE]
        if not results:
            name, arguments = "list_directory", {"path": self.root}
        else:  # smolagents' observation: "Observation:\n<our text>"
            text = "".join(part.get("text", "") for part in results[-1].content or [] if isinstance(part, dict))
            lines = [line for line in text.removeprefix("Observation:\n").splitlines() if line.strip()]
            first = lines[0] if lines else "-"
            name, arguments = "final_answer", {
                "answer": f"(scripted model) The tool answered {len(lines)} line(s); the first: {first}"}
        call = ChatMessageToolCall(id=f"call_{len(results) + 1}", type="function",
                                   function=ChatMessageToolCallFunction(name=name, arguments=arguments))
        return ChatMessage(role=MessageRole.ASSISTANT, content=None, tool_calls=[call])


if __name__ == "__main__":
    import sys

    import scripted  # the examples' shared helpers, next to this file

    project, question = scripted.root_and_question(sys.argv)
    model = scripted.client("OPENAI_API_KEY", "smolagents[openai]", openai_model, ScriptedModel, project)
    print(run(model, project, question))
