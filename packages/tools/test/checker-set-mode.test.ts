/**
 * check agent's v1 legacy-modes case against an agent written with the official SDK
 * (test/fixtures/cli-config-agent.mjs): with `modes` in its session/new answer, session/set_mode of
 * another offered mode runs and passes ACP-V1-MODE-01; with config options only, the case is not
 * applicable and says why; an agent refusing the mode it offered is reported (MAY tier).
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ALL_CASES } from '../src/checker/cases/index.js';
import { runChecks } from '../src/checker/runner.js';

const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/cli-config-agent.mjs', import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function checkSetMode(flavour: string) {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'acp-kit-set-mode-')));
  dirs.push(cwd);
  const run = await runChecks(
    {
      command: process.execPath,
      args: [FIXTURE],
      cwd,
      env: { CLI_CONFIG_FIXTURE: flavour },
      timeoutMs: 5000,
      prompt: 'hello',
      clientVersion: 'test',
    },
    { protocols: [1], cases: ALL_CASES.filter((c) => c.name === 'sessions/set-mode-v1') },
  );
  const result = run.cases.find((c) => c.name === 'sessions/set-mode-v1');
  return { run, result };
}

describe('check agent: session/set_mode (v1 legacy modes)', () => {
  it('an agent offering modes takes session/set_mode of another one: ACP-V1-MODE-01 passes', async () => {
    const { run, result } = await checkSetMode('modes');
    expect([result?.status, result?.reason]).toEqual(['ran', undefined]);
    expect(result?.checks).toContainEqual(expect.objectContaining({ id: 'ACP-V1-MODE-01', ok: true }));
    expect(run.requirements.find((r) => r.id === 'ACP-V1-MODE-01')?.status).toBe('pass');
    expect(run.conformant).toBe(true);
  }, 30_000);

  it('an agent refusing a mode it offered: reported as ACP-V1-MODE-01 (MAY), the verdict stands', async () => {
    const { run, result } = await checkSetMode('modes-refusing');
    expect(result?.status).toBe('ran');
    const judged = run.requirements.find((r) => r.id === 'ACP-V1-MODE-01');
    expect([judged?.status, judged?.tier]).toEqual(['fail', 'MAY']);
    expect(judged?.failures[0]?.message.startsWith('session/set_mode')).toBe(true);
    expect(judged?.failures[0]?.message).toContain('to "code", a mode session/new offered, failed');
    expect(run.conformant).toBe(true);
  }, 30_000);

  it('an agent with config options only: not applicable, saying why', async () => {
    const { result } = await checkSetMode('options');
    expect([result?.status, result?.reason]).toEqual(['not-applicable', 'session/new returned no modes']);
  }, 30_000);
});
