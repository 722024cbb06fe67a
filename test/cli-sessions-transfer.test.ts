// `acp-kit sessions export|import` and `run --session`, as real processes with the built-in agent:
// a session exported from one data dir and imported into a fresh one replays the same history, and
// `run --session` continues it there (v2 session/resume, v1 session/load). Import checks the file
// (errors name the field) and refuses to replace a stored session without --force.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, ndjson, tempDir } from './fixtures/cli-helpers.js';
import { useCli } from './support/cli.js';

const cli = useCli();

/** A data dir with one session of the built-in agent (a write in `cwd`); returns its id. */
async function storedSession(data: string, cwd: string): Promise<string> {
  const r = await cli(['run', '--json', '--cwd', cwd, '--approve-all', 'create notes.txt containing hello'], {
    env: cliEnv({ ACP_KIT_DATA_DIR: data }),
  });
  expect(r.code, r.stderr).toBe(0);
  return ndjson(r.stdout).find((e) => e.type === 'session')!.sessionId;
}

/** The replayed history of `sessionId` in `data` (`sessions show --json`'s last event before the result). */
async function history(data: string, cwd: string, sessionId: string): Promise<unknown> {
  const r = await cli(['sessions', 'show', '--json', '--cwd', cwd, sessionId], {
    env: cliEnv({ ACP_KIT_DATA_DIR: data }),
  });
  expect(r.code, r.stderr).toBe(0);
  return ndjson(r.stdout).find((e) => e.type === 'history')!.state;
}

