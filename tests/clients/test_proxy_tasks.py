"""Tasks (the `io.modelcontextprotocol/tasks` extension) pass through `guardrails proxy`: the
official Python client, declaring the extension, drives the research server (a native rmcp
server whose long call runs as a task, `tests/support/research_server.rs`) through the proxy and
directly, and sees the same task: its statuses polled with `tasks/get`, its status
notifications, its result, its question to the client answered with `tasks/update`, its
cancellation. Through the proxy the call's arguments are guarded
first (a refused call creates no task), and a task's result is checked against the tool's
`outputSchema` as a plain call's is.

The SDK types no client for the extension; it reads a `resultType` it does not know through a
claim of an extension, and sends any request: the test's client is written with both."""

import asyncio
import contextlib
import json
import tempfile
from typing import Any, Literal

import httpx2

from pydantic import TypeAdapter

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.extension import NotificationBinding, ResultClaim
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

import conftest
from conftest import example_binary, open_session, text_of
from test_proxy import guardrails_binary

TASKS = "io.modelcontextprotocol/tasks"
TERMINAL = {"completed", "failed", "cancelled"}


class CreatedTask(types.Result):
    """A call answered with a task (`resultType: "task"`)."""

    result_type: Literal["task"]
    task_id: str
    status: str
    status_message: str | None = None


class TaskParams(types.RequestParams):
    task_id: str


