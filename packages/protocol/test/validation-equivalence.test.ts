/**
 * The validator runs a rewritten schema (tagged unions -> if/then, const unions -> enum, see
 * src/protocol/validation/transform.ts). Cross-check it against the official schema run whole by
 * the schema tap: over systematic mutations of valid messages (every key deleted, every value
 * replaced by values of other types, every string tag swapped), both must agree on valid/invalid.
 */
import { describe, expect, it } from 'vitest';
import { getValidator } from '../src/validation/index.js';
import { createSchemaTap } from '../../../test/support/schema-tap.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const REPLACEMENTS: Json[] = [
  null,
  5,
  1.5,
  -1,
  'x',
  true,
  [],
  {},
  'end_turn',
  'text',
  'pending',
  'completed',
  'cancelled',
  'diff',
  'plan',
];

/** Every variant of `value` with one change somewhere inside it. */
function* mutations(value: Json): Generator<Json> {
  for (const r of REPLACEMENTS) if (JSON.stringify(r) !== JSON.stringify(value)) yield r;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      yield value.filter((_, j) => j !== i);
      for (const m of mutations(value[i])) yield value.map((x, j) => (j === i ? m : x));
    }
  } else if (value !== null && typeof value === 'object') {
    for (const k of Object.keys(value)) {
      const { [k]: _drop, ...rest } = value;
      yield rest;
      for (const m of mutations(value[k])) yield { ...value, [k]: m };
    }
    yield { ...value, _meta: { a: 1 } };
    yield { ...value, extraField: 1 };
  }
}

interface Case {
  from: 'agent' | 'client';
  method: string;
  params: Json;
}

const textBlock = { type: 'text', text: 'hi' };

const V1: Case[] = [
  {
    from: 'client',
    method: 'initialize',
    params: {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: false }, terminal: true },
      clientInfo: { name: 'ed', version: '1' },
    },
  },
  {
    from: 'client',
    method: 'session/new',
    params: { cwd: '/w', mcpServers: [{ name: 'm', command: 'c', args: [], env: [{ name: 'A', value: 'b' }] }] },
  },
  {
    from: 'client',
    method: 'session/prompt',
    params: {
      sessionId: 's',
      prompt: [
        textBlock,
        { type: 'resource_link', uri: 'file:///a', name: 'a' },
        { type: 'resource', resource: { uri: 'file:///b', text: 'b' } },
      ],
    },
  },
  {
    from: 'agent',
    method: 'session/update',
    params: { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: textBlock } },
  },
  {
    from: 'agent',
    method: 'session/update',
    params: {
      sessionId: 's',
      update: {
        sessionUpdate: 'tool_call',
        toolCallId: 't',
        title: 'Edit',
        kind: 'edit',
        status: 'pending',
        locations: [{ path: '/a', line: 1 }],
      },
    },
  },
  {
    from: 'agent',
    method: 'session/update',
    params: {
      sessionId: 's',
      update: {
        sessionUpdate: 'tool_call_update',
        toolCallId: 't',
        status: 'completed',
        content: [
          { type: 'diff', path: '/a', oldText: 'x', newText: 'y' },
          { type: 'content', content: textBlock },
          { type: 'terminal', terminalId: 'term' },
        ],
      },
    },
  },
  {
    from: 'agent',
    method: 'session/update',
    params: {
      sessionId: 's',
      update: { sessionUpdate: 'plan', entries: [{ content: 'step', priority: 'high', status: 'in_progress' }] },
    },
  },
  {
    from: 'agent',
    method: 'session/request_permission',
    params: {
      sessionId: 's',
      toolCall: { toolCallId: 't' },
      options: [{ optionId: 'o', name: 'Allow', kind: 'allow_once' }],
    },
  },
  { from: 'client', method: '$/cancel_request', params: { requestId: 3 } },
];

const V2: Case[] = [
  {
    from: 'client',
    method: 'initialize',
    params: { protocolVersion: 2, info: { name: 'ed', version: '1' }, capabilities: {} },
  },
  {
    from: 'client',
    method: 'session/prompt',
    params: { sessionId: 's', prompt: [textBlock, { type: 'image', data: 'AA==', mimeType: 'image/png' }] },
  },
  {
    from: 'agent',
    method: 'session/update',
    params: { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', messageId: 'm', content: textBlock } },
  },
  {
    from: 'agent',
    method: 'session/update',
    params: {
      sessionId: 's',
      update: {
        sessionUpdate: 'tool_call_update',
        toolCallId: 't',
        title: 'Edit',
        kind: 'edit',
        status: 'in_progress',
        content: [{ type: 'content', content: textBlock }],
      },
    },
  },
  {
    from: 'agent',
    method: 'session/update',
    params: { sessionId: 's', update: { sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' } },
  },
  {
    from: 'agent',
    method: 'session/update',
    params: { sessionId: 's', update: { sessionUpdate: 'state_update', state: 'running' } },
  },
  { from: 'client', method: '$/cancel_request', params: { requestId: 'r1' } },
];

function agreement(version: 1 | 2, cases: Case[]) {
  const validator = getValidator(version);
  const tap = createSchemaTap(version);
  const disagreements: string[] = [];
  let total = 0;
  let invalid = 0;
  for (const c of cases) {
    const variants = [c.params, ...mutations(c.params)];
    for (const params of variants) {
      total++;
      const before = tap.failures.length;
      const message = { jsonrpc: '2.0', method: c.method, params };
      if (c.from === 'agent') tap.fromAgent(message);
      else tap.fromClient(message);
      const tapValid = tap.failures.length === before;
      const ours = validator.params(c.method, params);
      if (!tapValid) invalid++;
      if (tapValid !== (ours === null)) {
        disagreements.push(
          `${c.method} ${JSON.stringify(params)}: schema says ${tapValid ? 'valid' : 'invalid'}, validator ${ours ? JSON.stringify(ours) : 'valid'}`,
        );
      }
    }
  }
  return { disagreements, total, invalid };
}

describe('validator agrees with the official schema run whole', () => {
  it.each([
    [1, V1],
    [2, V2],
  ] as const)('v%i: same verdict on every mutation of valid messages', (version, cases) => {
    const { disagreements, total, invalid } = agreement(version, cases);
    expect(disagreements.slice(0, 10)).toEqual([]);
    // the corpus exercises both verdicts in quantity
    expect(total).toBeGreaterThan(500);
    expect(invalid).toBeGreaterThan(total / 4);
    expect(total - invalid).toBeGreaterThan(total / 20);
  });

  it('the base examples are valid', () => {
    for (const [version, cases] of [
      [1, V1],
      [2, V2],
    ] as const) {
      for (const c of cases) expect(getValidator(version).params(c.method, c.params), `${c.method}`).toBeNull();
    }
  });
});
