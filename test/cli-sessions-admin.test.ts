/**
 * `acp-kit sessions fork|rename|archive|unarchive|status|delete` as real processes (needs `npm run
 * build`), against the built-in agent (which advertises the unstable session methods) over v1 and
 * v2, and an agent without them (exit code "unsupported", naming the capability). The admin
 * commands reach the agent through `acp-kit proxy --record`: each capture shows the one wire
 * method the command sent.
 */
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCapture } from '../packages/tools/src/captures/capture.js';
import { BIN, FIXTURES, cliEnv, ndjson, runCli, tempDir } from './fixtures/cli-helpers.js';

// a hand-written v1 agent without any session capability
const bareAgent = `node ${join(FIXTURES, 'client-order-agent.mjs')} --version=1`;

/**
 * The file's one `run` of the built-in agent (a session with a prompt in its history), shared by the
 * v1 and v2 tests: each works on a copy of its data folder (a `run` is two processes, a copy none).
 */
let seeded: Promise<{ data: string; cwd: string; id: string }> | undefined;
async function seedSession(): Promise<{ data: string; cwd: string; id: string }> {
  const cwd = tempDir('s-admin');
  const data = tempDir('s-admin-seed-data');
  const env = cliEnv({ ACP_KIT_DATA_DIR: data });
  const run = await runCli(['run', '--json', '--approve-all', 'create notes.txt containing hello'], { cwd, env });
  expect(run.code, run.stderr).toBe(0);
  const id = ndjson(run.stdout).find((e) => e.type === 'session')?.sessionId;
  expect(typeof id).toBe('string');
  return { data, cwd, id: String(id) };
}

