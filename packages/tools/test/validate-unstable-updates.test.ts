// The capture validator accepts the unstable subagent kinds when they follow the unstable schema
// (both versions) and reports a schema violation when one breaks it (they used to be let through
// unchecked as unknown kinds), while a kind nobody knows stays accepted (ACP-V2-EXT-03).
import { describe, expect, it } from 'vitest';
import { CaptureValidator, type Violation } from '../src/proxy/index.js';
import { A2E, frames, rpc } from '../../../test/support/capture-builder.js';

function check(v: 1 | 2, updates: Array<Record<string, unknown>>): Violation[] {
  const val = new CaptureValidator({ protocolVersion: v });
  const out: Violation[] = [];
  for (const f of frames(updates.map((u, i) => [i, A2E, rpc.update('s-1', u)] as const))) out.push(...val.push(f));
  return out;
}

describe.each([1, 2] as const)('validate over v%i: unstable update kinds', (v) => {
  it('well-formed subagent_update, session_message(_chunk) and an unknown kind: no violation', () => {
    expect(
      check(v, [
        { sessionUpdate: 'subagent_update', sessionId: 'child', title: 'x', state: { state: 'running' } },
        { sessionUpdate: 'session_message', messageId: 'm', content: [{ type: 'text', text: 'hi' }] },
        { sessionUpdate: 'session_message_chunk', messageId: 'm', content: { type: 'text', text: '!' } },
        { sessionUpdate: 'future_kind', x: 1 },
      ]),
    ).toEqual([]);
  });

  it('a subagent_update without sessionId and a chunk without content are schema violations', () => {
    const got = check(v, [
      { sessionUpdate: 'subagent_update', title: 'x' },
      { sessionUpdate: 'session_message_chunk', messageId: 'm' },
    ]);
    expect(got.map((x) => [x.rule, x.seqs])).toEqual([
      ['schema', [1]],
      ['schema', [2]],
    ]);
    expect(got[0]?.message).toContain('sessionId');
    expect(got[1]?.message).toContain("params.update: must have required property 'content'");
  });
});
