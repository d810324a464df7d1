"""Sends many large requests to a Streamable HTTP server at once and prints what came back, and
with --pid the server's peak resident memory (VmHWM) and its resident memory after the load.

    python3 tests/scale/big_bodies.py http://127.0.0.1:8080/mcp --pid PID [--clients 64] [--bytes 1048000]

Each request is a `tools/call` of `create_task` whose `labels` hold many short strings: the
shape that costs a JSON parser the most memory per byte of body. Standard library only."""

import argparse
import collections
import http.client
import json
import threading
import urllib.parse


def post(url, body, session=None):
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=120)
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if session:
        headers["Mcp-Session-Id"] = session
        headers["MCP-Protocol-Version"] = "2025-11-25"
    connection.request("POST", parts.path, body=body, headers=headers)
    response = connection.getresponse()
    text = response.read().decode("utf-8", "replace")
    result = (response.status, response.getheader("Mcp-Session-Id"), text)
    connection.close()
    return result


def memory(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return fields["VmHWM"], fields["VmRSS"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--pid", type=int)
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--bytes", type=int, default=1_048_000)
    args = parser.parse_args()

    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "big-bodies", "version": "0"}}}
    status, session, _ = post(args.url, json.dumps(init))
    assert status == 200, status
    post(args.url, json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}), session)

    # `"ab",` is five bytes of compact JSON.
    labels = ["ab"] * ((args.bytes - 200) // 5)
    sizes = []
    start = threading.Barrier(args.clients)
    outcomes = collections.Counter()
    lock = threading.Lock()

    def client(n):
        body = json.dumps({"jsonrpc": "2.0", "id": n + 1, "method": "tools/call", "params": {
            "name": "create_task", "arguments": {
                "title": "Big", "assignee": "ada", "due": "2026-12-01", "labels": labels}}},
            separators=(",", ":"))
        sizes.append(len(body))
        start.wait()
        status, _, text = post(args.url, body, session)
        with lock:
            outcomes[status] += 1

    if args.pid:
        print("before: peak %s, resident %s" % memory(args.pid))
    threads = [threading.Thread(target=client, args=(n,)) for n in range(args.clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(f"{args.clients} requests of {max(sizes)} bytes: statuses {dict(outcomes)}")
    if args.pid:
        print("after: peak %s, resident %s" % memory(args.pid))


if __name__ == "__main__":
    main()
