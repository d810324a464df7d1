"""The task tracker example, driven over stdio by the official Python `mcp` client."""

from conftest import session_run, text_of


def test_tools_are_listed_with_strict_schemas_and_examples():
    async def body(session):
        return (await session.list_tools()).tools

    tools = {tool.name: tool for tool in session_run("task_tracker", body)}
    assert {"list_tasks", "create_task", "update_task", "delete_task"} <= set(tools)
    for tool in tools.values():
        schema = tool.input_schema
        assert schema["type"] == "object"
        assert schema["additionalProperties"] is False
        assert schema["examples"], f"{tool.name} advertises an example"
        assert tool.description
    create = tools["create_task"].input_schema
    assert create["properties"]["status"]["enum"] == ["todo", "in_progress", "done", "blocked"]
    assert tools["delete_task"].annotations.destructive_hint is True
    assert tools["list_tasks"].annotations.read_only_hint is True


def test_a_valid_call_succeeds():
    async def body(session):
        return await session.call_tool(
            "create_task",
            {"title": "Write the release notes", "assignee": "ada", "due": "2026-12-01"},
        )

    result = session_run("task_tracker", body)
    assert not result.is_error, text_of(result)
    assert result.structured_content["title"] == "Write the release notes"
    assert result.structured_content["status"] == "todo"


def test_a_hallucinated_field_is_named_with_a_did_you_mean():
    async def body(session):
        return await session.call_tool(
            "create_task",
            {"title": "Write the release notes", "assignee": "ada", "due": "2026-12-01",
             "asignee_email": "ada@example.com", "priorty": 2},
        )

    result = session_run("task_tracker", body)
    assert result.is_error
    text = text_of(result)
    assert '<field name="priorty" code="unknown_field">' in text
    assert 'Did you mean "priority"?' in text
    assert '<field name="asignee_email" code="unknown_field">' in text
    assert "<valid_example>" in text and "<recovery>" in text


def test_wrong_types_in_several_fields_are_all_reported_with_what_was_sent():
    async def body(session):
        return await session.call_tool(
            "create_task",
            {"title": 42, "assignee": ["ada"], "due": "tomorrow", "priority": "high"},
        )

    result = session_run("task_tracker", body)
    assert result.is_error
    text = text_of(result)
    for field, sent in [("title", "42"), ("assignee", '["ada"]'), ("due", '"tomorrow"'),
                        ("priority", '"high"')]:
        assert f'<field name="{field}"' in text, field
        assert f"You sent: {sent}." in text, (field, text)


def test_a_large_list_is_truncated_with_a_teaching_block():
    async def body(session):
        return await session.call_tool("list_tasks", {})

    result = session_run("task_tracker", body)
    assert not result.is_error
    structured = result.structured_content
    assert structured["shown"] == 50
    assert structured["total"] > 1000
    assert len(structured["items"]) == 50
    text = text_of(result)
    assert '<truncated tool="list_tasks" shown="50"' in text
    assert '<filter name="status">' in text and "in_progress" in text
    assert '<filter name="due_before">' in text


def test_a_token_budgeted_page_resumes_right_after_its_last_task():
    async def body(session):
        first = await session.call_tool("read_tasks", {"assignee": "ada", "status": "done"})
        cursor = first.structured_content["next_cursor"]
        second = await session.call_tool(
            "read_tasks", {"assignee": "ada", "status": "done", "cursor": cursor}
        )
        return first, second

    first, second = session_run("task_tracker", body)
    assert not first.is_error and not second.is_error
    one, two = first.structured_content, second.structured_content
    # The budget, not the agent limit of 50, cut the page, at a task.
    assert 0 < one["shown"] < 50
    assert "token budget" in text_of(first)
    # The seeded tasks of ada that are done are those whose id is 10 more than a multiple of
    # 20: the pages hold each in turn, none twice, none skipped.
    ids = [task["id"] for task in one["items"] + two["items"]]
    assert ids == list(range(10, 20 * len(ids), 20))


def test_a_filtered_list_fits():
    async def body(session):
        return await session.call_tool(
            "list_tasks", {"status": "blocked", "assignee": "ada", "priority": 1}
        )

    result = session_run("task_tracker", body)
    assert not result.is_error
    items = result.structured_content["items"]
    assert all(item["status"] == "blocked" and item["assignee"] == "ada" for item in items)


