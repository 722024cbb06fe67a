/**
 * The checker's in-process launch (src/checker/driver.ts `InProcessAgent`): an agent served on
 * in-memory streams is judged by the same framing checks as a process, every agent the checker
 * would spawn is a fresh instance (sharing only what the factory closes over, like a store on
 * disk), and every instance is closed when its case ends.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ALL_CASES } from '../src/checker/cases/index.js';
import type { InProcessAgent } from '../src/checker/launch.js';
import { runChecks, type CheckRun } from '../src/checker/runner.js';
import { startFixtureAgent } from '../../../test/fixtures/checker/agent-core.mjs';
import { acpKitAgent, counted, fixtureAgent } from '../../../test/support/checker-agents.js';

const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/checker/agent.mjs', import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const scratch = () => {
  const d = realpathSync(mkdtempSync(join(tmpdir(), 'acp-kit-checker-inproc-')));
  dirs.push(d);
  return d;
};
const cases = (...names: string[]) => ALL_CASES.filter((c) => names.includes(c.name));
const failed = (run: CheckRun) =>
  run.requirements
    .filter((r) => r.status === 'fail')
    .map((r) => `v${r.protocol} ${r.id}`)
    .sort();
const statusOf = (run: CheckRun, name: string) =>
  run.cases.filter((c) => c.name === name).map((c) => `v${c.protocol} ${c.status}`);
const common = (cwd: string, timeoutMs = 8000) => ({ cwd, timeoutMs, prompt: 'go', clientVersion: 'test' });

describe('checker: in-process agents', () => {
  it.each([
    ['stdout-log', 'ACP-ALL-TRANS-05'],
    ['invalid-utf8', 'ACP-ALL-TRANS-01'],
  ])(
    'an in-process agent breaking framing (%s) fails the same requirement as the process',
    async (rule, id) => {
      const only = cases('initialize/basic');
      const dir = scratch();
      const agent = fixtureAgent({ BREAK: rule, FIXTURE_STORE: dir });
      const inProcess = await runChecks({ inProcess: agent.agent, ...common(dir) }, { protocols: [1, 2], cases: only });
      const asProcess = await runChecks(
        { command: process.execPath, args: [FIXTURE], env: { BREAK: rule, FIXTURE_STORE: dir }, ...common(dir) },
        { protocols: [1, 2], cases: only },
      );
      expect(failed(inProcess)).toEqual([`v1 ${id}`, `v2 ${id}`]);
      expect(failed(asProcess)).toEqual(failed(inProcess));
      // the offending line is quoted the same way
      const messages = (run: CheckRun) => run.requirements.flatMap((r) => r.failures.map((f) => f.message));
      expect(messages(inProcess)).toEqual(messages(asProcess));
      expect(agent.live()).toBe(0);
    },
    30_000,
  );

  it('a case that spawns again gets a new instance that shares only the store the factory closes over', async () => {
    const dir = scratch();
    const shared = fixtureAgent({ FIXTURE_STORE: dir });
    const run = await runChecks(
      { inProcess: shared.agent, ...common(dir) },
      { protocols: [2], cases: cases('sessions/resume-v2') },
    );
    expect(failed(run)).toEqual([]);
    expect(run.requirements.find((r) => r.id === 'ACP-V2-RESUME-03')?.status).toBe('pass');
    expect(shared.started()).toBe(2);
    // without a shared store the second instance knows nothing of the first one's session: it really is another instance
    const alone = fixtureAgent({});
    const lost = await runChecks(
      { inProcess: alone.agent, ...common(scratch()) },
      { protocols: [2], cases: cases('sessions/resume-v2') },
    );
    // a session that did not survive its instance is not exercised, not a failure: no route is guaranteed to persist (issue 23 item 14a)
    expect(failed(lost)).toEqual([]);
    expect(lost.cases.find((c) => c.name === 'sessions/resume-v2')?.reason).toMatch(
      /new process of the agent does not know the session/,
    );
    expect(alone.started()).toBe(2);
    expect([shared.live(), alone.live()]).toEqual([0, 0]);
  }, 30_000);

  it('acp-kit agent instances load a v1 session from the JSONL store the previous instance wrote', async () => {
    const dir = scratch();
    const agent = acpKitAgent(dir);
    const run = await runChecks(
      { inProcess: agent.agent, ...common(dir) },
      { protocols: [1], cases: cases('sessions/load-v1') },
    );
    expect(failed(run)).toEqual([]);
    expect(statusOf(run, 'sessions/load-v1')).toEqual(['v1 ran']);
    expect(agent.started()).toBe(2);
    expect(agent.live()).toBe(0);
  }, 30_000);

  it('an agent that ignores the end of its input fails exit-on-eof and is still closed when the case ends', async () => {
    const dir = scratch();
    // the fixture behind a copy of the input that only close() ends
    const stubborn = counted(((io) => {
      const input = new PassThrough();
      io.input.on('data', (chunk: Buffer) => input.write(chunk));
      const h = startFixtureAgent({ input, output: io.output }, { FIXTURE_STORE: dir });
      return { closed: h.closed, close: () => input.end() };
    }) satisfies InProcessAgent);
    const run = await runChecks(
      { inProcess: stubborn.agent, ...common(dir, 500) },
      { protocols: [2], cases: cases('stdout/exit-on-eof') },
    );
    expect(failed(run)).toEqual(['v2 ACP-ALL-TRANS-03']);
    expect(stubborn.started()).toBe(1);
    expect(stubborn.live()).toBe(0);
  }, 30_000);

  it('an agent that cannot start is an error of the case, not a hang', async () => {
    const broken: InProcessAgent = () => {
      throw new Error('no model configured');
    };
    const run = await runChecks(
      { inProcess: broken, ...common(scratch()) },
      { protocols: [2], cases: cases('initialize/basic') },
    );
    expect(run.conformant).toBe(false);
    expect(run.cases.map((c) => [c.status, c.reason])).toEqual([
      ['error', 'the agent could not be started: no model configured'],
    ]);
  }, 30_000);
});
