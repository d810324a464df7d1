"""The create-user example (the tool of the LLM-friendly errors document), over stdio."""

from conftest import session_run, text_of


def test_schema_and_example():
    async def body(session):
        return (await session.list_tools()).tools

    tools = {tool.name: tool for tool in session_run("create_user", body)}
    schema = tools["create-user"].input_schema
    username = schema["properties"]["username"]
    assert (username["minLength"], username["maxLength"]) == (3, 20)
    assert username["pattern"] == "^[a-zA-Z0-9_]+$"
    assert schema["properties"]["email"]["format"] == "email"
    assert (schema["properties"]["age"]["minimum"], schema["properties"]["age"]["maximum"]) == (18, 120)
    assert schema["properties"]["role"]["enum"] == ["admin", "moderator", "user", "guest"]
    # Advertised portable: an option is `anyOf` its type and null, and distinctness is said in
    # the description (llguidance refuses `uniqueItems`); the server enforces both.
    tags, null = schema["properties"]["tags"]["anyOf"]
    assert null == {"type": "null"}
    assert (tags["minItems"], tags["maxItems"]) == (1, 5)
    assert "distinct" in schema["properties"]["tags"]["description"]
    assert sorted(schema["required"]) == ["age", "email", "role", "username"]


def test_the_three_issue_call_and_its_correction():
    async def body(session):
        bad = await session.call_tool(
            "create-user", {"username": "ab", "email": "not-an-email", "age": 15, "role": "user"}
        )
        good = await session.call_tool(
            "create-user",
            {"username": "john_doe", "email": "john@example.com", "age": 25, "role": "user",
             "tags": ["a", "b"]},
        )
        return bad, good

    bad, good = session_run("create_user", body)
    assert bad.is_error
    text = text_of(bad)
    assert 'issues="3"' in text
    for field in ["username", "email", "age"]:
        assert f'<field name="{field}"' in text
    assert not good.is_error, text_of(good)
    assert good.structured_content["username"] == "john_doe"
