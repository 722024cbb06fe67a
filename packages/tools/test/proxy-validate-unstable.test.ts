// The capture validator (acp-kit validate, the proxy's --validate, the bridge's legs) with the
// unstable session methods: a message of session/fork, archive, status or set_title is checked
// against the version's schema.unstable.json, so a well-formed one is no violation and a
// malformed one is reported like any other schema failure (before, both passed unchecked). The
// same for auth/status, the agent's auth/status_update and providers/list|set|disable.
import { describe, expect, it } from 'vitest';
import { CaptureValidator } from '../src/proxy/index.js';
import type { CaptureFrame } from '../src/captures/index.js';

let seq = 0;
function frame(dir: CaptureFrame['dir'], message: Record<string, unknown>): CaptureFrame {
  const f: CaptureFrame = {
    seq: ++seq,
    t: seq,
    dir,
    raw: JSON.stringify(message),
    kind: 'method' in message ? ('id' in message ? 'request' : 'notification') : 'response',
  };
  if (typeof message.method === 'string') f.method = message.method;
  if (typeof message.id === 'number') f.id = message.id;
  return f;
}

/** initialize, then each request and its answer (and `notes`, agent notifications, before the last answer). */
function exchange(
  version: 1 | 2,
  calls: Array<[string, unknown, unknown]>,
  notes: Array<[string, unknown]> = [],
): string[] {
  const v = new CaptureValidator({ protocolVersion: version });
  const out = [
    ...v.push(
      frame('editor->agent', {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params:
          version === 1
            ? { protocolVersion: 1, clientCapabilities: {} }
            : { protocolVersion: 2, info: { name: 'e', version: '1' }, capabilities: {} },
      }),
    ),
  ];
  calls.forEach(([method, params, result], i) => {
    out.push(...v.push(frame('editor->agent', { jsonrpc: '2.0', id: i + 1, method, params })));
    if (i === calls.length - 1)
      for (const [m, p] of notes) out.push(...v.push(frame('agent->editor', { jsonrpc: '2.0', method: m, params: p })));
    out.push(...v.push(frame('agent->editor', { jsonrpc: '2.0', id: i + 1, result })));
  });
  out.push(...v.finish());
  return out.filter((x) => x.rule === 'schema').map((x) => x.message);
}

describe.each([1, 2] as const)('capture validator, v%i: unstable session methods', (version) => {
  it('well-formed: no violation', () => {
    expect(
      exchange(version, [
        ['session/fork', { sessionId: 's1', cwd: '/w' }, { sessionId: 's2' }],
        ['session/archive', { sessionId: 's1' }, {}],
        ['session/unarchive', { sessionId: 's1' }, {}],
        ['session/status', { sessionId: 's1' }, { status: 'saved' }],
        ['session/set_title', { sessionId: 's1', title: 'T' }, { title: 'T' }],
        ['session/list', { archived: 'include' }, { sessions: [{ sessionId: 's1', cwd: '/w', archived: true }] }],
      ]),
    ).toEqual([]);
  });

  it('malformed params and results are schema violations naming the field', () => {
    const found = exchange(version, [
      ['session/fork', { sessionId: 's1' }, { sessionId: 's2' }],
      ['session/status', { sessionId: 's1' }, {}],
      ['session/set_title', { sessionId: 's1', title: null }, { title: 'T' }],
    ]);
    expect(found).toHaveLength(3);
    expect(found[0]).toMatch(/^session\/fork: .*cwd/);
    expect(found[1]).toMatch(/status/);
    expect(found[2]).toMatch(/^session\/set_title: .*title/);
  });
});

describe.each([1, 2] as const)('capture validator, v%i: auth status and providers', (version) => {
  const provider = { providerId: 'openai', supported: ['openai'], required: false, current: null };
  it('well-formed: no violation', () => {
    expect(
      exchange(
        version,
        [
          ['auth/status', {}, { state: 'unauthenticated', accounts: [{ label: 'Key', active: null }] }],
          ['providers/list', {}, { providers: [provider] }],
          ['providers/set', { providerId: 'openai', apiType: 'openai', baseUrl: 'http://127.0.0.1:9/v1' }, {}],
          ['providers/disable', { providerId: 'openai' }, {}],
        ],
        [['auth/status_update', { state: 'authenticated' }]],
      ),
    ).toEqual([]);
  });

  it('malformed params, results and notifications are schema violations naming the field', () => {
    const found = exchange(
      version,
      [
        ['auth/status', {}, { accounts: [] }],
        ['providers/list', {}, { providers: [{ providerId: 'openai' }] }],
        ['providers/set', { providerId: 'openai', apiType: 'openai' }, {}],
        ['providers/disable', {}, {}],
      ],
      [['auth/status_update', { state: 1 }]],
    );
    expect(found).toEqual([
      "auth/status result: result: must have required property 'state'",
      "providers/list result: result.providers[0]: must have required property 'supported'",
      "providers/set: params: must have required property 'baseUrl'",
      "providers/disable: params: must have required property 'providerId'",
      'auth/status_update: params.state: must be string',
    ]);
  });
});
