"""Native rmcp servers in the shapes of rmcp's examples, adopted with `#[guardrails::guarded]`,
driven by the official Python SDK: each shape refuses an unknown key, and audit mode refuses
nothing."""

import pytest

from conftest import session_run, text_of


async def unknown_then_valid(session):
    refused = await session.call_tool("sum", {"a": 1, "b": 2, "c": 3})
    valid = await session.call_tool("sum", {"a": 1, "b": 2})
    tools = {tool.name: tool for tool in (await session.list_tools()).tools}
    return refused, valid, tools["sum"].input_schema


@pytest.mark.parametrize("shape", ["calculator", "counter"])
def test_every_shape_is_guarded(shape):
    refused, valid, schema = session_run("shapes_server", unknown_then_valid, args=[shape])
    assert refused.is_error
    assert '<field name="c" code="unknown_field">' in text_of(refused)
    assert not valid.is_error
    assert text_of(valid) == "3"
    assert schema["additionalProperties"] is False


def test_audit_mode_refuses_nothing_and_advertises_the_tools_own_schema():
    refused, valid, schema = session_run("shapes_server", unknown_then_valid, args=["audited"])
    assert not refused.is_error
    assert text_of(refused) == "3"
    assert text_of(valid) == "3"
    assert "additionalProperties" not in schema
