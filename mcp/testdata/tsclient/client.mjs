// An independent MCP client for git-mem's process tests: the official
// TypeScript SDK client starts `git-mem mcp` over stdio in a repository,
// lists the tools, calls memory_add, memory_recall and memory_handoff, and
// prints what it got as one JSON object on stdout.
//
// usage: node client.mjs GIT_MEM_BINARY REPO_DIR CLIENT_NAME
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [binary, repo, name] = process.argv.slice(2);
if (!binary || !repo || !name) {
  console.error("usage: node client.mjs GIT_MEM_BINARY REPO_DIR CLIENT_NAME");
  process.exit(2);
}

const transport = new StdioClientTransport({
  command: binary,
  args: ["mcp"],
  cwd: repo,
  env: { ...process.env },
  stderr: "inherit",
});
const client = new Client({ name, version: "1.0.0" });

function text(result) {
  return (result.content || []).filter((c) => c.type === "text").map((c) => c.text).join("");
}

const out = {};
try {
  await client.connect(transport);
  out.server = client.getServerVersion();
  out.instructions = client.getInstructions();
  const tools = await client.listTools();
  out.tools = tools.tools.map((t) => ({ name: t.name, readOnly: !!(t.annotations && t.annotations.readOnlyHint) }));

  const add = await client.callTool({
    name: "memory_add",
    arguments: { text: "The TypeScript client test writes through git-mem mcp over stdio", type: "fact", tags: ["tsclient"] },
  });
  out.add = { isError: !!add.isError, text: text(add), structured: add.structuredContent };

  const recall = await client.callTool({ name: "memory_recall", arguments: { query: "TypeScript client stdio test", limit: 5 } });
  out.recall = { isError: !!recall.isError, text: text(recall), structured: recall.structuredContent };

  const handoff = await client.callTool({
    name: "memory_handoff",
    arguments: { done: "wired the TypeScript client test", next: "run it in CI", warnings: ["npm ci must run first"] },
  });
  out.handoff = { isError: !!handoff.isError, text: text(handoff), structured: handoff.structuredContent };

  const bad = await client.callTool({ name: "memory_show", arguments: { id: "ffffffff" } });
  out.unknown = { isError: !!bad.isError, text: text(bad) };
} catch (err) {
  out.error = String(err && err.stack ? err.stack : err);
} finally {
  await client.close().catch(() => {});
}
process.stdout.write(JSON.stringify(out) + "\n");
process.exit(out.error ? 1 : 0);
