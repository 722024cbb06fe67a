#!/usr/bin/env node
// An ACP agent written once against acp-kit's version-neutral model and served on stdio.
// The runtime negotiates v1 or v2 with each client and encodes everything for that version:
// this file never mentions a protocol version.
//
// Each prompt turn:
//   1. shows a two-step plan,
//   2. announces a tool call and asks the user for permission to run it,
//   3. streams the prompt text back in small chunks (a "You said: ..." agent message),
//   4. completes the tool call and the plan, and ends the turn with `end_turn`.
// A rejected permission fails the tool call and ends the turn without echoing.
// Cancellation (`session/cancel`, `session/close`, the client going away) aborts `turn.signal`;
// the agent stops streaming at once and the turn ends `cancelled`.
//
// MCP: the MCP servers the client passes (`mcpServers`) are connected for the session
// (`acp-kit/agent/mcp`; the agent runtime itself connects none), and the prompt
// `/mcp <server> <tool> <json arguments>` (the slash is optional) calls one of their tools and
// shows the result as a tool call. Dropping the client's servers would break ACP-V1-SESS-01 (MUST:
// every agent supports stdio MCP servers); an echo agent has no model to pick tools, so the user
// names the call.
//
//   node examples/echo-agent.mjs [--chunk-delay <ms>] [--chunk-size <chars>]
//
// Try it: `node examples/client.mjs` (spawns this agent), or `npx acp-kit run -- node examples/echo-agent.mjs`.
import { parseArgs } from 'node:util';
import { runAgentOnStdio } from 'acp-kit/agent';
import { closeSessionMcp, connectSessionMcp, MCP_CAPABILITIES, sessionMcpServers } from 'acp-kit/agent/mcp';

const { values: opts } = parseArgs({
  options: {
    'chunk-delay': { type: 'string', default: '20' },
    'chunk-size': { type: 'string', default: '8' },
  },
});
const chunkDelayMs = Number(opts['chunk-delay']);
const chunkSize = Math.max(1, Number(opts['chunk-size']));

/** Resolves after `ms`; rejects with an AbortError when `signal` aborts (the runtime reads that as `cancelled`). */
function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    let timer;
    const abort = () => {
      clearTimeout(timer);
      reject(Object.assign(new Error('cancelled'), { name: 'AbortError' }));
    };
    if (signal.aborted) return abort();
    timer = setTimeout(() => {
      signal.removeEventListener('abort', abort);
      resolve();
    }, ms);
    signal.addEventListener('abort', abort, { once: true });
  });
}

/** The plan as one neutral snapshot (v1 has one implicit plan; v2 keys plans by `planId`). */
function plan(echoStatus, doneStatus) {
  return {
    sessionUpdate: 'plan_update',
    plan: {
      type: 'items',
      planId: 'main',
      entries: [
        { content: 'Echo the prompt back', priority: 'high', status: echoStatus },
        { content: 'Finish the turn', priority: 'low', status: doneStatus },
      ],
    },
  };
}

/** `/mcp <server> <tool> <json>` (slash optional): the parts, or undefined for any other prompt. */
function mcpRequest(text) {
  const m = /^\/?mcp\s+(\S+)\s+(\S+)\s*([\s\S]*)$/.exec(text.trim());
  return m ? { server: m[1], tool: m[2], json: m[3].trim() || '{}' } : undefined;
}

/** Calls one tool of the session's MCP servers as a tool call of this turn. */
async function callMcpTool(turn, { server, tool, json }) {
  const { session } = turn;
  const say = (text) =>
    turn.send({
      sessionUpdate: 'agent_message_chunk',
      messageId: session.newId('msg'),
      content: { type: 'text', text },
    });
  const found = sessionMcpServers(session)?.tool(server, tool);
  if (!found) {
    await say(`No tool "${tool}" on a connected MCP server "${server}".`);
    return 'end_turn';
  }
  let args;
  try {
    args = JSON.parse(json);
  } catch (e) {
    await say(`The arguments are not JSON: ${e.message}`);
    return 'end_turn';
  }
  // no permission question: the user typed this very call
  const toolCallId = session.newId('mcp');
  const title = `${tool} (MCP ${server})`;
  await turn.send({
    sessionUpdate: 'tool_call_update',
    toolCallId,
    title,
    kind: found.readOnly ? 'read' : 'other',
    status: 'in_progress',
    rawInput: args,
  });
  try {
    const result = await found.call(args, { signal: turn.signal });
    await turn.send({
      sessionUpdate: 'tool_call_update',
      toolCallId,
      status: result.isError ? 'failed' : 'completed',
      content: result.content,
    });
  } catch (e) {
    if (turn.signal.aborted) {
      await turn.send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'cancelled' });
      return 'cancelled';
    }
    await turn.send({
      sessionUpdate: 'tool_call_update',
      toolCallId,
      status: 'failed',
      rawOutput: { error: e.message },
    });
  }
  return 'end_turn';
}

