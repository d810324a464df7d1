"""An MCP server of the official Python SDK whose tools take pydantic arguments, read in
pydantic's lax mode (the SDK's default): `"5"` is read as 5 and `5.0` as an integer, which a
strict guard would refuse. `guardrails proxy` stands in front of it in test_proxy_lax.py."""

from typing import Literal

from pydantic import BaseModel, Field

from mcp.server.mcpserver import MCPServer

server = MCPServer("pydantic-upstream")


class Line(BaseModel):
    sku: str
    quantity: int = Field(ge=1, le=100)


@server.tool()
def order(lines: list[Line], priority: Literal["low", "high"] = "low", copies: int = 1) -> str:
    """Places an order of some lines."""
    total = sum(line.quantity for line in lines) * copies
    return f"{len(lines)} line(s), {total} item(s), {priority} priority"


if __name__ == "__main__":
    server.run("stdio")
