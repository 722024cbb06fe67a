#!/usr/bin/env node
// One model, two codecs: a prompt turn written as version-neutral `session/update` payloads,
// encoded for ACP v1 and for ACP v2, printed side by side. This is exactly what the agent
// runtime does per connection: the author writes the left-hand side once.
//
//   node examples/v1-to-v2-transcript.mjs          # columns
//   node examples/v1-to-v2-transcript.mjs --json   # [{ neutral, v1: [...], v2: [...] }, ...]
//
// An encoder is stateful (one per session and connection): v1 must turn the first sighting of a
// tool call into `tool_call`, merge plans into its single plan, and re-send a tool call's whole
// content list. Some updates have no v1 form at all (e.g. `state_update`: v1 derives the state
// from the `session/prompt` request's lifetime) and encode to nothing.
import { pathToFileURL } from 'node:url';
import { codecFor } from 'acp-kit/protocol';

/** A short prompt turn, in the neutral model (`SessionUpdate`s). */
export const neutralTurn = [
  { sessionUpdate: 'user_message', messageId: 'user-1', content: [{ type: 'text', text: 'Say hello in greet.js' }] },
  { sessionUpdate: 'state_update', state: 'running' },
  { sessionUpdate: 'agent_thought_chunk', messageId: 'thought-1', content: { type: 'text', text: 'One small edit.' } },
  {
    sessionUpdate: 'plan_update',
    plan: {
      type: 'items',
      planId: 'main',
      entries: [{ content: 'Edit greet.js', priority: 'high', status: 'in_progress' }],
    },
  },
  {
    sessionUpdate: 'tool_call_update',
    toolCallId: 'call-1',
    title: 'Edit greet.js',
    kind: 'edit',
    status: 'pending',
    locations: [{ path: '/project/greet.js', line: 1 }],
  },
  { sessionUpdate: 'tool_call_update', toolCallId: 'call-1', status: 'in_progress', capabilities: { cancel: {} } },
  {
    sessionUpdate: 'tool_call_content_chunk',
    toolCallId: 'call-1',
    content: {
      type: 'diff',
      path: '/project/greet.js',
      oldText: 'console.log("hi");\n',
      newText: 'console.log("hello");\n',
    },
  },
  { sessionUpdate: 'tool_call_update', toolCallId: 'call-1', status: 'completed', capabilities: null },
  { sessionUpdate: 'agent_message_chunk', messageId: 'msg-1', content: { type: 'text', text: 'Done: greet.js ' } },
  { sessionUpdate: 'agent_message_chunk', messageId: 'msg-1', content: { type: 'text', text: 'now says hello.' } },
  { sessionUpdate: 'usage_update', used: 1200, size: 200000, cost: { amount: 0.002, currency: 'USD' } },
  { sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' },
];

/** Encodes the turn with a fresh encoder per version: `[{ neutral, v1: wire[], v2: wire[] }]`. */
export function transcript(updates = neutralTurn) {
  const v1 = codecFor(1).createUpdateEncoder();
  const v2 = codecFor(2).createUpdateEncoder();
  // JSON round trip: the v2 encoder may hand back the neutral object itself (no copy needed)
  return updates.map((u) => ({ neutral: u, v1: clone(v1.encode(u)), v2: clone(v2.encode(u)) }));
}

const clone = (x) => JSON.parse(JSON.stringify(x));

/** Hard-wraps a pretty JSON text to `width` columns. */
function wrap(text, width) {
  return text.split('\n').flatMap((l) => {
    const parts = [];
    for (let i = 0; i < l.length; i += width) parts.push(l.slice(i, i + width));
    return parts.length ? parts : [''];
  });
}

function printColumns(rows) {
  const total = Math.max(100, process.stdout.columns ?? 160);
  const width = Math.floor((total - 3) / 2);
  const show = (wire) =>
    wire.length === 0 ? '(nothing on the wire)' : wire.map((w) => JSON.stringify(w, null, 1)).join('\n');
  const bar = '-'.repeat(width);
  console.log(`${'ACP v1'.padEnd(width)} | ACP v2`);
  rows.forEach(({ neutral, v1, v2 }, i) => {
    console.log(`${bar}-+-${bar}`);
    console.log(`#${i + 1} neutral ${neutral.sessionUpdate}: ${JSON.stringify(neutral)}`);
    const left = wrap(show(v1), width);
    const right = wrap(show(v2), width);
    for (let j = 0; j < Math.max(left.length, right.length); j++) {
      console.log(`${(left[j] ?? '').padEnd(width)} | ${right[j] ?? ''}`);
    }
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = transcript();
  if (process.argv.includes('--json')) console.log(JSON.stringify(rows, null, 2));
  else printColumns(rows);
}
