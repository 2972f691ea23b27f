"""Integrations with other ecosystems (optional extras, imported only when used): the MCP server."""

__all__: list[str] = []
