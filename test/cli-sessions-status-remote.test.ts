// `acp-kit sessions status` against a session that is open (loaded in the agent), which a command that
// starts its own agent never sees: `acp-kit serve` runs the built-in agent, an editor (acp-kit's client
// over WebSocket, v2) holds a session, and the CLI asks about it over a second connection with the same
// token. v2 adds the session's turn state (unstable session/status); v1 has none to give.
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { connect, type ClientConnection } from '../packages/client/src/index.js';
import { selectOption, type PermissionPolicy } from '../packages/client/src/services/permission-policy.js';
import { ndjson } from './fixtures/cli-helpers.js';
import { useCli } from './support/cli.js';
import { startServe } from './support/serve-process.js';
import { tempDir } from './support/temp.js';

const TOKEN = 'status-token-0123456789abcdef';
const cli = useCli();
const procs: ChildProcess[] = [];
const open: ClientConnection[] = [];
afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
  for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
});

it('sessions status --agent-url: open with the v2 turn state (requires_action, then idle); v1 without one', async () => {
  const dir = tempDir('acp-kit-status-remote-');
  writeFileSync(join(dir, 'token'), `${TOKEN}\n`);
  const env = { ...process.env, HOME: dir, ACP_KIT_AGENT_TOKEN: TOKEN };
  const serve = await startServe(['--token-file', join(dir, 'token')], { procs, env });

  // the editor's permission prompt stays open until the test answers it
  let asked!: () => void;
  const permissionAsked = new Promise<void>((r) => (asked = r));
  let answer!: () => void;
  const answered = new Promise<void>((r) => (answer = r));
  const holdThenAllow: PermissionPolicy = async (request) => {
    asked();
    await answered;
    return selectOption(request, 'allow');
  };
  const editor = await connect({ url: serve.ws, token: TOKEN, protocol: 2, permissionPolicy: holdThenAllow });
  open.push(editor);
  const session = await editor.newSession({ cwd: dir });
  const id = session.sessionId;
  const status = async (protocol: 1 | 2, json: boolean) => {
    const r = await cli(
      ['sessions', 'status', id, '--agent-url', serve.ws, '--protocol', String(protocol), ...(json ? ['--json'] : [])],
      { cwd: dir, env },
    );
    expect(r.code, r.stderr).toBe(0);
    return r.stdout;
  };

  // a turn that writes a file asks first (the built-in agent's default mode): the session waits on the editor
  const turn = session.prompt('create notes.txt containing hi');
  await permissionAsked;
  expect(ndjson(await status(2, true))).toEqual([
    { type: 'result', sessionId: id, status: 'open', state: { state: 'requires_action' }, exitCode: 0 },
  ]);
  expect(await status(2, false)).toBe(`${id}  open, requires_action\n`);

  answer();
  expect((await turn).stopReason).toBe('end_turn');
  expect(ndjson(await status(2, true))).toEqual([
    { type: 'result', sessionId: id, status: 'open', state: { state: 'idle' }, exitCode: 0 },
  ]);
  // a v1 connection gets the status alone: v1 has no turn state
  expect(ndjson(await status(1, true))).toEqual([{ type: 'result', sessionId: id, status: 'open', exitCode: 0 }]);
}, 60_000);
