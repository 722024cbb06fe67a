/**
 * One `--json` shape for every command (src/cli/README.md, "--json output"): every line is an
 * object with a `type`, and the last line is `{"type":"result", ..., "exitCode"}` equal to the
 * process's exit code — on success, on empty lists and on usage errors. The commands are taken
 * from the commander program, so a new command with `--json` fails here until it has a case.
 * Real `acp-kit` processes; needs `npm run build`.
 */
import { copyFileSync, cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it, type TestContext } from 'vitest';
import { buildProgram } from '../src/cli/program.js';
import { runCliInProcess } from './fixtures/cli-in-process.js';
import { cliEnv, FIXTURES, ndjson, runCli, tempDir, type CliResult } from './fixtures/cli-helpers.js';

const CAPTURE = join(FIXTURES, 'proxy-captures', 'v1-clean.ndjson');
const CHECK_AGENT = join(FIXTURES, 'checker', 'agent.mjs');
const CHECK_CLIENT = join(FIXTURES, 'checker', 'client.mjs');

/** Every command path (`sessions list`) that has a `--json` option. */
function jsonCommands(c: Command, prefix: string[] = []): string[] {
  return c.commands.flatMap((sub) => {
    const path = [...prefix, sub.name()];
    return [...(sub.options.some((o) => o.long === '--json') ? [path.join(' ')] : []), ...jsonCommands(sub, path)];
  });
}

const SCRIPTED = `${process.execPath} ${join(FIXTURES, 'agent-scripted.mjs')}`;

