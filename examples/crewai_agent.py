"""CrewAI: the gemini toolset as CrewAI tools, run by CrewAI's own agent loop (``Agent`` + ``Task`` + ``Crew``).

Run it: ``python examples/crewai_agent.py [PROJECT [QUESTION]]`` — with ``OPENAI_API_KEY`` set, an OpenAI model
plays the agent; without it, a scripted CrewAI LLM (``ScriptedLLM`` below) lists the project with one tool call and
answers with what the tool returned. Needs ``pip install 'agenttools[crewai]'``. CrewAI tool results are text only.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from crewai import Agent, Crew, Task
from crewai.llms.base_llm import BaseLLM

import agenttools


def run(llm: BaseLLM | str, root: str, question: str) -> str:
    """Ask ``question`` about the project at ``root``; ``llm`` is a CrewAI LLM or a model name."""
    with agenttools.toolset("gemini", root=root) as reg:
        agent = Agent(role="Project assistant", goal="Answer questions about the project in the workspace",
                      backstory="You look at the files with your tools before you answer.", llm=llm,
                      tools=reg.to_crewai())
        task = Task(description=question, expected_output="A short answer", agent=agent)
        return str(Crew(agents=[agent], tasks=[task]).kickoff().raw)


class ScriptedLLM(BaseLLM):
    """An offline CrewAI LLM with native tool calls: lists ``root`` with ``list_directory``, then answers."""

    root: str

    @classmethod
    def listing(cls, root: str) -> ScriptedLLM:
        """A scripted LLM for the project at ``root``."""
        return cls(model="scripted", root=root)

    def supports_function_calling(self) -> bool:
        """As CrewAI's provider LLMs: tools go to the model as function definitions, calls come back as such."""
        return True

    def get_input_tokens_count(self, messages: Any, tools: Any = None, response_model: Any = None) -> int:
        """No tokenizer behind a script (CrewAI would log that it estimates)."""
        return 0

    def call(self, messages: Any, tools: Any = None, callbacks: Any = None, available_functions: Any = None,
             from_task: Any = None, from_agent: Any = None, response_model: Any = None) -> Any:
        """The next turn: a tool call (CrewAI runs it), or once the tool answered, the final text."""
        last = messages[-1] if isinstance(messages, list) else {}
        if last.get("role") != "tool":
            return [{"id": "call_1", "type": "function",
                     "function": {"name": "list_directory", "arguments": json.dumps({"path": self.root})}}]
        lines = [line for line in str(last["content"]).splitlines() if line.strip()]
        return f"(scripted model) The tool answered {len(lines)} line(s); the first: {lines[0] if lines else '-'}"


if __name__ == "__main__":
    project = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    question = sys.argv[2] if len(sys.argv) > 2 else "What is in this project?"
    if os.environ.get("OPENAI_API_KEY"):
        print(run("gpt-4.1-mini", project, question))
    else:
        print("(OPENAI_API_KEY is not set: a scripted model plays the model)")
        for flag in ("CREWAI_DISABLE_TELEMETRY", "OTEL_SDK_DISABLED"):  # offline: no telemetry either
            os.environ.setdefault(flag, "true")
        print(run(ScriptedLLM.listing(project), project, question))
