// A proxy component (acp-kit conduct) that gives the agent a tool of its own: it adds an MCP server
// to every session/new on its way to the agent and serves it itself over the ACP connection
// (MCP over ACP: the agent calls it with mcp/message requests; no process, no port). The server
// knows the conversation: its `session_notes` tool answers with the prompts this component saw.
// The conductor advertises MCP over ACP to its components and bridges it for an agent without
// it (a stdio shim), so the injection works in front of any agent.
//   acp-kit conduct -- node examples/mcp-tool-component.mjs -- acp-kit agent
//   acp-kit conduct --component examples/mcp-tool-component.mjs -- acp-kit agent
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { defineComponent, injectMcpServer, runComponentIfMain } from 'acp-kit/proxy';

const NAME = process.env.MCP_TOOL_SERVER ?? 'notes';
/** serverId -> the injected server's handler of `mcp/message` */
const injections = new Map();
/** The text of every prompt that passed, oldest first. */
const prompts = [];

function notesServer() {
  const server = new McpServer({ name: NAME, version: '1.0.0' });
  server.registerTool(
    'session_notes',
    { description: 'What the user asked so far in this chain', annotations: { readOnlyHint: true } },
    async () => ({ content: [{ type: 'text', text: `notes: ${prompts.length} prompt(s): ${prompts.join(' | ')}` }] }),
  );
  return server;
}

/** A session setup on its way to the agent: the server joins the client's ones. */
function inject(params, next) {
  const injection = injectMcpServer(params, { name: NAME, server: notesServer() });
  injections.set(injection.declaration.serverId, injection);
  return next(injection.params);
}

const mcpTool = defineComponent({
  onPrompt(req, next) {
    prompts.push(req.prompt.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join(' '));
    return next(req);
  },
  toAgent: { 'session/new': inject, 'session/load': inject, 'session/resume': inject },
  toClient: {
    // the agent's MCP requests: this component's server answers its own, the rest go on to the client
    'mcp/message'(params, next, ctx) {
      const injection = injections.get(params?.serverId);
      const notify = (method, p) => ctx.toAgent.notify(method, p);
      return injection?.handleRequest('mcp/message', params, { signal: ctx.signal, notify }) ?? next(params);
    },
  },
});

export default mcpTool;
runComponentIfMain(import.meta.url, mcpTool);
