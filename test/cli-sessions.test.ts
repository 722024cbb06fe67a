/**
 * `acp-kit sessions list|show` as a real process (needs `npm run build`), against the built-in
 * agent (v1 load and v2 resume replays) and an agent without session support.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, cliEnv, ndjson, runCli, tempDir } from './fixtures/cli-helpers.js';

// a hand-written v1 agent without session listing (cheaper to start than one on the official SDK)
const noListAgent = `node ${join(FIXTURES, 'client-order-agent.mjs')} --version=1`;

describe('acp-kit sessions', () => {
  it('lists and shows sessions of the built-in agent', async () => {
    const cwd = tempDir('s-list');
    const env = cliEnv({ ACP_KIT_DATA_DIR: tempDir('s-data') });
    const run = await runCli(['run', '--json', '--approve-all', 'create notes.txt containing hello'], { cwd, env });
    expect(run.code).toBe(0);
    const sessionId = ndjson(run.stdout).find((e) => e.type === 'session')!.sessionId as string;

    const list = await runCli(['sessions', 'list'], { cwd, env });
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(sessionId);
    const json = await runCli(['sessions', 'list', '--json'], { cwd, env });
    expect(ndjson(json.stdout)[0]!.sessions.map((s: { sessionId: string }) => s.sessionId)).toEqual([sessionId]);

    for (const protocol of ['1', '2']) {
      const show = await runCli(['sessions', 'show', '--protocol', protocol, sessionId], { cwd, env });
      expect(show.code, `v${protocol}`).toBe(0);
      expect(show.stdout, `v${protocol}`).toContain('> create notes.txt containing hello');
      expect(show.stdout, `v${protocol}`).toContain('Write notes.txt');
    }

    for (const protocol of ['1', '2']) {
      // --json streams the replay: session, one update line per replayed update, history, then the result line
      const show = await runCli(['sessions', 'show', '--json', '--protocol', protocol, sessionId], { cwd, env });
      expect(show.code, `v${protocol}`).toBe(0);
      const events = ndjson(show.stdout);
      expect(events[0], `v${protocol}`).toEqual({
        type: 'session',
        sessionId,
        cwd,
        mode: protocol === '1' ? 'load' : 'resume',
      });
      expect(events.at(-1)).toEqual({ type: 'result', exitCode: 0 });
      expect(events.at(-2)!.type).toBe('history');
      const updates = events.slice(1, -2);
      expect(updates.length, `v${protocol}`).toBeGreaterThan(2);
      expect(
        updates.every((e) => e.type === 'update' && e.sessionId === sessionId),
        `v${protocol}`,
      ).toBe(true);
      const kinds = updates.map((e) => e.update.sessionUpdate as string);
      const userText = updates
        .filter((e) => (e.update.sessionUpdate as string).startsWith('user_message'))
        .flatMap((e) => [e.update.content].flat())
        .map((c: { text?: string }) => c.text ?? '')
        .join('');
      expect(userText, `v${protocol}`).toBe('create notes.txt containing hello');
      // the user message is replayed before the tool call it led to
      expect(
        kinds.findIndex((k) => k.startsWith('user_message')),
        `v${protocol}`,
      ).toBeLessThan(kinds.findIndex((k) => k.startsWith('tool_call')));
      if (protocol === '2') expect(kinds, 'the resume snapshot (ACP-V2-RESUME-08)').toContain('state_update');
      // the final snapshot holds what the updates built
      expect(JSON.stringify(events.at(-2)!.state)).toContain('Write notes.txt');
    }

    const missing = await runCli(['sessions', 'show', 'sess_does_not_exist'], { cwd, env });
    expect(missing.code).toBe(13);
    expect(missing.stderr).toContain('hint:');
    const missingJson = await runCli(['sessions', 'show', '--json', 'sess_does_not_exist'], { cwd, env });
    expect(missingJson.code).toBe(13);
    expect(ndjson(missingJson.stdout).map((e) => e.type)).toEqual(['session', 'result']);
    expect(ndjson(missingJson.stdout)[1]).toMatchObject({ exitCode: 13, error: { kind: 'not_found' } });
  });

  it('an agent without session listing: exit 12', async () => {
    const r = await runCli(['sessions', 'list', '--agent', noListAgent], { cwd: tempDir('s-nolist') });
    expect(r.code).toBe(12);
    expect(r.stderr).toContain('does not support listing sessions');
  });
});