interface Setup {
  env: NodeJS.ProcessEnv;
  cwd: string;
  data: string;
}
function setup(ctx: TestContext): Setup {
  const data = tempDir('json-every-data');
  const cwd = tempDir('json-every-cwd');
  ctx.onTestFinished(() => {
    rmSync(data, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
  });
  return { env: cliEnv({ ACP_KIT_DATA_DIR: data }), cwd, data };
}

/** The file's one `run` of the built-in agent: its data folder and cwd, and the session it made. */
let seeded: Promise<{ data: string; cwd: string; id: string }> | undefined;
async function seedSession(): Promise<{ data: string; cwd: string; id: string }> {
  const data = tempDir('json-every-seed-data');
  const cwd = tempDir('json-every-seed-cwd');
  const first = ndjson(
    (await runCli(['run', '--json', 'hi'], { env: cliEnv({ ACP_KIT_DATA_DIR: data }), cwd })).stdout,
  );
  const id = first.find((e) => e.type === 'session')?.sessionId;
  expect(typeof id).toBe('string');
  return { data, cwd, id };
}

/**
 * A session of the built-in agent made by a `run`, in this test's own data folder: a copy of the
 * folder the file's one seeding `run` wrote (six commands each need a session of their own to
 * show, fork, rename, archive, unarchive or delete; a `run` costs ~0.3 s of CPU, a copy nothing).
 * The commands run in the seeding run's cwd, where the session was made.
 */
async function firstSession(s: Setup): Promise<{ id: string; cwd: string }> {
  const seed = await (seeded ??= seedSession());
  cpSync(seed.data, s.data, { recursive: true });
  return { id: seed.id, cwd: seed.cwd };
}

/** `acp-kit sessions <verb> <the session of firstSession> ...rest --json`. */
async function onSession(s: Setup, verb: string, rest: string[] = []): Promise<CliResult> {
  const { id, cwd } = await firstSession(s);
  return runCli(['sessions', verb, id, ...rest, '--json'], { env: s.env, cwd });
}

/** A run of each command that succeeds (or, for the checkers, reaches its verdict). */
const success: Record<string, (s: Setup) => Promise<CliResult>> = {
  run: (s) => runCli(['run', '--json', 'hi'], { env: s.env, cwd: s.cwd }),
  'sessions list': (s) => runCli(['sessions', 'list', '--json'], { env: s.env, cwd: s.cwd }),
  'sessions show': (s) => onSession(s, 'show'),
  'sessions fork': (s) => onSession(s, 'fork'),
  'sessions rename': (s) => onSession(s, 'rename', ['A title']),
  'sessions archive': (s) => onSession(s, 'archive'),
  'sessions unarchive': (s) => onSession(s, 'unarchive'),
  'sessions status': (s) => onSession(s, 'status'),
  'sessions delete': (s) => onSession(s, 'delete'),
  'auth status': (s) => runCli(['auth', 'status', '--json'], { env: s.env, cwd: s.cwd }),
  // the scripted agent with its auth methods (the built-in agent has none)
  'auth login': (s) =>
    runCli(['auth', 'login', 'token', '--agent', SCRIPTED, '--json'], {
      env: { ...s.env, AGENT_AUTH: '1' },
      cwd: s.cwd,
    }),
  'auth logout': (s) =>
    runCli(['auth', 'logout', '--agent', SCRIPTED, '--json'], { env: { ...s.env, AGENT_AUTH: '1' }, cwd: s.cwd }),
  'providers list': (s) => runCli(['providers', 'list', '--json'], { env: s.env, cwd: s.cwd }),
  'providers set': (s) =>
    runCli(['providers', 'set', 'openai', '--endpoint', 'http://127.0.0.1:9/v1', '--json'], { env: s.env, cwd: s.cwd }),
  'providers disable': (s) => runCli(['providers', 'disable', 'openai', '--json'], { env: s.env, cwd: s.cwd }),
  'sessions import': (s) => {
    const file = join(s.cwd, 'session.json');
    const session = {
      sessionId: 'sess_imported',
      cwd: s.cwd,
      additionalDirectories: [],
      createdAt: '2026-01-01T00:00:00Z',
    };
    writeFileSync(file, JSON.stringify({ format: 'acp-kit-session', version: 1, session, updates: [] }));
    return runCli(['sessions', 'import', file, '--json'], { env: s.env, cwd: s.cwd });
  },
  'profiles list': (s) => runCli(['profiles', 'list', '--json'], { env: s.env, cwd: s.cwd }),
  'profiles show': (s) => {
    mkdirSync(join(s.env.XDG_CONFIG_HOME!, 'acp-kit'), { recursive: true });
    writeFileSync(
      join(s.env.XDG_CONFIG_HOME!, 'acp-kit', 'config.json'),
      JSON.stringify({ profiles: { p: { mode: 'ask' } } }),
    );
    return runCli(['profiles', 'show', 'p', '--json'], { env: s.env, cwd: s.cwd });
  },
  'captures list': (s) => runCli(['captures', 'list', '--json'], { env: s.env, cwd: s.cwd }),
  // offline: the snapshot shipped in the package
  'agents list': (s) => runCli(['agents', 'list', '--json'], { env: { ...s.env, ACP_KIT_OFFLINE: '1' }, cwd: s.cwd }),
  // one requirement judged by one case each: the --json shape is the same for one case as for fifty,
  // and each case starts the agent again (ACP-ALL-RPC-0* ran 24 cases: ~2.3 s of CPU, this ~0.25 s)
  'check agent': (s) =>
    runCli(
      ['check', 'agent', '--protocol', '1', '--only', 'ACP-V1-INIT-01', '--json', '--', process.execPath, CHECK_AGENT],
      { env: { ...s.env, FIXTURE_STORE: s.cwd }, cwd: s.cwd },
    ),
  'check client': (s) =>
    runCli(
      [
        'check',
        'client',
        '--protocol',
        '1',
        '--only',
        'ACP-ALL-TRANS-05',
        '--json',
        '--',
        process.execPath,
        CHECK_CLIENT,
      ],
      { env: s.env, cwd: s.cwd },
    ),
  'check proxy': (s) =>
    runCli(['check', 'proxy', '--json', '--', process.execPath, resolve('examples/system-note-component.mjs')], {
      env: s.env,
      cwd: s.cwd,
    }),
  validate: (s) => runCli(['validate', CAPTURE, '--json'], { env: s.env, cwd: s.cwd }),
  stats: (s) => runCli(['stats', CAPTURE, '--json'], { env: s.env, cwd: s.cwd }),
  diff: (s) => runCli(['diff', CAPTURE, CAPTURE, '--json'], { env: s.env, cwd: s.cwd }),
};

/** Every line typed, exactly one `result` and it is last, its exitCode the process's; returns it. */
function expectResultShape(r: CliResult): Record<string, any> {
  const events = ndjson(r.stdout);
  expect(events.length, `stdout: ${r.stdout}\nstderr: ${r.stderr}`).toBeGreaterThan(0);
  for (const e of events) expect(typeof e.type).toBe('string');
  expect(events.filter((e) => e.type === 'result')).toHaveLength(1);
  const last = events.at(-1)!;
  expect(last.type).toBe('result');
  expect(last.exitCode).toBe(r.code);
  return last;
}

const commands = jsonCommands(buildProgram({ code: 0 }));

/**
 * The commands whose usage error runs as a real `acp-kit` process (what a script sees of a process:
 * its exit code, its last stdout line); the others run in this process (runMain: the same parse, the
 * same error path, no action runs), as every command's success case above is a real process already.
 */
const USAGE_IN_PROCESSES = new Set(['run', 'sessions list', 'check agent', 'validate']);

it('every command with --json has a case here', () => {
  expect(commands.length).toBeGreaterThan(5);
  expect(commands.filter((c) => !(c in success))).toEqual([]);
});

describe.concurrent('--json: the last line is the result, its exitCode the process exit code', () => {
  for (const path of commands) {
    it(`${path}: success`, async (ctx) => {
      const r = await success[path]!(setup(ctx));
      expect(r.code, r.stderr).toBe(path.startsWith('check ') ? r.code : 0);
      expectResultShape(r);
    }, 60_000);

    it(`${path}: a usage error is exit 2 and a result line with the error (run's turn fields only on run)${USAGE_IN_PROCESSES.has(path) ? '' : ' (in process)'}`, async (ctx) => {
      const s = setup(ctx);
      const args = [...path.split(' '), '--json', '--bogus'];
      const r = USAGE_IN_PROCESSES.has(path)
        ? await runCli(args, { env: s.env, cwd: s.cwd })
        : await runCliInProcess(args, { ACP_KIT_DATA_DIR: s.data, XDG_CONFIG_HOME: s.env.XDG_CONFIG_HOME });
      expect(r.code).toBe(2);
      const last = expectResultShape(r);
      expect(last.error).toMatchObject({ kind: 'usage', exitCode: 2 });
      expect(last.error.message).toMatch(/unknown option '--bogus'/);
      if (path === 'run') expect(last).toMatchObject({ stopReason: null, rejectedPermissions: 0 });
      else expect(Object.keys(last).sort()).toEqual(['error', 'exitCode', 'type']);
    }, 30_000);
  }

  it('captures list --json with one capture: a typed capture line, then the result', async (ctx) => {
    const s = setup(ctx);
    mkdirSync(join(s.data, 'captures'), { recursive: true });
    copyFileSync(CAPTURE, join(s.data, 'captures', 'one.ndjson'));
    const r = await runCli(['captures', 'list', '--json'], { env: s.env, cwd: s.cwd });
    expect(r.code).toBe(0);
    const events = ndjson(r.stdout);
    expect(events.map((e) => e.type)).toEqual(['capture', 'result']);
    expect(events[1]).toMatchObject({ captures: 1, exitCode: 0 });
  });

  it('validate --json: a capture with violations ends with exitCode 1', async (ctx) => {
    const s = setup(ctx);
    const r = await runCli(['validate', join(FIXTURES, 'proxy-captures', 'duplicate-request-id.ndjson'), '--json'], {
      env: s.env,
      cwd: s.cwd,
    });
    expect(r.code).toBe(1);
    expect(expectResultShape(r).violations).toBeGreaterThan(0);
  });
});
