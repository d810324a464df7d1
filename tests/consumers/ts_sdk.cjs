// The TypeScript MCP SDK's own client against one server over stdio: `listTools()` (which
// compiles a validator for every tool's `outputSchema` with the SDK's default validator), then
// `callTool()` for each call given (which validates the result's `structuredContent` against
// that schema). Reads {"modules", "command", "args", "calls": [{"name", "arguments"}]} as JSON
// on stdin and prints {"sdk", "list": {"ok", "error", "tools"}, "calls": {name: {"ok",
// "error", "structured", "isError"}}, "warnings": [..]} as JSON on stdout.
//
// Given {"modules", "schemas": [{"id", "schema", "example"}]} instead, it runs the same two
// steps of the SDK's own code on each schema as a tool's `outputSchema`, without a server: the
// tools/list result parsed as `listTools()` parses it, then the default validator compiled and
// run on the example. Prints {"sdk", "schemas": {id: {"ok", "error", "warnings"}}}.
"use strict";

const { createRequire } = require("node:module");
const fs = require("node:fs");
const path = require("node:path");

async function main() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const job = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const load = createRequire(path.join(job.modules, "noop.js"));
  const { Client } = load("@modelcontextprotocol/sdk/client/index.js");
  const { StdioClientTransport } = load("@modelcontextprotocol/sdk/client/stdio.js");
  const sdk = JSON.parse(
    fs.readFileSync(path.join(job.modules, "@modelcontextprotocol", "sdk", "package.json"), "utf8"),
  ).version;
  // What the SDK's validator says of a schema it only half reads (an unknown `format`, say)
  // goes to console.warn: kept, as what the client weakens.
  const warnings = [];
  console.warn = (...parts) => warnings.push(parts.map(String).join(" "));

  if (job.schemas) {
    const { ListToolsResultSchema } = load("@modelcontextprotocol/sdk/types.js");
    const { AjvJsonSchemaValidator } = load("@modelcontextprotocol/sdk/validation/ajv");
    const schemas = {};
    for (const probe of job.schemas) {
      warnings.length = 0;
      let error = null;
      try {
        ListToolsResultSchema.parse({
          tools: [{ name: "probe", inputSchema: { type: "object" }, outputSchema: probe.schema }],
        });
        const validate = new AjvJsonSchemaValidator().getValidator(probe.schema);
        const verdict = validate(probe.example);
        if (!verdict.valid) error = `the validator refuses the example: ${verdict.errorMessage}`;
      } catch (caught) {
        error = String(caught && caught.message ? caught.message : caught);
      }
      schemas[probe.id] = { ok: error === null, error, warnings: [...warnings] };
    }
    process.stdout.write(JSON.stringify({ sdk, schemas }));
    return;
  }

  const report = { sdk, warnings, list: { ok: false, error: null, tools: [] }, calls: {} };
  const transport = new StdioClientTransport({ command: job.command, args: job.args, stderr: "ignore" });
  const client = new Client({ name: "guardrails-consumer-tests", version: "1.0.0" });
  try {
    await client.connect(transport);
    try {
      const listed = await client.listTools();
      report.list = { ok: true, error: null, tools: listed.tools.map((t) => t.name) };
    } catch (error) {
      report.list.error = String(error && error.message ? error.message : error);
    }
    if (report.list.ok) {
      for (const call of job.calls) {
        try {
          const result = await client.callTool({ name: call.name, arguments: call.arguments });
          report.calls[call.name] = {
            ok: true,
            error: null,
            structured: result.structuredContent !== undefined,
            isError: Boolean(result.isError),
          };
        } catch (error) {
          report.calls[call.name] = {
            ok: false,
            error: String(error && error.message ? error.message : error),
            structured: false,
            isError: false,
          };
        }
      }
    }
  } finally {
    await client.close();
  }
  process.stdout.write(JSON.stringify(report));
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack ? error.stack : error));
  process.exit(1);
});
