/**
 * `acp-kit check client` against a client that does not speak one of the asked versions: the
 * first case of the version finds out, the others wait for it and are reported not applicable
 * with the same reason, without launching the client again (counted by the fixture client itself).
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { CLIENT_CASES } from '../src/checker/client/cases.js';
import { runClientChecks } from '../src/checker/client/runner.js';

const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/checker/client.mjs', import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function checkClient(offer: string, version: 1 | 2) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'acp-kit-check-version-gate-')));
  dirs.push(dir);
  const log = join(dir, 'launches');
  const run = await runClientChecks(
    {
      command: process.execPath,
      args: [FIXTURE],
      env: { OFFER: offer, LAUNCH_LOG: log, NO_COLOR: '1' },
      timeoutMs: 8000,
      agentVersion: 'test',
    },
    { protocols: [version], concurrency: 4 },
  );
  const launches = readFileSync(log, 'utf8').split('\n').filter(Boolean).length;
  return { run, launches };
}

describe('check client: a version the client does not speak is found out once', () => {
  it('a v1-only client: one launch for the v2 cases, every one not applicable with the reason', async () => {
    const { run, launches } = await checkClient('1', 2);
    const v2Cases = CLIENT_CASES.filter((c) => c.protocols.includes(2)).map((c) => c.name);
    expect(v2Cases.length).toBeGreaterThan(4);
    expect(run.cases.map((c) => c.name)).toEqual(v2Cases);
    for (const c of run.cases)
      expect([c.name, c.status, c.reason]).toEqual([
        c.name,
        'not-applicable',
        'the client offered protocol version 1; the v2 cases need a client that offers 2',
      ]);
    expect(launches).toBe(1);
    expect(run.requirements.filter((r) => r.status !== 'not-checked')).toEqual([]);
  }, 30_000);

  it('a v2-only client that leaves on a v1 answer: one launch for the v1 cases, every one not applicable with the reason', async () => {
    const { run, launches } = await checkClient('2-only', 1);
    const v1Cases = CLIENT_CASES.filter((c) => c.protocols.includes(1)).map((c) => c.name);
    expect(v1Cases.length).toBeGreaterThan(4);
    expect(run.cases.map((c) => c.name)).toEqual(v1Cases);
    for (const c of run.cases)
      expect([c.name, c.status, c.reason]).toEqual([
        c.name,
        'not-applicable',
        'the client offered v2 and left when the agent answered v1: it does not speak v1',
      ]);
    expect(launches).toBe(1);
    expect(run.requirements.filter((r) => r.status !== 'not-checked')).toEqual([]);
  }, 30_000);
});