/** @type {import('acp-kit/agent').AgentDefinition} */
const echoAgent = {
  info: { name: 'echo-agent', title: 'Echo agent (acp-kit example)', version: '0.1.0' },
  // advertise the MCP transports the client may pass: exactly those `connectSessionMcp` connects
  capabilities: { prompt: { embeddedContext: true }, mcp: MCP_CAPABILITIES },

  async openSession(session) {
    // before the session/new (load, resume) response: the tools are there for the first prompt
    const servers = await connectSessionMcp(session);
    if (servers.tools().length === 0) return {};
    return {
      availableCommands: [
        {
          name: 'mcp',
          description: 'Call a tool of an MCP server',
          input: { hint: '<server> <tool> <json arguments>' },
        },
      ],
    };
  },
  // ends the session's MCP server processes and connections
  closeSession: closeSessionMcp,

  async prompt(turn) {
    const { session, signal } = turn;
    const text = turn.prompt
      .map((block) =>
        block.type === 'text' ? block.text : block.type === 'resource_link' ? `<${block.uri}>` : `[${block.type}]`,
      )
      .join(' ');
    const mcp = mcpRequest(text);
    if (mcp) return callMcpTool(turn, mcp);

    await turn.send(plan('in_progress', 'pending'));

    // A tool call: the first `tool_call_update` for an unseen id creates it (v1 wire: `tool_call`).
    const toolCallId = session.newId('echo');
    await turn.send({
      sessionUpdate: 'tool_call_update',
      toolCallId,
      title: 'Echo the prompt',
      name: 'echo',
      kind: 'other',
      status: 'pending',
      rawInput: { text },
    });

    // Ask before "running" it. v1 shows the tool call, v2 the title; the runtime shapes both.
    const answer = await turn.requestPermission({
      title: 'Echo the prompt back?',
      subject: { type: 'tool_call', toolCall: { toolCallId } },
      options: [
        { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
        { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
      ],
    });
    if (answer.outcome === 'cancelled') return 'cancelled'; // the turn was cancelled while we waited
    if (answer.outcome !== 'selected' || answer.optionId !== 'allow') {
      await turn.send({
        sessionUpdate: 'tool_call_update',
        toolCallId,
        status: 'failed',
        rawOutput: { error: 'permission rejected' },
      });
      await turn.send(plan('cancelled', 'completed'));
      await turn.send({
        sessionUpdate: 'agent_message_chunk',
        messageId: session.newId('msg'),
        content: { type: 'text', text: 'Permission rejected: nothing echoed.' },
      });
      return 'end_turn';
    }

    await turn.send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'in_progress' });
    const messageId = session.newId('msg');
    const reply = `You said: ${text}`;
    try {
      for (let i = 0; i < reply.length; i += chunkSize) {
        await sleep(chunkDelayMs, signal);
        // `await` gives backpressure: it resolves when the transport can take more
        await turn.send({
          sessionUpdate: 'agent_message_chunk',
          messageId,
          content: { type: 'text', text: reply.slice(i, i + chunkSize) },
        });
      }
    } catch (e) {
      if (e?.name !== 'AbortError') throw e;
      // Final updates go out before the turn ends (ACP-V1-CANCEL-07, ACP-V2-CANCEL-07);
      // anything sent after `prompt()` returned would be dropped by the runtime.
      await turn.send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'cancelled' });
      return 'cancelled';
    }
    await turn.send({
      sessionUpdate: 'tool_call_update',
      toolCallId,
      status: 'completed',
      content: [{ type: 'content', content: { type: 'text', text: `${reply.length} characters echoed` } }],
      rawOutput: { characters: reply.length },
    });
    await turn.send(plan('completed', 'completed'));
    return 'end_turn';
  },
};

// stdout carries only protocol messages; logs go to stderr. Sessions go to the default store, a
// `JsonlSessionStore` on disk ($ACP_KIT_DATA_DIR, else ~/.local/share/acp-kit/agents/echo-agent):
// the runtime advertises load and resume, and a new process of this agent can keep that promise.
// (An `InMemorySessionStore` would lose them with the process that made them.)
runAgentOnStdio(echoAgent);
