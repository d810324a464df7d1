"""A native rmcp server adopted with `guard_router`, driven by the official Python SDK and compared
with the same server served by rmcp alone."""

import html
import json
import re

from conftest import session_run, text_of


def run(body, unguarded=False):
    return session_run("notes_server", body, args=["--unguarded"] if unguarded else [])


def test_unknown_fields_are_rejected_and_named():
    async def body(session):
        return await session.call_tool("echo", {"text": "hi", "txt": "hi", "colour": "red"})

    result = run(body)
    assert result.is_error
    text = text_of(result)
    assert '<field name="txt" code="unknown_field">' in text
    assert 'Did you mean "text"?' in text
    assert '<field name="colour" code="unknown_field">' in text
    # rmcp alone ignores them and runs the tool.
    plain = run(body, unguarded=True)
    assert not plain.is_error
    assert text_of(plain) == "hi"


def test_several_problems_in_one_response_and_the_example_validates():
    async def body(session):
        bad = await session.call_tool(
            "create_note", {"title": "", "tag": "Bad Tag", "priority": "urgent", "due_in_days": 999}
        )
        example = json.loads(html.unescape(re.search(r"<valid_example>(.*)</valid_example>", text_of(bad)).group(1)))
        retry = await session.call_tool("create_note", example)
        return bad, example, retry

    bad, example, retry = run(body)
    assert bad.is_error
    text = text_of(bad)
    assert 'issues="4"' in text
    for field, code in [("title", "too_short"), ("tag", "pattern"), ("priority", "enum"), ("due_in_days", "too_large")]:
        assert f'<field name="{field}" code="{code}">' in text, text
    assert "<recovery>" in text
    assert set(example) >= {"title", "tag", "priority"}
    assert not retry.is_error, text_of(retry)
    assert retry.structured_content["title"] == example["title"]


def test_the_advertised_schema_is_strict():
    async def body(session):
        return {tool.name: tool for tool in (await session.list_tools()).tools}

    tools = run(body)
    schema = tools["list_notes"].input_schema
    assert schema["additionalProperties"] is False
    assert "$defs" not in schema
    # Advertised portable: an option is `anyOf` its closed type and null.
    ids, null = schema["properties"]["ids"]["anyOf"]
    assert null == {"type": "null"}
    assert ids["additionalProperties"] is False


def test_valid_calls_are_unchanged():
    calls = [
        ("create_note", {"title": "Buy milk", "tag": "home", "priority": "low"}),
        ("list_notes", {"tag": "work"}),
        ("list_notes", {}),
        ("echo", {"text": "<b>hello</b>"}),
    ]

    async def body(session):
        return [(await session.call_tool(name, args)).model_dump(mode="json") for name, args in calls]

    assert run(body) == run(body, unguarded=True)
