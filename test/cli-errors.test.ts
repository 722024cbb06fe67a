/**
 * Errors, help and sessions of the `acp-kit` CLI as a real process (needs `npm run build`):
 * every failure has its documented exit code and a hint.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import {
  FIXTURES,
  cliEnv,
  ndjson,
  processWithMarkerAlive,
  runCli,
  startCli,
  tempDir,
  waitFor,
} from './fixtures/cli-helpers.js';
import { runCliInProcess } from './fixtures/cli-in-process.js';

// a hand-written v1-only agent: these tests are about acp-kit's handling, not SDK interop (cli-run's are)
const v1Agent = `node ${join(FIXTURES, 'cli-raw-v1-agent.mjs')}`;

function pidsWithMarker(marker: string): string[] {
  return readdirSync('/proc').filter((pid) => {
    try {
      return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
    } catch {
      return false;
    }
  });
}

describe.concurrent('acp-kit errors', () => {
  it('agent command not found: exit 9 with a hint', async () => {
    const r = await runCli(['run', '--agent', 'no-such-acp-agent-xyz --acp', 'hi'], { cwd: tempDir('e-nf') });
    expect(r.code).toBe(9);
    expect(r.stderr).toContain('acp-kit: error: agent command not found: no-such-acp-agent-xyz');
    expect(r.stderr).toMatch(/hint: Check that "no-such-acp-agent-xyz" is installed and on your PATH/);
    expect(r.stdout).toBe('');
  });

  it('agent not found with --json: the result line carries the error', async () => {
    const r = await runCli(['run', '--json', '--agent', 'no-such-acp-agent-xyz', 'hi'], { cwd: tempDir('e-nfj') });
    expect(r.code).toBe(9);
    const events = ndjson(r.stdout);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'result',
      stopReason: null,
      exitCode: 9,
      error: { kind: 'agent_not_found', exitCode: 9 },
    });
    expect(events[0]!.error.hint).toContain('PATH');
  });

  it('agent crash: exit 9 with its exit code and last stderr lines', async () => {
    const r = await runCli(['run', '--agent', `node ${join(FIXTURES, 'cli-crash-agent.mjs')}`, 'hi'], {
      cwd: tempDir('e-crash'),
    });
    expect(r.code).toBe(9);
    expect(r.stderr).toMatch(/the agent exited with code 3/);
    expect(r.stderr).toContain('fixture: FATAL missing FIXTURE_TOKEN');
    expect(r.stderr).toContain('hint:');
  });

  it('agent crash in the middle of a turn: exit 9 with the stderr tail', async () => {
    const r = await runCli(['run', '--json', '--agent', v1Agent, 'crash'], { cwd: tempDir('e-crash2') });
    expect(r.code).toBe(9);
    expect(r.stderr).toMatch(/the agent exited with code 4/);
    expect(r.stderr).toContain('fixture: segfault-ish failure in turn');
    const events = ndjson(r.stdout);
    expect(events[0]!.type).toBe('connection');
    expect(events.at(-1)).toMatchObject({
      type: 'result',
      stopReason: null,
      exitCode: 9,
      error: { kind: 'agent_crashed' },
    });
  });

  it('a prompt answered with a JSON-RPC error: exit 7 with the message', async () => {
    const r = await runCli(['run', '--agent', v1Agent, 'fail'], { cwd: tempDir('e-fail') });
    expect(r.code).toBe(7);
    // v1's JSON-RPC error is the turn's `error` stop, shown like v2's: in the transcript's stop line
    expect(r.stdout).toMatch(/stop reason: error .*the model backend is down/);
  });

  it('an agent that never answers initialize: exit 9 after --connect-timeout, no orphan left', async () => {
    const marker = `mute-${randomUUID()}`;
    const r = await runCli(
      ['run', '--connect-timeout', '1', '--agent', `node -e "setTimeout(() => {}, 1e6)" ${marker}`, 'hi'],
      { cwd: tempDir('e-mute') },
    );
    expect(r.code).toBe(9);
    expect(r.stderr).toContain('the agent did not answer initialize within 1 s');
    expect(r.stderr).toContain('--connect-timeout');
    await waitFor(() => !processWithMarkerAlive(marker), 5000, 'the mute agent to be killed');
  });

  it('Ctrl-C while waiting for initialize: exit 130 at once (not after --connect-timeout), agent killed', async () => {
    const marker = `mute-int-${randomUUID()}`;
    const run = startCli(
      ['run', '--json', '--connect-timeout', '60', '--agent', `node -e "setTimeout(() => {}, 1e6)" ${marker}`, 'hi'],
      { cwd: tempDir('e-mute-int') },
    );
    // the marker is in the CLI's own argv too: wait for a second process (the spawned agent)
    await waitFor(() => pidsWithMarker(marker).length >= 2, 10_000, 'the mute agent to start');
    const sent = Date.now();
    run.child.kill('SIGINT');
    const r = await run.done;
    expect(Date.now() - sent).toBeLessThan(5000);
    expect(r.code).toBe(130);
    expect(ndjson(r.stdout).at(-1)).toMatchObject({
      type: 'result',
      stopReason: null,
      exitCode: 130,
      error: { kind: 'interrupted' },
    });
    await waitFor(() => !processWithMarkerAlive(marker), 5000, 'the mute agent to be killed');
  });

  it('version mismatch: exit 10 (agent answers a version acp-kit does not speak)', async () => {
    const r = await runCli(['run', '--agent', `node ${join(FIXTURES, 'cli-v3-agent.mjs')}`, 'hi'], {
      cwd: tempDir('e-v3'),
    });
    expect(r.code).toBe(10);
    expect(r.stderr).toContain('protocol version mismatch: the agent answered version 3');
    expect(r.stderr).toContain('hint:');
  });

  it('version mismatch: --protocol 2 against a v1-only agent suggests dropping --protocol', async () => {
    const r = await runCli(['run', '--protocol', '2', '--agent', v1Agent, 'hi'], { cwd: tempDir('e-v2') });
    expect(r.code).toBe(10);
    expect(r.stderr).toContain('the agent answered version 1');
    expect(r.stderr).toContain('Drop --protocol');
  });

  it('authentication required: exit 11 listing the methods', async () => {
    const r = await runCli(['run', '--agent', v1Agent, 'hi'], {
      cwd: tempDir('e-auth'),
      env: cliEnv({ CLI_FIXTURE_AUTH: '1' }),
    });
    expect(r.code).toBe(11);
    expect(r.stderr).toContain('the agent requires authentication');
    expect(r.stderr).toContain('API key (id api-key): set FIXTURE_KEY');
    expect(r.stderr).toContain('hint:');
  });

  it('bad flags and arguments: exit 2 with a hint', async () => {
    const cwd = tempDir('e-usage');
    // the last element: a real process, or in this process (commander's parse: no action runs, no
    // process is touched; ~0.2 s of CPU saved each); each kind of failure has one real process
    const cases: Array<[string[], RegExp, 'process' | 'in process']> = [
      [['run', '--bogus', 'x'], /unknown option '--bogus'/, 'process'],
      [['run', '--approve-all', '--deny-all', 'x'], /cannot be used with/, 'in process'],
      [['run', '--protocol', '3', 'x'], /Allowed choices are auto, 1, 2/, 'in process'],
      [['run'], /missing required argument 'prompt'/, 'in process'],
      [['run', '--agent', "node 'oops", 'x'], /unterminated single quote/, 'process'],
      [['run', '--cwd', join(cwd, 'missing'), 'x'], /--cwd .* does not exist/, 'process'],
      [['frobnicate'], /unknown command 'frobnicate'/, 'process'],
    ];
    const results = await Promise.all(
      cases.map(([args, , how]) => (how === 'process' ? runCli(args, { cwd }) : runCliInProcess(args))),
    );
    results.forEach((r, i) => {
      expect(r.code, cases[i]![0].join(' ')).toBe(2);
      expect(r.stderr, cases[i]![0].join(' ')).toMatch(cases[i]![1]);
      expect(r.stderr, cases[i]![0].join(' ')).toContain('hint:');
    });
  });

  it('chat without a terminal is a usage error pointing to run', async () => {
    const r = await runCli(['chat'], { cwd: tempDir('e-chat') });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('chat needs an interactive terminal');
    expect(r.stderr).toContain('acp-kit run');
  });
});

describe.concurrent('acp-kit help and version', () => {
  it('--version prints the package version', async () => {
    const pkg = JSON.parse(readFileSync(resolve('package.json'), 'utf8')) as { version: string };
    const r = await runCli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
  });

  it('--help lists the commands and the exit code table', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    for (const c of ['run', 'chat', 'sessions', 'agent']) expect(r.stdout).toMatch(new RegExp(`^  ${c}\\b`, 'm'));
    expect(r.stdout).toContain('Exit codes:');
    expect(r.stdout).toMatch(/^\s+8 {2}the permission policy rejected a request/m);
    expect(r.stdout).toMatch(/^\s+130 {2}interrupted with Ctrl-C/m);
  });

  it('every command has --help', async () => {
    const cmds = [['run'], ['chat'], ['sessions'], ['sessions', 'list'], ['sessions', 'show'], ['agent']];
    // `run --help` as a real process (stdout and exit 0 as a shell sees them), the others in this
    // process: help is commander's text, printed before any action (~0.2 s of CPU saved each)
    const results = await Promise.all(
      cmds.map((c, i) => (i === 0 ? runCli([...c, '--help']) : runCliInProcess([...c, '--help']))),
    );
    results.forEach((r, i) => {
      expect(r.code, cmds[i]!.join(' ')).toBe(0);
      expect(r.stdout, cmds[i]!.join(' ')).toContain(`Usage: acp-kit ${cmds[i]!.join(' ')}`);
    });
    expect(results[0]!.stdout).toContain('--approve-reads');
    expect(results[0]!.stdout).toContain('Exit codes:');
    expect(results[5]!.stdout).toContain('--max-turn-requests');
    // chat takes the same model flags as run (moved here from cli-run-models: one process fewer)
    expect(results[1]!.stdout).toMatch(/--model <id>[\s\S]*--model-name <name>[\s\S]*--base-url <url>/);
  });

  it('bare acp-kit without a terminal prints help and exits 2', async () => {
    const r = await runCli([]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Usage: acp-kit');
  });
});
