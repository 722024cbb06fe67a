#!/usr/bin/env node
// Checks an agent against the ACP conformance checker from code, the way an agent's own test suite
// would (`acp-kit/checker`): the agent definition is served in this process, a fresh runtime per
// connection the checker opens (all sharing one in-memory session store), for both protocol
// versions. Prints the report `acp-kit check agent` prints; exits 0 when the agent is conformant.
//
//   node examples/check-agent.mjs
//
// In a test: `expect((await checkAgent(agent)).conformant).toBe(true)`. The same function takes a
// command instead (`checkAgent({ command: 'node', args: ['my-agent.js'] })`: a process per case).
import { checkAgent, formatText } from 'acp-kit/checker';

/** Resolves after `ms`, or at once when the turn is cancelled. */
const pause = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/** A small agent: streams a few words, slowly enough for the checker to cancel a turn. */
const agent = {
  info: { name: 'words-agent', version: '1.0.0' },
  async prompt(turn) {
    const messageId = turn.session.newId('msg');
    for (const word of ['Checking', ' one', ' word', ' at', ' a', ' time.']) {
      await pause(100, turn.signal);
      if (turn.signal.aborted) return 'cancelled';
      await turn.send({ sessionUpdate: 'agent_message_chunk', messageId, content: { type: 'text', text: word } });
    }
    return 'end_turn';
  },
};

// This agent has no MCP client (the agent runtime connects no `mcpServers`; echo-agent.mjs shows
// how to opt in with `acp-kit/agent/mcp`), which the checker's mcp/client-server case reports as a
// v1 MUST failure: an agent that cannot use MCP servers says so by skipping those requirements,
// and the report shows them as skipped.
const run = await checkAgent(agent, { skip: ['ACP-V1-SESS-01', 'ACP-ALL-SESS-08'] });
process.stdout.write(formatText(run, 'examples/check-agent.mjs'));
process.exitCode = run.conformant ? 0 : 1;