describe('sessions export | import', () => {
  it('round trip: export, import into a fresh data dir, same history; run --session continues it (v1 and v2)', async () => {
    const cwd = tempDir('xfer-cwd');
    const a = tempDir('xfer-a');
    const id = await storedSession(a, cwd);
    const file = join(tempDir('xfer-file'), 'session.json');
    const exp = await cli(['sessions', 'export', id, '--out', file], { env: cliEnv({ ACP_KIT_DATA_DIR: a }) });
    expect(exp.code, exp.stderr).toBe(0);
    const written = JSON.parse(readFileSync(file, 'utf8'));
    expect(written).toMatchObject({ format: 'acp-kit-session', version: 1, session: { sessionId: id, cwd } });

    const b = tempDir('xfer-b');
    const imp = await cli(['sessions', 'import', '--json', file], { env: cliEnv({ ACP_KIT_DATA_DIR: b }) });
    expect(imp.code, imp.stderr).toBe(0);
    expect(ndjson(imp.stdout).at(-1)).toMatchObject({ type: 'result', sessionId: id, replaced: false });
    expect(await history(b, cwd, id)).toEqual(await history(a, cwd, id));

    for (const [protocol, mode, userKind] of [
      ['2', 'resume', 'user_message'],
      ['1', 'load', 'user_message_chunk'],
    ] as const) {
      const r = await cli(['run', '--json', '--protocol', protocol, '--cwd', cwd, '--session', id, 'read notes.txt'], {
        env: cliEnv({ ACP_KIT_DATA_DIR: b }),
      });
      expect(r.code, r.stderr).toBe(0);
      const events = ndjson(r.stdout);
      expect(events.find((e) => e.type === 'session')).toMatchObject({ sessionId: id, mode });
      // the replayed prompt comes first, then the new one (the imported history is the session's)
      const prompts = events
        .filter((e) => e.type === 'update' && e.update.sessionUpdate === userKind)
        .map((e) => JSON.stringify(e.update.content));
      expect(prompts[0]).toContain('create notes.txt containing hello');
      expect(prompts.at(-1)).toContain('read notes.txt');
      expect(events.at(-1)).toMatchObject({ type: 'result', stopReason: 'end_turn' });
    }
  }, 60_000);

  it('refuses to replace a stored session unless --force', async () => {
    const cwd = tempDir('xfer-cwd');
    const data = tempDir('xfer-data');
    const id = await storedSession(data, cwd);
    const file = join(tempDir('xfer-file'), 'session.json');
    const exp = await cli(['sessions', 'export', id], { env: cliEnv({ ACP_KIT_DATA_DIR: data }) });
    expect(exp.code, exp.stderr).toBe(0);
    // the same session with another title, to see which one is stored after each import
    const changed = JSON.parse(exp.stdout);
    // (the title comes from the history's session_info_update, as when the agent stored it)
    changed.updates.push({ sessionUpdate: 'session_info_update', title: 'imported copy' });
    writeFileSync(file, JSON.stringify(changed));
    const refused = await cli(['sessions', 'import', file], { env: cliEnv({ ACP_KIT_DATA_DIR: data }) });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(new RegExp(`session ${id} exists already`));
    expect(refused.stderr).toMatch(/--force/);
    const title = async () => {
      const r = await cli(['sessions', 'list', '--json', '--cwd', cwd], { env: cliEnv({ ACP_KIT_DATA_DIR: data }) });
      return ndjson(r.stdout).find((e) => e.type === 'sessions')!.sessions[0].title;
    };
    expect(await title()).toBe('create notes.txt containing hello');
    const forced = await cli(['sessions', 'import', '--force', file], { env: cliEnv({ ACP_KIT_DATA_DIR: data }) });
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toMatch(/replaced the stored one/);
    expect(await title()).toBe('imported copy');
  }, 60_000);

  const valid = {
    format: 'acp-kit-session',
    version: 1,
    session: { sessionId: 'sess_x', cwd: '/tmp', additionalDirectories: [], createdAt: '2026-01-01T00:00:00Z' },
    updates: [{ sessionUpdate: 'user_message', messageId: 'u1', content: [{ type: 'text', text: 'hi' }] }],
  };
  const invalid: Array<[string, unknown, RegExp]> = [
    ['a future version', { ...valid, version: 2 }, /version: must be equal to constant/],
    ['a missing cwd', { ...valid, session: { ...valid.session, cwd: undefined } }, /session\.cwd: is required/],
    ['a relative cwd', { ...valid, session: { ...valid.session, cwd: 'rel' } }, /session\.cwd: must match pattern/],
    [
      'an id with a slash',
      { ...valid, session: { ...valid.session, sessionId: '../x' } },
      /session\.sessionId: must match/,
    ],
    [
      'an update without its kind',
      { ...valid, updates: [...valid.updates, { text: 'x' }] },
      /updates\[1\]\.sessionUpdate: is required/,
    ],
  ];
  it(`import of a file with ${invalid.map(([what]) => what).join(', ')}: a usage error naming the field; nothing is stored`, async () => {
    // one data dir for the five: a single listing at the end shows that none of them stored anything
    // (a listing starts the built-in agent: one instead of five)
    const data = tempDir('xfer-bad');
    for (const [what, content, message] of invalid) {
      const file = join(tempDir('xfer-file'), 'bad.json');
      writeFileSync(file, JSON.stringify(content));
      const r = await cli(['sessions', 'import', file], { env: cliEnv({ ACP_KIT_DATA_DIR: data }) });
      expect(r.code, what).toBe(2);
      expect(r.stderr, what).toMatch(message);
      expect(r.stderr, what).toMatch(/is not a session export/);
    }
    const list = await cli(['sessions', 'list', '--all', '--json'], { env: cliEnv({ ACP_KIT_DATA_DIR: data }) });
    expect(ndjson(list.stdout).find((e) => e.type === 'sessions')!.sessions).toEqual([]);
  });

  it('a valid file imports (the cases above fail on their field only)', async () => {
    const data = tempDir('xfer-ok');
    const file = join(tempDir('xfer-file'), 'ok.json');
    writeFileSync(file, JSON.stringify(valid));
    const r = await cli(['sessions', 'import', file], { env: cliEnv({ ACP_KIT_DATA_DIR: data }) });
    expect(r.code, r.stderr).toBe(0);
    const list = await cli(['sessions', 'list', '--all', '--json'], { env: cliEnv({ ACP_KIT_DATA_DIR: data }) });
    expect(
      ndjson(list.stdout)
        .find((e) => e.type === 'sessions')!
        .sessions.map((s: { sessionId: string }) => s.sessionId),
    ).toEqual(['sess_x']);
  });

  it('export of an unknown id exits 13 saying where the sessions are', async () => {
    const data = tempDir('xfer-none');
    const r = await cli(['sessions', 'export', 'sess_nope'], { env: cliEnv({ ACP_KIT_DATA_DIR: data }) });
    expect(r.code).toBe(13);
    expect(r.stderr).toMatch(/no stored session sess_nope/);
    expect(r.stderr).toContain(join(data, 'sessions'));
  });
});
