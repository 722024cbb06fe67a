/**
 * Issue 26 item 1, the run/chat column: the session requests of the CLI, each a real process
 * against the scripted e2e agent (test/fixtures/e2e-agent.mjs, sessions persisted in
 * E2E_STORE_DIR) behind `acp-kit proxy --record`. `acp-kit sessions list` sends session/list and
 * lists what `acp-kit run` opened; `acp-kit sessions show` replays a session through session/load
 * (v1, as user_message_chunk and agent_message_chunk) or session/resume (v2) and prints it;
 * Ctrl-C during `acp-kit run` sends session/cancel and exits 130; `acp-kit login` against an agent that
 * needs none opens a probe session and closes it with session/close. Asserted on the capture (the
 * requests, their answers, the replay) and on what the CLI prints. Needs dist (the global setup builds it).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCapture } from '../packages/tools/src/captures/capture.js';
import { BIN, FIXTURES, cliEnv, ndjson, runCli, startCli, tempDir, waitFor } from './fixtures/cli-helpers.js';

const E2E = join(FIXTURES, 'e2e-agent.mjs');

/** The CLI's agent: the e2e agent behind a recording proxy writing `capture`. */
const recorded = (capture: string): string =>
  `${process.execPath} ${BIN} proxy --record ${capture} -- ${process.execPath} ${E2E}`;

/** The capture's messages as parsed JSON, with their direction. */
async function messages(capture: string): Promise<Array<{ dir: string; msg: Record<string, any> }>> {
  const { frames } = await readCapture(capture);
  return frames.map((f) => ({ dir: f.dir, msg: JSON.parse(f.raw) as Record<string, any> }));
}

describe.concurrent('acp-kit sessions and run: the session requests', () => {
  it.each([1, 2] as const)('v%i: sessions list, then sessions show replays what run said', async (v) => {
    const cwd = tempDir(`cli-sessions-rows-v${v}`);
    const env = cliEnv({ NO_COLOR: '1', E2E_STORE_DIR: join(cwd, 'store') });
    const p = ['--protocol', String(v)];
    const first = await runCli(['run', ...p, '--json', '--agent', recorded(join(cwd, 'run.ndjson')), 'hello'], {
      cwd,
      env,
    });
    expect(first.code, first.stderr).toBe(0);
    const sessionId = ndjson(first.stdout).find((e) => e.type === 'session')?.sessionId as string;
    expect(sessionId).toMatch(/^sess_/);

    const list = await runCli(['sessions', 'list', ...p, '--json', '--agent', recorded(join(cwd, 'list.ndjson'))], {
      cwd,
      env,
    });
    expect(list.code, list.stderr).toBe(0);
    const printed = ndjson(list.stdout).find((e) => e.type === 'sessions');
    expect(printed?.sessions).toContainEqual(expect.objectContaining({ sessionId, cwd }));
    const listed = await messages(join(cwd, 'list.ndjson'));
    const ask = listed.find((m) => m.dir === 'editor->agent' && m.msg.method === 'session/list');
    expect(ask?.msg.params).toMatchObject({ cwd });
    const answer = listed.find((m) => m.dir === 'agent->editor' && m.msg.id === ask?.msg.id && 'result' in m.msg);
    expect(answer?.msg.result.sessions).toContainEqual(expect.objectContaining({ sessionId }));

    const show = await runCli(['sessions', 'show', sessionId, ...p, '--agent', recorded(join(cwd, 'show.ndjson'))], {
      cwd,
      env,
    });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain(`session ${sessionId}\n> hello\necho: hello\n`);
    const shown = await messages(join(cwd, 'show.ndjson'));
    const restore = shown.find(
      (m) => m.dir === 'editor->agent' && m.msg.id !== undefined && m.msg.method !== 'initialize',
    );
    const replayed = shown
      .filter((m) => m.msg.method === 'session/update')
      .map((m) => m.msg.params.update.sessionUpdate as string);
    if (v === 1) {
      expect(restore?.msg).toMatchObject({ method: 'session/load', params: { sessionId, cwd } });
      expect(replayed).toEqual(expect.arrayContaining(['user_message_chunk', 'agent_message_chunk']));
    } else {
      expect(restore?.msg).toMatchObject({
        method: 'session/resume',
        params: { sessionId, replayFrom: { type: 'start' } },
      });
      expect(replayed).toEqual(expect.arrayContaining(['user_message', 'agent_message']));
    }
  });

  it.each([1, 2] as const)('v%i: Ctrl-C during run sends session/cancel and exits 130', async (v) => {
    const cwd = tempDir(`cli-sessions-cancel-v${v}`);
    const capture = join(cwd, 'cap.ndjson');
    const script = JSON.stringify({
      actions: [
        { send: { sessionUpdate: 'agent_message_chunk', messageId: 'm', content: { type: 'text', text: 'READY' } } },
        { sleep: 60_000 },
      ],
    });
    const run = startCli(['run', '--protocol', String(v), '--agent', recorded(capture), script], {
      cwd,
      env: cliEnv({ NO_COLOR: '1' }),
    });
    await waitFor(() => run.stdout().includes('READY'), 20_000, 'the turn to start');
    run.child.kill('SIGINT');
    const r = await run.done;
    expect(r.code, r.stderr).toBe(130);
    const wire = await messages(capture);
    const cancel = wire.find((m) => m.dir === 'editor->agent' && m.msg.method === 'session/cancel');
    expect(cancel?.msg).not.toHaveProperty('id');
    const prompt = wire.find((m) => m.msg.method === 'session/prompt');
    expect(cancel?.msg.params.sessionId).toBe(prompt?.msg.params.sessionId);
    // the agent ended the turn as cancelled
    const end = wire.find((m) => m.dir === 'agent->editor' && m.msg.id === prompt?.msg.id);
    if (v === 1) expect(end?.msg.result).toMatchObject({ stopReason: 'cancelled' });
    else
      expect(wire.map((m) => m.msg.params?.update)).toContainEqual(
        expect.objectContaining({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'cancelled' }),
      );
  });
});

describe.concurrent('acp-kit login: the probe session', () => {
  it.each([1, 2] as const)('v%i: an agent that needs no login opens a session, which login closes', async (v) => {
    const cwd = tempDir(`cli-login-rows-v${v}`);
    const capture = join(cwd, 'cap.ndjson');
    const r = await runCli(['login', '--protocol', String(v), '--agent', recorded(capture)], {
      cwd,
      env: cliEnv({ NO_COLOR: '1' }),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('the agent opened a session without a login: already logged in');
    const wire = await messages(capture);
    const opened = wire.find((m) => m.dir === 'editor->agent' && m.msg.method === 'session/new');
    const sessionId = wire.find((m) => m.dir === 'agent->editor' && m.msg.id === opened?.msg.id)?.msg.result?.sessionId;
    expect(sessionId).toMatch(/^sess_/);
    const close = wire.find((m) => m.dir === 'editor->agent' && m.msg.method === 'session/close');
    expect(close?.msg.params).toEqual({ sessionId });
    const closed = wire.find((m) => m.dir === 'agent->editor' && m.msg.id === close?.msg.id);
    expect(closed?.msg.result).toEqual({});
  });
});