def test_not_found_carries_recovery_and_available_actions():
    async def body(session):
        return await session.call_tool("delete_task", {"id": 99999999, "requested_by": "ada"})

    result = session_run("task_tracker", body)
    assert result.is_error
    text = text_of(result)
    assert '<tool_error tool="delete_task" code="NOT_FOUND">' in text
    assert "<recovery>" in text
    assert "<available_actions>list_tasks" in text


def test_an_unknown_tool_is_a_protocol_error():
    async def body(session):
        try:
            await session.call_tool("no_such_tool", {})
        except Exception as error:  # the SDK raises on JSON-RPC errors
            return error
        return None

    error = session_run("task_tracker", body)
    assert error is not None
    assert getattr(getattr(error, "error", None), "code", None) == -32602


REPORT_KEY = "dev.guardrails/report"


def test_a_rejection_carries_its_report_in_meta_beside_the_text():
    async def body(session):
        tools = await session.list_tools()
        create = next(tool for tool in tools.tools if tool.name == "create_task")
        # The tool advertises an output schema: the error must not put anything in
        # structuredContent that breaks it.
        assert create.output_schema is not None
        result = await session.call_tool(
            "create_task",
            {"title": 42, "assignee": "ada", "due": "2026-12-01", "priorty": 2},
        )
        return result

    result = session_run("task_tracker", body)
    assert result.is_error
    assert result.structured_content is None
    assert "<validation_error" in text_of(result)
    report = result.meta[REPORT_KEY]["error"]
    assert report["type"] == "validation"
    assert report["tool"] == "create_task"
    by_field = {issue["field"]: issue for issue in report["issues"]}
    assert by_field["title"]["code"] == "type"
    assert by_field["title"]["received"] == "42"
    assert by_field["title"]["expected"] == "a string"
    assert by_field["title"]["fix"]
    assert by_field["priorty"]["code"] == "unknown_field"
    assert report["validExample"]["title"]
    assert report["recovery"]


def test_a_tool_error_carries_its_report_in_meta():
    async def body(session):
        return await session.call_tool("delete_task", {"id": 99999999, "requested_by": "ada"})

    result = session_run("task_tracker", body)
    assert result.is_error
    assert result.structured_content is None
    report = result.meta[REPORT_KEY]["error"]
    assert report["type"] == "tool_error"
    assert report["code"] == "NOT_FOUND"
    assert "list_tasks" in report["availableActions"]


def test_a_success_carries_no_report():
    async def body(session):
        return await session.call_tool(
            "create_task",
            {"title": "Write the release notes", "assignee": "ada", "due": "2026-12-01"},
        )

    result = session_run("task_tracker", body)
    assert not result.is_error
    assert REPORT_KEY not in (result.meta or {})


def test_an_enum_with_data_and_a_flattened_struct_round_trip():
    """The schema of `schedule_task` (an `anyOf` of closed variants with `const` tags, beside a
    flattened field) is accepted by the SDK; a field of another kind is named as such, and the
    corrected call succeeds."""

    async def body(session):
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        wrong = await session.call_tool(
            "schedule_task",
            {"id": 1, "requested_by": "ada",
             "recurrence": {"kind": "weekly", "days": ["mon"], "count": 2, "until": "2026-12-01"}},
        )
        right = await session.call_tool(
            "schedule_task",
            {"id": 1, "requested_by": "ada", "recurrence": {"kind": "monthly", "day": 3}},
        )
        return tools["schedule_task"].input_schema, wrong, right

    schema, wrong, right = session_run("task_tracker", body)
    # Advertised portable: `anyOf` the closed variants, each tag a `const` with its `enum`.
    variants = schema["properties"]["recurrence"]["anyOf"]
    assert [v["properties"]["kind"]["const"] for v in variants] == ["weekly", "daily", "monthly"]
    assert [v["properties"]["kind"]["enum"] for v in variants] == [["weekly"], ["daily"], ["monthly"]]
    assert all(v["additionalProperties"] is False for v in variants)
    assert "requested_by" in schema["required"]
    assert wrong.is_error
    assert "`until` belongs to kind `daily`; you chose `weekly`." in text_of(wrong)
    assert not right.is_error, text_of(right)
    assert right.structured_content["schedule"] == "on day 3 of each month"
