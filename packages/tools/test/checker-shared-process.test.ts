/**
 * `check agent` shares one agent process between the cases that allow it (one per concurrency lane
 * and protocol version, initialized once), and `--process-per-case` / `processPerCase` gives every
 * case its own as before. Real processes over real pipes: the agents are started through a wrapper
 * that appends its pid to a file, so the processes are counted, not inferred.
 */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { checkAgent, type CheckRun } from '../src/checker/index.js';
import { ALL_CASES } from '../src/checker/cases/index.js';
import { removeTempDirs, tempDir } from '../../../test/support/temp.js';
import { fixtureAgent } from '../../../test/support/checker-agents.js';

const BIN = fileURLToPath(new URL('../../../bin/acp-kit.js', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/checker/agent.mjs', import.meta.url));
const run = promisify(execFile);

afterEach(() => removeTempDirs());

/** A shell script that appends its pid to `pids`, then becomes `command` (exec: the same process). */
function countingWrapper(dir: string, pids: string, command: readonly string[]): string {
  const path = join(dir, 'agent.sh');
  const quoted = command.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
  writeFileSync(path, `#!/bin/sh\necho $$ >> '${pids}'\nexec ${quoted} "$@"\n`);
  chmodSync(path, 0o755);
  return path;
}

const lines = (file: string): string[] => {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
};

interface Report {
  conformant: boolean;
  requirements: Array<{ id: string; protocol: number; status: string }>;
  cases: Array<{ name: string; protocol: number; status: string; process?: string }>;
}

/**
 * `acp-kit check agent --protocol both --json [flags] -- <wrapper of the fixture agent>`: the report and
 * the pids started. The fixture, not the built-in agent: the built-in demo's turns run `sleep 3`, which
 * made this pair of whole checks take ~60 s of a test fork for what the process count shows.
 */
async function checkFixture(flags: string[]): Promise<{ report: Report; pids: string[] }> {
  const dir = tempDir('acp-kit-shared-');
  const pids = join(dir, 'pids');
  const wrapper = countingWrapper(dir, pids, [process.execPath, FIXTURE]);
  const r = await run(
    process.execPath,
    [BIN, 'check', 'agent', '--protocol', 'both', '--json', ...flags, '--', wrapper],
    {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', FIXTURE_STORE: tempDir('acp-kit-shared-store-') },
      timeout: 150_000,
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  const report = JSON.parse(r.stdout.split('\n')[0] ?? '') as Report;
  return { report, pids: lines(pids) };
}

const verdicts = (r: Report) => r.requirements.map((x) => `v${x.protocol} ${x.id} ${x.status}`).sort();
const failed = (run: CheckRun) =>
  run.requirements
    .filter((r) => r.status === 'fail')
    .map((r) => `v${r.protocol} ${r.id}`)
    .sort();

describe('check agent: shared agent processes', () => {
  it('--protocol both: about half the processes of --process-per-case, the same verdict', async () => {
    const shared = await checkFixture([]);
    const own = await checkFixture(['--process-per-case']);
    const cases = shared.report.cases.length;
    expect(own.report.cases.length).toBe(cases);
    // per case: one process each, plus the second process of the cases that span two
    expect(own.pids.length).toBeGreaterThanOrEqual(cases);
    expect(own.report.cases.every((c) => c.process === 'own')).toBe(true);
    const sharedCases = shared.report.cases.filter((c) => c.process === 'shared');
    const ownCases = shared.report.cases.filter((c) => c.process === 'own').map((c) => c.name);
    // the cases about the process itself keep their own; every other case shares
    const declared = new Set(ALL_CASES.filter((c) => c.ownProcess === true).map((c) => c.name));
    expect(ownCases.every((n) => declared.has(n))).toBe(true);
    expect(sharedCases.length).toBeGreaterThan(cases / 2);
    // 4 lanes x 2 versions of shared processes at most, unless a case retired one
    expect(shared.pids.length).toBeLessThanOrEqual(own.pids.length - sharedCases.length + 8 + 2);
    expect(shared.pids.length).toBeLessThan(own.pids.length * 0.6);
    expect(shared.report.conformant).toBe(true);
    expect(verdicts(shared.report)).toEqual(verdicts(own.report));
  }, 300_000);

  it('a case that fails on a shared process retires it: one more process, and the cases after it pass', async () => {
    const dir = tempDir('acp-kit-shared-');
    const pids = join(dir, 'pids');
    const agent = countingWrapper(dir, pids, [process.execPath, FIXTURE]);
    const env = { BREAK: 'ext-result-once', ONCE_MARK: join(dir, 'broken-once') };
    // initialize/basic (own), extensions/methods (shared, broken once), jsonrpc/notifications (shared)
    const only = ['ACP-ALL-EXT-05', 'ACP-ALL-RPC-02'];
    const result = await checkAgent({ command: agent, env }, { protocols: [1], concurrency: 1, only });
    // the one broken answer fails its requirement, and nothing else
    expect(failed(result)).toEqual(['v1 ACP-ALL-EXT-05']);
    expect(result.cases.find((c) => c.name === 'extensions/methods')?.process).toBe('shared');
    // the same agent, unbroken: one process fewer (the retired one's replacement)
    const cleanPids = join(dir, 'clean-pids');
    const clean = countingWrapper(tempDir('acp-kit-shared-'), cleanPids, [process.execPath, FIXTURE]);
    const cleanRun = await checkAgent({ command: clean, env: {} }, { protocols: [1], concurrency: 1, only });
    expect(cleanRun.cases.map((c) => c.status)).toEqual(['ran', 'ran', 'ran']);
    expect(failed(cleanRun)).toEqual([]);
    expect(lines(pids).length).toBe(lines(cleanPids).length + 1);
  }, 120_000);

  it('the case after a failed one on the same lane gets a fresh process, which begins with initialize', async () => {
    const dir = tempDir('acp-kit-shared-');
    const log = join(dir, 'requests');
    const env = { BREAK: 'ext-result-once', ONCE_MARK: join(dir, 'broken-once'), REQUEST_LOG: log };
    // two shared cases on one lane: extensions/methods (broken), then jsonrpc/notifications
    const result = await checkAgent(
      { command: process.execPath, args: [FIXTURE], env },
      { protocols: [1], concurrency: 1, only: ['ACP-ALL-EXT-05', 'ACP-ALL-RPC-02'] },
    );
    expect(result.cases.map((c) => `${c.name} ${c.process}`)).toEqual([
      'initialize/basic own',
      'extensions/methods shared',
      'jsonrpc/notifications shared',
    ]);
    expect(failed(result)).toEqual(['v1 ACP-ALL-EXT-05']);
    // the agents' own log: which process was asked what, in order
    const entries = lines(log).map((l) => l.split(' '));
    const broke = entries.findIndex(([, m]) => m === '_acp_kit_check/unknown_method');
    const brokenBy = entries[broke]?.[0];
    const rest = entries.slice(broke + 1);
    // the broken process was asked nothing more than its own case's round trip
    expect(rest.filter(([p]) => p === brokenBy).map(([, m]) => m)).toEqual(['_acp_kit_check/ping']);
    const fresh = rest.find(([p]) => p !== brokenBy);
    expect(fresh?.[1]).toBe('initialize');
    expect(entries.slice(0, broke).some(([p]) => p === fresh?.[0])).toBe(false);
  }, 120_000);

  it("a late notification of an earlier case's session lands in a later case of the process and fails nothing", async () => {
    const dir = tempDir('acp-kit-shared-');
    const log = join(dir, 'requests');
    const result = await checkAgent(
      { command: process.execPath, args: [FIXTURE], env: { LATE_MS: '150', REQUEST_LOG: log } },
      { protocols: [1], concurrency: 1 },
    );
    expect(failed(result)).toEqual([]);
    expect(result.conformant).toBe(true);
    // the agent sent its late updates after sessions of later cases were made: each case makes at
    // most two sessions, so a session with two or more newer ones belongs to a case already over
    const late = lines(log).filter((l) => / late /.test(l));
    expect(late.some((l) => Number(/newer=(\d+)/.exec(l)?.[1]) >= 2)).toBe(true);
  }, 120_000);

  it('a shared agent is handed on with no session open: the checker closes what each case opened', async () => {
    const dir = tempDir('acp-kit-shared-');
    /** The most sessions each instance held when asked anything, by `<pid>-<instance>`. */
    const mostOpen = async (name: string, env: Record<string, string>) => {
      const log = join(dir, name);
      const agent = fixtureAgent({ ...env, FIXTURE_STORE: tempDir('acp-kit-shared-'), REQUEST_LOG: log });
      const result = await checkAgent(agent.agent, { protocols: [1, 2], concurrency: 1 });
      const most = new Map<string, number>();
      for (const [who, , open] of lines(log).map((l) => l.split(' ')))
        most.set(who ?? '', Math.max(most.get(who ?? '') ?? 0, Number(open?.slice('open='.length))));
      return { result, most: [...most.values()], instances: agent.started() };
    };
    const closing = await mostOpen('closing', {});
    expect(failed(closing.result)).toEqual([]);
    // a case opens at most three sessions; without the closes, one shared instance held every case's
    const sharedCases = closing.result.cases.filter((c) => c.process === 'shared').length;
    expect(sharedCases).toBeGreaterThan(20);
    expect(Math.max(...closing.most)).toBeLessThanOrEqual(3);
    // an agent without session/close keeps its sessions: its instance is retired before it holds 8 + a case's
    const keeping = await mostOpen('keeping', { NO_CLOSE: '1' });
    expect(failed(keeping.result)).toEqual([]);
    expect(Math.max(...keeping.most)).toBeLessThanOrEqual(8 + 3);
    expect(keeping.instances).toBeGreaterThan(closing.instances);
  }, 60_000);

  it('an in-process agent shares instances the same way, and every instance is closed after the run', async () => {
    const shared = fixtureAgent({ FIXTURE_STORE: tempDir('acp-kit-shared-') });
    const sharedRun = await checkAgent(shared.agent, { protocols: [1, 2] });
    const own = fixtureAgent({ FIXTURE_STORE: tempDir('acp-kit-shared-') });
    const ownRun = await checkAgent(own.agent, { protocols: [1, 2], processPerCase: true });
    expect(failed(sharedRun)).toEqual(failed(ownRun));
    expect(sharedRun.cases.some((c) => c.process === 'shared')).toBe(true);
    expect(own.started()).toBeGreaterThanOrEqual(ownRun.cases.length);
    expect(shared.started()).toBeLessThan(own.started() * 0.7);
    expect([shared.live(), own.live()]).toEqual([0, 0]);
  }, 60_000);

  it('processPerCase: every case in a process of its own, the same verdict', async () => {
    const dir = tempDir('acp-kit-shared-');
    const pids = join(dir, 'pids');
    const agent = countingWrapper(dir, pids, [process.execPath, FIXTURE]);
    const result = await checkAgent({ command: agent }, { protocols: [1], processPerCase: true });
    expect(result.cases.every((c) => c.process === 'own')).toBe(true);
    expect(lines(pids).length).toBeGreaterThanOrEqual(result.cases.length);
    expect(failed(result)).toEqual([]);
  }, 120_000);
});
