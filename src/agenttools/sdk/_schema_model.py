"""A pydantic model class standing for a JSON Schema, for frameworks that want a model where we have a schema.

CrewAI's ``args_schema`` and LlamaIndex's ``fn_schema`` must be pydantic model classes; both read the schema they
show the model from ``model_json_schema()``. The class made here answers with our schema, verbatim, and accepts
any arguments (it has no fields, extra keys allowed): the registry validates them, in its own words.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

__all__ = ["schema_model"]


def schema_model(name: str, schema: Mapping[str, Any]) -> type[Any]:
    """A pydantic ``BaseModel`` subclass named ``name`` whose ``model_json_schema()`` is a copy of ``schema``.

    pydantic is imported here: every framework that wants such a class depends on it.
    """
    from pydantic import BaseModel, ConfigDict

    kept = copy.deepcopy(dict(schema))

    class Arguments(BaseModel):
        model_config = ConfigDict(extra="allow")

        @classmethod
        def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
            return copy.deepcopy(kept)

    Arguments.__name__ = Arguments.__qualname__ = name
    return Arguments
