/**
 * `acp-kit run` as a real process (needs `npm run build`): the built-in demo agent over v1 and
 * v2, permission policies and their exit codes, NDJSON framing, an official-SDK agent, stop reasons,
 * SIGINT and SIGTERM (with a hand-written agent).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readCapture } from '../packages/tools/src/captures/capture.js';
import {
  BIN,
  FIXTURES,
  cliEnv,
  ndjson,
  processWithMarkerAlive,
  runCli,
  startCli,
  tempDir,
  waitFor,
} from './fixtures/cli-helpers.js';

const sdkAgent = `node ${join(FIXTURES, 'cli-sdk-agent.mjs')}`;
// hand-written, no SDK to load: for the terminal display, exit-code mapping and signals, which are acp-kit's, not SDK interop
const rawAgent = `node ${join(FIXTURES, 'cli-raw-v1-agent.mjs')}`;

describe.concurrent('acp-kit run (built-in demo agent)', () => {
  for (const protocol of ['1', '2'] as const) {
    it(`creates a file with --approve-all over v${protocol} (--protocol ${protocol}); NO_COLOR wins over FORCE_COLOR`, async () => {
      const cwd = tempDir(`run-v${protocol}`);
      const r = await runCli(['run', '--protocol', protocol, '--approve-all', 'create notes.txt containing hello'], {
        cwd,
        env: cliEnv({ NO_COLOR: '1', FORCE_COLOR: '1' }),
      });
      expect(r.stderr).toContain(`protocol v${protocol}`);
      expect(r.code).toBe(0);
      expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe('hello\n');
      // human output: tool call, diff line, permission decision, stop reason
      expect(r.stdout).toMatch(/✓ Write notes\.txt/);
      expect(r.stdout).toContain('+hello');
      expect(r.stdout).toMatch(/permission: .*notes\.txt\?? ✓ allowed/);
      expect(r.stdout).toContain('stop reason: end_turn');
      // NO_COLOR (even with FORCE_COLOR=1): no escape sequences at all
      expect(r.stdout).not.toContain('\u001b[');
    });
  }

  // "never with NO_COLOR, even forced" is checked by the runs above (NO_COLOR=1 FORCE_COLOR=1)
  it('colours diffs when forced (FORCE_COLOR=1)', async () => {
    const cwd = tempDir('run-color');
    const forced = await runCli(['run', '--approve-all', 'create notes.txt containing hello'], {
      cwd,
      env: cliEnv({ NO_COLOR: undefined, FORCE_COLOR: '1' }),
    });
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('\u001b[32m+hello\u001b[39m');
  });

  // the v2 run also checks --cwd and "-" (one run checks several things: a run costs more CPU than the checks)
  for (const protocol of ['1', '2'] as const) {
    it(`--json prints NDJSON: connection first (v${protocol}), result last${protocol === '2' ? '; --cwd sets the session directory (default would be the process cwd); "-" reads the prompt from stdin' : ''}`, async () => {
      const cwd = tempDir('run-json');
      const elsewhere = tempDir('run-elsewhere');
      const r =
        protocol === '1'
          ? await runCli(
              ['run', '--json', '--protocol', protocol, '--approve-all', 'create notes.txt containing hello'],
              { cwd },
            )
          : await runCli(['run', '--json', '--protocol', protocol, '--cwd', cwd, '--approve-all', '-'], {
              cwd: elsewhere,
              input: 'create notes.txt containing piped\n',
            });
      expect(r.code).toBe(0);
      const events = ndjson(r.stdout);
      const first = events[0]!;
      const last = events[events.length - 1]!;
      expect(first.type).toBe('connection');
      expect(first.protocolVersion).toBe(Number(protocol));
      expect(first.agentInfo.name).toBe('acp-kit-agent');
      expect(last).toMatchObject({ type: 'result', stopReason: 'end_turn', exitCode: 0, rejectedPermissions: 0 });
      expect(events.filter((e) => e.type === 'connection' || e.type === 'result')).toHaveLength(2);
      const session = events.find((e) => e.type === 'session')!;
      expect(session.cwd).toBe(cwd);
      // neutral updates, the same kinds in both versions
      const kinds = new Set(events.filter((e) => e.type === 'update').map((e) => e.update.sessionUpdate));
      expect(kinds).toContain('tool_call_update');
      expect(kinds).toContain('agent_message_chunk');
      expect(kinds).toContain('plan_update');
      const perm = events.find((e) => e.type === 'permission')!;
      expect(perm.allowed).toBe(true);
      expect(perm.outcome.outcome).toBe('selected');
      expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe(protocol === '1' ? 'hello\n' : 'piped\n');
      expect(existsSync(join(elsewhere, 'notes.txt'))).toBe(false);
    });
  }

  it('--deny-all: the file is not created and the exit code is 8', async () => {
    const cwd = tempDir('run-deny');
    const r = await runCli(['run', '--deny-all', 'create notes.txt containing hello'], { cwd });
    expect(r.code).toBe(8);
    expect(existsSync(join(cwd, 'notes.txt'))).toBe(false);
    expect(r.stdout).toMatch(/permission: .*notes\.txt\?? ✗ rejected \(policy --deny-all\)/);
    expect(r.stderr).toContain('rejected 1 permission request; exit code 8');

    const j = await runCli(['run', '--json', '--deny-all', 'create notes.txt containing hello'], { cwd });
    const last = ndjson(j.stdout).at(-1)!;
    expect(j.code).toBe(8);
    expect(last).toMatchObject({ type: 'result', stopReason: 'end_turn', exitCode: 8, rejectedPermissions: 1 });
  });

  it('default policy is --approve-reads: reads pass (exit 0), edits are rejected (exit 8)', async () => {
    const cwd = tempDir('run-reads');
    writeFileSync(join(cwd, 'README.md'), '# Title\nsecret-marker-42\n');
    const read = await runCli(['run', '--protocol', '1', 'read README.md'], { cwd });
    expect(read.code).toBe(0);
    expect(read.stdout).toContain('secret-marker-42');
    const edit = await runCli(['run', 'create notes.txt containing hello'], { cwd });
    expect(edit.code).toBe(8);
    expect(existsSync(join(cwd, 'notes.txt'))).toBe(false);
    expect(edit.stdout).toContain('policy --approve-reads');
  });
});

describe.concurrent('acp-kit run (agent written with the official SDK)', () => {
  it('writes through the client fs service with --approve-all', async () => {
    const cwd = tempDir('run-sdk');
    const r = await runCli(['run', '--agent', sdkAgent, '--approve-all', 'write out.txt hi there'], { cwd });
    expect(r.stderr).toContain('sdk-fixture-agent 9.9.9 · protocol v1');
    expect(r.code).toBe(0);
    expect(readFileSync(join(cwd, 'out.txt'), 'utf8')).toBe('hi there\n');
    expect(r.stdout).toContain('permission: Write out.txt ✓ allowed');
    expect(r.stdout).toContain('wrote out.txt');
    // the v1 request's tool call carries only its id: the library titles it from the tool call
    const j = await runCli(['run', '--json', '--agent', sdkAgent, '--deny-all', 'write out2.txt x'], { cwd });
    expect(j.code).toBe(8);
    expect(ndjson(j.stdout).find((e) => e.type === 'permission')).toMatchObject({
      request: { title: 'Write out2.txt' },
      allowed: false,
    });
  });
});

describe.concurrent('acp-kit run --tool-timeout (built-in demo agent)', () => {
  it('v2: a tool call running longer is cancelled alone with tool_call/cancel, reported in --json, and the turn ends end_turn', async () => {
    const cwd = tempDir('run-tool-timeout');
    const capture = join(cwd, 'cap.ndjson');
    const agent = `${process.execPath} ${BIN} proxy --record ${capture} -- ${process.execPath} ${BIN} agent --model demo`;
    const r = await runCli(
      [
        'run',
        '--json',
        '--protocol',
        '2',
        '--approve-all',
        '--tool-timeout',
        '300',
        '--agent',
        agent,
        'run sleep 30; echo never',
      ],
      { cwd, env: cliEnv() },
    );
    const events = ndjson(r.stdout);
    const timeout = events.find((e) => e.type === 'tool_timeout');
    expect(timeout).toMatchObject({ timeoutMs: 300, outcome: 'cancelled', toolCallId: expect.any(String) });
    // on the wire: one tool_call/cancel for that call, and no session/cancel
    const sent = (await readCapture(capture)).frames.filter((f) => f.dir === 'editor->agent' && f.kind === 'request');
    const cancels = sent.filter((f) => f.method === 'tool_call/cancel');
    expect(cancels.map((f) => (JSON.parse(f.raw) as { params: { toolCallId: string } }).params.toolCallId)).toEqual([
      timeout?.toolCallId,
    ]);
    expect(sent.map((f) => f.method)).not.toContain('session/cancel');
    // the call alone ended cancelled (only tool_call/cancel does that: session/cancel would end the turn)
    const calls = events
      .filter((e) => e.type === 'update')
      .map((e) => e.update as { sessionUpdate: string; toolCallId?: string; status?: string; data?: string })
      .filter((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === timeout?.toolCallId);
    expect(calls.at(-1)?.status).toBe('cancelled');
    expect(r.stdout).not.toContain(Buffer.from('never').toString('base64'));
    expect(events.at(-1)).toMatchObject({ type: 'result', stopReason: 'end_turn', exitCode: 0 });
    expect(r.code).toBe(0);
  });

  it('v1 (no tool_call/cancel): says the call cannot be cancelled and leaves it running to its end', async () => {
    const cwd = tempDir('run-tool-timeout-v1');
    const r = await runCli(
      ['run', '--protocol', '1', '--approve-all', '--tool-timeout', '100', 'run sleep 1; echo finished-anyway'],
      { cwd, env: cliEnv({ NO_COLOR: '1' }) },
    );
    expect(r.stderr).toMatch(
      /tool call .* ran longer than 100 ms: it does not advertise capabilities\.cancel, left running/,
    );
    expect(r.stdout).toContain('finished-anyway');
    expect(r.code).toBe(0);
  });

  it('refuses a value that is not a positive whole number of milliseconds', async () => {
    const r = await runCli(['run', '--tool-timeout', '1.5', 'hello'], { cwd: tempDir('run-tool-timeout-bad') });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--tool-timeout must be a positive whole number of milliseconds (got "1.5")');
  });
});

// how a client terminal is shown, the exit-code mapping and the signal handling are acp-kit run's, not
// SDK interop: a raw agent (no SDK to load)
describe.concurrent('acp-kit run (hand-written agent: client terminal, stop reasons, signals)', () => {
  it('shows a command the agent runs through the client (v1 terminal/*) as the agent sent it, with its output', async () => {
    const cwd = tempDir('run-sh');
    const r = await runCli(['run', '--agent', rawAgent, 'sh echo from-client-terminal; exit 3'], {
      cwd,
      env: cliEnv(),
    });
    expect(r.code).toBe(0);
    // the requested command line, not the `/bin/sh -c` it was run with
    expect(r.stdout).toContain('    $ echo from-client-terminal; exit 3\n');
    expect(r.stdout).toContain('    │ from-client-terminal');
    expect(r.stdout).toContain('    exit code 3');
    expect(r.stdout).toContain('command exited with 3');
  });

  it('maps stop reasons to their exit codes', async () => {
    const cwd = tempDir('run-stops');
    const expected: Record<string, number> = { max_tokens: 3, max_turn_requests: 4, refusal: 5, end_turn: 0 };
    const results = await Promise.all(
      Object.keys(expected).map(
        async (reason) =>
          [reason, await runCli(['run', '--json', '--agent', rawAgent, `stop ${reason}`], { cwd })] as const,
      ),
    );
    for (const [reason, r] of results) {
      expect(r.code, reason).toBe(expected[reason]);
      expect(ndjson(r.stdout).at(-1), reason).toMatchObject({
        type: 'result',
        stopReason: reason,
        exitCode: expected[reason],
      });
    }
  });

  it('Ctrl-C (SIGINT) cancels the turn, exits 130 and leaves no agent process behind', async () => {
    const cwd = tempDir('run-sigint');
    const marker = `marker-${randomUUID()}`;
    const run = startCli(['run', '--agent', `${rawAgent} ${marker}`, 'wait'], { cwd, env: cliEnv() });
    await waitFor(() => run.stdout().includes('waiting for a cancel'), 15_000, 'the agent to start waiting');
    expect(processWithMarkerAlive(marker)).toBe(true);
    run.child.kill('SIGINT');
    const r = await run.done;
    expect(r.code).toBe(130);
    expect(r.stdout).toContain('cancelled');
    expect(r.stdout).toContain('stop reason: cancelled');
    await waitFor(() => !processWithMarkerAlive(marker), 5000, 'the agent process to be gone');
  });

  it('SIGTERM closes the connection and exits 143 without orphaning the agent', async () => {
    const cwd = tempDir('run-sigterm');
    const marker = `marker-${randomUUID()}`;
    const run = startCli(['run', '--json', '--agent', `${rawAgent} ${marker}`, 'wait'], { cwd, env: cliEnv() });
    await waitFor(() => run.stdout().includes('waiting for a cancel'), 15_000, 'the agent to start waiting');
    run.child.kill('SIGTERM');
    const r = await run.done;
    expect(r.code).toBe(143);
    expect(ndjson(r.stdout).at(-1)).toMatchObject({ type: 'result', stopReason: null, exitCode: 143 });
    await waitFor(() => !processWithMarkerAlive(marker), 5000, 'the agent process to be gone');
  });
});
