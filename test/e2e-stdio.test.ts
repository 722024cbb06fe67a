// The e2e agent as a real process over stdio pipes (the other e2e-*.test.ts files run it in process):
// the same script language and wire checks hold across the process boundary, in both versions.
import { afterEach, describe, expect, it } from 'vitest';
import type { ClientConnection } from '../packages/client/src/index.js';
import { chunk, script, startE2EProcess } from './support/e2e.js';

const open: ClientConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

describe.each([1, 2] as const)('e2e agent process over stdio, v%i', (v) => {
  it('runs a scripted turn, an extension round trip and a cancel; every message schema-valid', async () => {
    const { conn, tap, problems, roundTrip, stderrLine } = await startE2EProcess(v, open);
    const s = await conn.newSession({ cwd: '/tmp' });
    expect((await s.prompt(script([chunk('m', 'one'), chunk('m', ' two')], 'max_tokens'))).stopReason).toBe(
      'max_tokens',
    );
    expect(s.state.message('agent', 'm')?.text).toBe('one two');
    await stderrLine(/^script-done$/m);
    const started = new Promise<void>((r) => s.onUpdate((u) => u.sessionUpdate === 'agent_message_chunk' && r()));
    const p = s.prompt(script([chunk('x', 'x'), { sleep: 10_000 }]));
    await started;
    s.cancel();
    expect((await p).stopReason).toBe('cancelled');
    await roundTrip();
    tap.assertAllValid();
    expect(problems).toEqual([]);
  });
});