class GetTask(types.Request[TaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: TaskParams


class CancelTask(types.Request[TaskParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    params: TaskParams


class UpdateParams(types.RequestParams):
    task_id: str
    input_responses: dict[str, Any]


class UpdateTask(types.Request[UpdateParams, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    params: UpdateParams


class TaskNews(types.NotificationParams):
    """The params of a task status notification (`notifications/tasks`)."""

    task_id: str
    status: str
    status_message: str | None = None
    result: dict[str, Any] | None = None


RAW = TypeAdapter(dict[str, Any])


async def unresolved(result, context):
    raise AssertionError("the test reads each task itself")


class Client:
    """A client that has tasks, and the task status notifications it received."""

    def __init__(self):
        self.news: list[TaskNews] = []
        self.progress: list[types.ProgressNotificationParams] = []

    async def on_task(self, params: TaskNews):
        self.news.append(params)

    async def on_message(self, message):
        if isinstance(message, types.ProgressNotification):
            self.progress.append(message.params)

    def progress_of(self, token):
        return [(note.progress, note.total, note.message) for note in self.progress if note.progress_token == token]

    def options(self):
        return dict(
            message_handler=self.on_message,
            extensions={TASKS: {}},
            result_claims={TASKS: [ResultClaim(result_type="task", model=CreatedTask, resolve=unresolved)]},
            notification_bindings=[
                NotificationBinding(method="notifications/tasks", params_type=TaskNews, handler=self.on_task)
            ],
        )

    def news_of(self, task_id):
        return [(news.status, news.status_message) for news in self.news if news.task_id == task_id]


async def poll(session, task_id, until=TERMINAL):
    """Every status (and message) of the task, as `tasks/get` showed them in turn, until one of
    `until`, and the last answer."""
    seen = []
    for _ in range(400):
        task = await session.send_request(GetTask(params=TaskParams(task_id=task_id)), RAW)
        now = (task["status"], task.get("statusMessage"))
        if not seen or seen[-1] != now:
            seen.append(now)
        if task["status"] in until:
            return seen, task
        await asyncio.sleep(0.02)
    raise AssertionError(f"the task did not end: {seen}")


async def wait_for(predicate):
    await conftest.wait_for(predicate, seconds=5, step=0.02)


async def created(session):
    return int(text_of(await session.call_tool("tasks-created", {})))


async def as_tasks(session, client, proxied):
    """The research run as tasks: one to its end, one whose result breaks the output schema,
    one that asks a question, one cancelled, and (through the proxy) a call the guard
    refuses."""
    tools = sorted(tool.name for tool in (await session.list_tools()).tools)
    task = await session.call_tool("research", {"topic": "tides", "stages": 3}, allow_claimed=True)
    assert isinstance(task, CreatedTask), task
    statuses, done = await poll(session, task.task_id)
    await wait_for(lambda: ("completed", "Stage 3 of 3") in client.news_of(task.task_id))
    malformed = await session.call_tool("research", {"topic": "malformed", "stages": 1}, allow_claimed=True)
    _, malformed_done = await poll(session, malformed.task_id)
    # A task that asks its client a question first, answered with `tasks/update`.
    ambiguous = await session.call_tool("research", {"topic": "ambiguous", "stages": 1}, allow_claimed=True)
    _, asking = await poll(session, ambiguous.task_id, until={"input_required"})
    answer = {"meaning": {"action": "accept", "content": {"meaning": "tidal"}}}
    await session.send_request(UpdateTask(params=UpdateParams(task_id=ambiguous.task_id, input_responses=answer)), RAW)
    _, answered = await poll(session, ambiguous.task_id)
    long = await session.call_tool("research", {"topic": "tides", "stages": 5}, allow_claimed=True)
    await session.send_request(CancelTask(params=TaskParams(task_id=long.task_id)), RAW)
    cancelled, _ = await poll(session, long.task_id)
    before = await created(session)
    refused = None
    if proxied:
        refused = await session.call_tool("research", {"topic": "tides", "stages": 9}, allow_claimed=True)
    return {
        "tools": tools,
        "created": (task.status, task.status_message),
        "statuses": statuses,
        "notifications": client.news_of(task.task_id),
        "result": (done["status"], done["result"]["structuredContent"], done["result"].get("isError")),
        "malformed": malformed_done,
        "question": asking["inputRequests"],
        "answered": (answered["status"], answered["result"]["structuredContent"]),
        "cancelled": cancelled[-1],
        "tasks created": (before, await created(session)),
        "refused": refused,
    }


async def as_calls(session, client, proxied):
    """The research run by a client without tasks: a plain call, and no task."""
    result = await session.call_tool("research", {"topic": "tides", "stages": 2})
    return {
        "result": (result.is_error, result.structured_content),
        "tasks created": await created(session),
        "notifications": len(client.news),
    }


def run(proxied: bool, revision: str, body=None, proxy_args=()):
    client = Client()
    server = example_binary("research_server")
    # Claims of extensions, and so tasks, are the 2026-07-28 revision's: an older client is not
    # told of tasks and calls the tool as any other.
    body = body or (as_tasks if revision == conftest.MODERN else as_calls)

    async def go():
        if proxied:
            params = StdioServerParameters(command=guardrails_binary(), args=["proxy", *proxy_args, "--", server])
        else:
            params = StdioServerParameters(command=server, args=[])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write, **client.options()) as session:
                await open_session(session, revision)
                return await asyncio.wait_for(body(session, client, proxied), 60)

    return asyncio.run(go())


def test_a_task_runs_through_the_proxy_as_it_runs_alone(revision):
    alone = run(proxied=False, revision=revision)
    proxied = run(proxied=True, revision=revision)
    if revision == conftest.LEGACY:
        assert alone == {"result": (False, {"topic": "tides", "stages": 2}), "tasks created": 0, "notifications": 0}
        assert proxied == alone, (proxied, alone)
        return
    # What the server alone does: a task that goes through its stages and ends with the report.
    assert alone["created"] == ("working", "Stage 1 of 3"), alone
    stages = [("working", f"Stage {stage} of 3") for stage in (1, 2, 3)]
    assert alone["statuses"] == [*stages, ("completed", "Stage 3 of 3")], alone
    assert alone["notifications"] == alone["statuses"], alone
    assert alone["result"] == ("completed", {"topic": "tides", "stages": 3}, False), alone
    assert alone["cancelled"][0] == "cancelled", alone
    assert alone["malformed"]["result"]["structuredContent"] == {"topic": "malformed", "stages": "1"}, alone
    assert alone["question"]["meaning"]["params"]["message"] == "Which meaning of the topic?", alone
    assert alone["answered"] == ("completed", {"topic": "ambiguous (tidal)", "stages": 1}), alone
    # Through the proxy: the same task, seen the same way.
    for key in ("tools", "created", "statuses", "notifications", "result", "question", "answered", "cancelled"):
        assert proxied[key] == alone[key], (key, proxied[key], alone[key])
    assert proxied["tasks created"] == (4, 4), proxied
    # A task's result is checked against the tool's output schema, as a call's is.
    malformed = proxied["malformed"]
    assert malformed["status"] == "completed", malformed
    assert malformed["result"]["isError"] is True, malformed
    text = malformed["result"]["content"][0]["text"]
    assert text.startswith('<tool_error tool="research" code="INTERNAL">'), text
    assert "does not match the tool's outputSchema" in text, text
    # A call the guard refuses is answered with the coaching error, and creates no task.
    refused = proxied["refused"]
    assert isinstance(refused, types.CallToolResult) and refused.is_error, refused
    assert text_of(refused).startswith('<validation_error tool="research"'), text_of(refused)


async def progress_of_a_task(session, client, proxied):
    """The progress of a call the server answered with a task, sent while the task runs: under
    the client's own token, after the answer."""
    token = "research-progress"
    task = await session.call_tool(
        "research", {"topic": "tides", "stages": 3}, meta={"progressToken": token}, allow_claimed=True
    )
    assert isinstance(task, CreatedTask), task
    await poll(session, task.task_id)
    await wait_for(lambda: len(client.progress_of(token)) == 3)
    # A later call with no token: none of its progress reaches the client.
    other = await session.call_tool("research", {"topic": "tides", "stages": 1}, allow_claimed=True)
    await poll(session, other.task_id)
    return client.progress_of(token), [note.progress_token for note in client.progress]


def test_a_tasks_progress_reaches_the_client_after_the_answer(revision):
    if revision == conftest.LEGACY:
        return
    alone = run(proxied=False, revision=revision, body=progress_of_a_task)
    proxied = run(proxied=True, revision=revision, body=progress_of_a_task)
    stages = [(float(stage), 3.0, f"Stage {stage} of 3") for stage in (1, 2, 3)]
    assert alone == (stages, ["research-progress"] * 3), alone
    assert proxied == alone, (proxied, alone)


POLICY = """
[[rule]]
name = "no_secrets"
severity = "critical"
pattern = 'classified'
message = "Classified topics are not reported."
"""


def test_a_task_result_is_held_to_the_tools_result_policy(revision, tmp_path):
    rules = tmp_path / "rules.toml"
    rules.write_text(POLICY)

    async def research(session, client, proxied):
        if revision == conftest.LEGACY:
            return await session.call_tool("research", {"topic": "classified tides", "stages": 1}), []
        task = await session.call_tool("research", {"topic": "classified tides", "stages": 1}, allow_claimed=True)
        _, done = await poll(session, task.task_id)
        await wait_for(lambda: any(news.status == "completed" for news in client.news))
        news = [news.result for news in client.news if news.status == "completed"]
        return types.CallToolResult.model_validate(done["result"]), [
            types.CallToolResult.model_validate(result) for result in news
        ]

    result, notified = run(True, revision, body=research, proxy_args=["--result-policy", f"research={rules}"])
    # Whether read with `tasks/get`, told in a status notification, or returned by a plain call,
    # the result is withheld behind the policy's tool error.
    assert len(notified) == (0 if revision == conftest.LEGACY else 1), notified
    for withheld in [result, *notified]:
        assert withheld.is_error, withheld
        assert "no_secrets" in text_of(withheld), text_of(withheld)
        assert "classified" not in text_of(withheld), text_of(withheld)


@contextlib.contextmanager
def http_proxy():
    """`guardrails proxy --http` in front of the research server on a free local port: its URL
    (the proxy's log goes to a temporary file)."""

    def command(address):
        return [guardrails_binary(), "proxy", "--http", address, "--", example_binary("research_server")]

    with tempfile.TemporaryFile() as log, conftest.serving_http(command, stderr=log) as url:
        yield url


async def name_the_task(request):
    """Writes the `Mcp-Method` and `Mcp-Name` headers of a request of the tasks extension, which
    the SDK writes for the methods it knows only."""
    if request.method != "POST":
        return
    try:
        body = json.loads(request.content)
    except ValueError:
        return
    if isinstance(body, dict) and str(body.get("method", "")).startswith("tasks/"):
        request.headers["Mcp-Method"] = body["method"]
        request.headers["Mcp-Name"] = body["params"]["taskId"]


@contextlib.asynccontextmanager
async def http_client(url, revision, credentials, client=None):
    """A session over Streamable HTTP at `revision` that sends `credentials`, with the tasks
    extension when `client` is given."""
    options = client.options() if client else {}
    async with httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {credentials}"},
        timeout=30,
        event_hooks={"request": [name_the_task]},
    ) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write, **options) as session:
                await open_session(session, revision)
                yield session


async def refused(session, request):
    """The error a request is answered with."""
    try:
        await session.send_request(request, RAW)
    except MCPError as error:
        return error.code, error.message
    raise AssertionError(f"{request.method} was answered")


def test_clients_sharing_one_upstream_see_their_own_tasks_only(revision):
    """Three clients of one `guardrails proxy --http`, and so of one research server: Alice and
    Carol declare tasks, Bob (at the revision of the run) does not. Alice's task is hers alone;
    Bob's calls are plain calls, the tasks the server answers them with followed by the proxy,
    and cancelled with his call."""
    alice, carol = Client(), Client()

    async def alices(session):
        task = await session.call_tool("research", {"topic": "tides", "stages": 3}, allow_claimed=True)
        assert isinstance(task, CreatedTask), task
        return task

    async def bobs(session):
        result = await session.call_tool("research", {"topic": "reefs", "stages": 2})
        coached = await session.call_tool("research", {"topic": "reefs", "stages": 9})
        return result, coached

    async def go(url):
        async with (
            http_client(url, conftest.MODERN, "alice", alice) as a,
            http_client(url, revision, "bob") as b,
            http_client(url, conftest.MODERN, "carol", carol) as c,
        ):
            task, (plain, coached) = await asyncio.gather(alices(a), bobs(b))
            # Carol cannot read, answer or cancel Alice's task: it is unknown to her, as a task
            # that does not exist is.
            of_carol = [
                await refused(c, GetTask(params=TaskParams(task_id=task.task_id))),
                await refused(c, UpdateTask(params=UpdateParams(task_id=task.task_id, input_responses={}))),
                await refused(c, CancelTask(params=TaskParams(task_id=task.task_id))),
            ]
            nowhere = await refused(c, GetTask(params=TaskParams(task_id="no-such-task")))
            statuses, done = await poll(a, task.task_id)
            # Bob gives up on a long call: the proxy cancels the task it follows for him.
            cancelled_before = int(text_of(await a.call_tool("tasks-cancelled", {})))
            try:
                await b.call_tool("research", {"topic": "reefs", "stages": 5}, read_timeout_seconds=0.5)
                gave_up = False
            except (MCPError, TimeoutError):
                gave_up = True
            cancelled = None
            for _ in range(100):
                cancelled = int(text_of(await a.call_tool("tasks-cancelled", {})))
                if cancelled > cancelled_before:
                    break
                await asyncio.sleep(0.05)
            return {
                "task": task,
                "plain": plain,
                "coached": coached,
                "of carol": of_carol,
                "nowhere": nowhere,
                "statuses": statuses,
                "done": done,
                "gave up": gave_up,
                "cancelled": (cancelled_before, cancelled),
                "created": int(text_of(await a.call_tool("tasks-created", {}))),
            }

    with http_proxy() as url:
        seen = asyncio.run(asyncio.wait_for(go(url), 60))
    task = seen["task"]
    assert seen["statuses"][-1][0] == "completed", seen["statuses"]
    assert seen["done"]["result"]["structuredContent"] == {"topic": "tides", "stages": 3}, seen["done"]
    # Bob never sees a task: his call is answered with the research itself, and his invalid
    # call is coached by the guard.
    plain = seen["plain"]
    assert isinstance(plain, types.CallToolResult) and not plain.is_error, plain
    assert plain.structured_content == {"topic": "reefs", "stages": 2}, plain
    assert seen["coached"].is_error and text_of(seen["coached"]).startswith('<validation_error tool="research"')
    # The server ran his calls as tasks too (the proxy told it of tasks for all its clients):
    # Alice's, Bob's, and the one he gave up on, which was cancelled.
    assert seen["created"] == 3, seen
    assert seen["gave up"], seen
    assert seen["cancelled"][1] == seen["cancelled"][0] + 1, seen["cancelled"]
    code, message = seen["nowhere"]
    assert message == "unknown task: no-such-task", seen["nowhere"]
    assert seen["of carol"] == [(code, f"unknown task: {task.task_id}")] * 3, seen["of carol"]
    # Nothing of Alice's task reached Carol.
    assert carol.news == [] and carol.progress == [], (carol.news, carol.progress)
