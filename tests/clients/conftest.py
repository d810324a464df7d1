"""Shared helpers: run an example server over stdio and talk to it with the official Python SDK."""

import asyncio
import os
import pathlib

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = pathlib.Path(__file__).resolve().parents[2]
TARGET = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))


def example_binary(name: str) -> str:
    path = TARGET / "debug" / "examples" / name
    if not path.exists():
        raise RuntimeError(f"{path} is missing: run `cargo build --examples` first")
    return str(path)


def session_run(example: str, body, args=()):
    """Starts `example` over stdio (with `args`), initializes a session and runs `body(session)`."""

    async def run():
        params = StdioServerParameters(command=example_binary(example), args=list(args))
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await body(session)

    return asyncio.run(run())


def text_of(result) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")
