"""Every tool of the example servers, called through the official Python SDK on both protocol
revisions (each test runs on 2026-07-28 and on 2025-11-25, see `conftest.revision`): structured
results, cut results with their teaching blocks, errors and their `_meta` reports arrive intact
on both."""

import json

import pytest

from conftest import LEGACY, http_session_run, session_run, text_of

REPORT_KEY = "dev.guardrails/report"
TOKEN = "t" * 24

# A valid call of every task tracker tool but `update_task`, `schedule_task` and `delete_task`,
# which need the id of a task created first.
TRACKER_CALLS = [
    ("list_tasks", {}),
    ("read_tasks", {"assignee": "ada"}),
    ("create_task", {"title": "Write the release notes", "assignee": "ada", "due": "2026-12-01"}),
    ("task_report", {"assignee": "ada", "status": "blocked"}),
    ("export_tasks", {"destination": {"url": "https://example.com/hook", "token": TOKEN}}),
]


def first_json(result):
    return json.loads(result.content[0].text)


def test_every_task_tracker_tool_answers(revision):
    async def body(session):
        tools = (await session.list_tools()).tools
        results = {name: await session.call_tool(name, args) for name, args in TRACKER_CALLS}
        task = results["create_task"].structured_content
        results["update_task"] = await session.call_tool("update_task", {"id": task["id"], "status": "done"})
        results["schedule_task"] = await session.call_tool("schedule_task", {
            "id": task["id"], "requested_by": "ada", "recurrence": {"kind": "monthly", "day": 3}})
        results["delete_task"] = await session.call_tool("delete_task", {"id": task["id"], "requested_by": "ada"})
        return tools, results

    tools, results = session_run("task_tracker", body)
    assert {tool.name for tool in tools} == set(results)
    for name, result in results.items():
        assert not result.is_error, (name, text_of(result))
        assert REPORT_KEY not in (result.meta or {}), name
    # Every object result is `structuredContent` on both revisions, and the first text block
    # holds the same value for a client that reads only text.
    for name in ["create_task", "update_task", "schedule_task", "delete_task", "export_tasks"]:
        structured = results[name].structured_content
        assert isinstance(structured, dict), (revision, name)
        assert first_json(results[name]) == structured, name
    assert results["update_task"].structured_content["status"] == "done"
    assert results["schedule_task"].structured_content["schedule"] == "on day 3 of each month"
    exported = results["export_tasks"].structured_content
    assert exported["url"] == "https://example.com/hook" and exported["count"] > 1000
    assert results["task_report"].structured_content is None
    assert "task(s) assigned to ada" in text_of(results["task_report"])


def test_a_cut_page_and_the_next_one_arrive_intact(revision):
    async def body(session):
        first = await session.call_tool("list_tasks", {})
        second = await session.call_tool("list_tasks", {"offset": 50})
        return first, second

    first, second = session_run("task_tracker", body)
    structured = first.structured_content
    assert (structured["shown"], len(structured["items"])) == (50, 50)
    assert structured["total"] > 1000
    # The data first, the teaching block right after it: what a model reads on both revisions.
    assert len(first.content) == 2
    assert first_json(first) == structured
    teaching = first.content[1].text
    assert teaching.startswith('<truncated tool="list_tasks" shown="50"'), teaching
    assert '<filter name="status">' in teaching
    assert "offset" in teaching
    assert not second.is_error, text_of(second)
    ids = {item["id"] for item in structured["items"]}
    assert ids.isdisjoint(item["id"] for item in second.structured_content["items"])


@pytest.mark.parametrize("name", ["list_tasks", "create_task", "update_task", "delete_task",
                                  "task_report", "export_tasks", "schedule_task"])
def test_every_task_tracker_tool_coaches_a_misspelt_key_with_its_report(revision, name):
    async def body(session):
        return await session.call_tool(name, {"asignee": "ada"})

    result = session_run("task_tracker", body)
    assert result.is_error
    assert result.structured_content is None
    assert f'<validation_error tool="{name}"' in text_of(result)
    report = result.meta[REPORT_KEY]["error"]
    assert report["type"] == "validation"
    assert report["tool"] == name
    assert "asignee" in {issue["field"] for issue in report["issues"]}
    assert isinstance(report["validExample"], dict)