describe('acp-kit sessions fork, rename, archive, unarchive, delete', () => {
  it.each(['1', '2'])(
    'with the built-in agent over v%s',
    async (protocol) => {
      // the session to work on: a copy of the file's one seeding run (its data folder; its cwd)
      const seed = await (seeded ??= seedSession());
      const cwd = seed.cwd;
      const data = tempDir('s-admin-data');
      cpSync(seed.data, data, { recursive: true });
      const env = cliEnv({ ACP_KIT_DATA_DIR: data });
      const id = seed.id;
      const cli = (args: string[]) => runCli(['sessions', ...args, '--protocol', protocol], { cwd, env });
      let captures = 0;
      const sentBy: string[][] = [];
      const captureDir = tempDir('s-admin-captures');
      // the command through a recording proxy in front of the built-in agent; what it sent is kept
      const recorded = async (args: string[]) => {
        const capture = join(captureDir, `admin-${++captures}.ndjson`);
        const agent = `${process.execPath} ${BIN} proxy --record ${capture} -- ${process.execPath} ${BIN} agent`;
        const r = await cli([...args, '--agent', agent]);
        const { frames } = await readCapture(capture);
        const requests = frames.filter((f) => f.dir === 'editor->agent' && f.kind === 'request');
        sentBy.push(requests.map((f) => f.method ?? '').filter((m) => m !== 'initialize'));
        return r;
      };
      const listed = async (): Promise<Array<{ sessionId: string; title?: string }>> =>
        ndjson((await cli(['list', '--json'])).stdout)[0]!.sessions;

      const rename = await recorded(['rename', id, '  Notes  work ']);
      expect(rename.code, rename.stderr).toBe(0);
      expect(rename.stdout).toBe(`${id}  Notes work\n`);

      const fork = await recorded(['fork', id, '--json']);
      expect(fork.code, fork.stderr).toBe(0);
      const forked = ndjson(fork.stdout).at(-1)!;
      expect(forked).toMatchObject({ type: 'result', forkedFrom: id, exitCode: 0 });
      expect(forked.sessionId).not.toBe(id);
      // the fork carries the history: showing it replays the source's prompt
      const show = await cli(['show', forked.sessionId]);
      expect(show.code, show.stderr).toBe(0);
      expect(show.stdout).toContain('> create notes.txt containing hello');
      // that the rename is stored (the agent lists the new title) and the fork is listed is read from the
      // `list --archived` below, the exact set of sessions from the listing after unarchive (a listing of
      // its own here cost two processes: CLI and agent)

      const status = await recorded(['status', id, '--json']);
      expect(status.code, status.stderr).toBe(0);
      // each command is its own agent process, which has the session stored, not loaded (and so
      // reports no turn state, v2 included)
      expect(ndjson(status.stdout)).toEqual([{ type: 'result', sessionId: id, status: 'saved', exitCode: 0 }]);
      const statusText = await cli(['status', id]);
      expect(statusText.stdout).toBe(`${id}  saved\n`);

      const archive = await recorded(['archive', id, '--json']);
      expect(archive.code, archive.stderr).toBe(0);
      expect(ndjson(archive.stdout)).toEqual([{ type: 'result', sessionId: id, archived: true, exitCode: 0 }]);
      expect((await listed()).map((s) => s.sessionId)).toEqual([forked.sessionId]);
      // --archived lists it again, marked, with the title the rename stored; the fork is listed
      const withArchived = await cli(['list', '--archived']);
      expect(withArchived.stdout).toMatch(new RegExp(`${id}.*Notes work  \\(archived\\)`));
      expect(withArchived.stdout).toContain(forked.sessionId);
      expect((await recorded(['unarchive', id])).code).toBe(0);
      // each command sent its own unstable method, and only that one
      expect(sentBy).toEqual([
        ['session/set_title'],
        ['session/fork'],
        ['session/status'],
        ['session/archive'],
        ['session/unarchive'],
      ]);
      expect((await listed()).map((s) => s.sessionId).sort()).toEqual([id, forked.sessionId].sort());

      // an unknown session is the agent's -32002, reported as an error exit
      const missing = await cli(['fork', 'sess_missing']);
      expect(missing.code).not.toBe(0);
      expect(missing.stderr).toContain('sess_missing');

      // session/delete: the fork is gone from the list and from the store (show cannot load it)
      const del = await cli(['delete', forked.sessionId, '--json']);
      expect(del.code, del.stderr).toBe(0);
      expect(ndjson(del.stdout)).toEqual([{ type: 'result', sessionId: forked.sessionId, deleted: true, exitCode: 0 }]);
      expect((await listed()).map((s) => s.sessionId)).toEqual([id]);
      expect((await cli(['show', forked.sessionId])).code).not.toBe(0);
      // deleting it again succeeds silently (ACP-ALL-DEL-03: already deleted or never existed)
      const again = await cli(['delete', forked.sessionId]);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toBe(`${forked.sessionId}  deleted\n`);
    },
    60_000,
  );

  it('an agent without the capability: exit 12, the capability named', async () => {
    const cwd = tempDir('s-admin-bare');
    const env = cliEnv({ ACP_KIT_DATA_DIR: tempDir('s-admin-bare-data') });
    const fork = await runCli(['sessions', 'fork', 'sess_x', '--agent', bareAgent], { cwd, env });
    expect(fork.code, fork.stderr).toBe(12);
    expect(fork.stderr).toContain('does not support forking sessions');
    expect(fork.stderr).toContain('sessionCapabilities.fork');
    const del = await runCli(['sessions', 'delete', 'sess_x', '--agent', bareAgent], { cwd, env });
    expect(del.code, del.stderr).toBe(12);
    expect(del.stderr).toContain('sessionCapabilities.delete');
    expect(del.stderr).toContain('session/delete');
    const rename = await runCli(['sessions', 'rename', 'sess_x', 't', '--agent', bareAgent, '--json'], { cwd, env });
    expect(rename.code).toBe(12);
    expect(ndjson(rename.stdout).at(-1)).toMatchObject({
      type: 'result',
      exitCode: 12,
      error: { kind: 'unsupported' },
    });
  }, 60_000);
});