def test_a_tool_error_arrives_with_its_report(revision):
    async def body(session):
        return await session.call_tool("update_task", {"id": 99999999, "status": "done"})

    result = session_run("task_tracker", body)
    assert result.is_error
    assert '<tool_error tool="update_task" code="NOT_FOUND">' in text_of(result)
    report = result.meta[REPORT_KEY]["error"]
    assert (report["type"], report["code"]) == ("tool_error", "NOT_FOUND")


def test_create_user_answers_and_coaches(revision):
    async def body(session):
        tools = (await session.list_tools()).tools
        example = tools[0].input_schema["examples"][0]
        good = await session.call_tool(tools[0].name, example)
        bad = await session.call_tool(tools[0].name, {"usrname": "ab"})
        return tools, good, bad

    tools, good, bad = session_run("create_user", body)
    assert [tool.name for tool in tools] == ["create-user"]
    assert not good.is_error, text_of(good)
    assert bad.is_error
    assert bad.meta[REPORT_KEY]["error"]["type"] == "validation"


def test_every_notes_tool_answers_through_the_router_guard(revision):
    calls = [
        ("create_note", {"title": "Buy milk", "tag": "home", "priority": "low"}),
        ("list_notes", {"tag": "work"}),
        ("echo", {"text": "hi"}),
    ]

    async def body(session):
        tools = (await session.list_tools()).tools
        results = [await session.call_tool(name, args) for name, args in calls]
        refused = await session.call_tool("echo", {"txt": "hi"})
        return tools, results, refused

    tools, (created, listed, echoed), refused = session_run("notes_server", body)
    assert {tool.name for tool in tools} == {name for name, _ in calls}
    assert created.structured_content["title"] == "Buy milk"
    assert all(note["tag"] == "work" for note in listed.structured_content["notes"])
    assert text_of(echoed) == "hi"
    assert refused.is_error
    assert refused.meta[REPORT_KEY]["error"]["issues"]


def test_a_structured_list_cut_by_the_guard_reads_the_same_on_both_revisions(revision):
    async def body(session):
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        return tools, await session.call_tool("names", {"count": 10})

    tools, result = session_run("shapes_server", body, args=["listing"])
    shown = ["name 1", "name 2", "name 3"]
    assert not result.is_error
    # The cut list first, the teaching block second: nothing else, nothing uncut.
    assert len(result.content) == 2, result.content
    assert first_json(result) == shown
    assert result.content[1].text.startswith('<truncated tool="names" shown="3" total="10">')
    if revision == LEGACY:
        # Before 2026-07-28, `structuredContent` and `outputSchema` are objects or absent:
        # rmcp leaves the list out, and the text block carries it.
        assert result.structured_content is None
        assert tools["names"].output_schema is None
    else:
        assert result.structured_content == shown
        assert tools["names"].output_schema["type"] == "array"


def test_a_structured_string_cut_by_the_guard_reads_the_same_on_both_revisions(revision):
    async def body(session):
        return await session.call_tool("letters", {})

    result = session_run("shapes_server", body, args=["listing"])
    assert not result.is_error
    assert len(result.content) == 2, result.content
    assert first_json(result) == "abcdefgh"
    assert 'bytes_shown="8"' in result.content[1].text
    assert result.structured_content == (None if revision == LEGACY else "abcdefgh")


def test_every_conformance_server_tool_answers_over_http(revision):
    async def body(session):
        tools = (await session.list_tools()).tools
        simple = await session.call_tool("test_simple_text", {})
        failing = await session.call_tool("test_error_handling", {})
        listed = await session.call_tool("list_tasks", {})
        refused = await session.call_tool("create_task", {"titel": "x"})
        return tools, simple, failing, listed, refused

    tools, simple, failing, listed, refused = http_session_run("conformance_server", body)
    assert {"test_simple_text", "test_error_handling", "list_tasks"} <= {tool.name for tool in tools}
    assert text_of(simple) == "This is a simple text response for testing."
    assert failing.is_error
    assert failing.meta[REPORT_KEY]["error"]["code"] == "INTERNAL"
    structured = listed.structured_content
    assert (structured["shown"], structured["total"]) == (50, 1000)
    assert first_json(listed) == structured
    assert listed.content[1].text.startswith('<truncated tool="list_tasks" shown="50"')
    assert refused.is_error
    assert "titel" in {issue["field"] for issue in refused.meta[REPORT_KEY]["error"]["issues"]}
