/**
 * `check client`'s elicitation case (issue 26 item 2): a client that advertises form elicitation
 * must answer the scripted agent's form with accept (content fitting the schema), decline or
 * cancel (ACP-ALL-ELIC-07). `acp-kit run` passes declining (its default) and accepting
 * (`--answer`); the fixture client accepting a value the enum does not offer fails.
 * Needs dist/ (`npm run build`) for `acp-kit run`.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { CLIENT_CASES } from '../src/checker/client/cases.js';
import { runClientChecks } from '../src/checker/client/runner.js';
import type { CheckRun } from '../src/checker/runner.js';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const BIN = here('../../../bin/acp-kit.js');
const FIXTURE = here('../../../test/fixtures/checker/client.mjs');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function check(args: string[], env: Record<string, string> = {}): Promise<CheckRun> {
  const data = realpathSync(mkdtempSync(join(tmpdir(), 'acp-kit-check-client-elicit-')));
  dirs.push(data);
  return runClientChecks(
    {
      command: process.execPath,
      args,
      env: { ACP_KIT_DATA_DIR: data, NO_COLOR: '1', ...env },
      timeoutMs: 8000,
      agentVersion: 'test',
    },
    { protocols: [1, 2], concurrency: 2, cases: CLIENT_CASES.filter((c) => c.name === 'client/elicitation') },
  );
}
const statusOf = (run: CheckRun) =>
  run.requirements.filter((r) => r.id === 'ACP-ALL-ELIC-07').map((r) => `v${r.protocol} ${r.status}`);
const messages = (run: CheckRun) => run.requirements.flatMap((r) => r.failures.map((f) => f.message)).join('\n');

describe('check client: elicitation', () => {
  it('acp-kit run passes declining (default) and accepting with --answer', async () => {
    const declined = await check([BIN, 'run', '--agent', '{agent}', 'hello']);
    expect(statusOf(declined), messages(declined)).toEqual(['v1 pass', 'v2 pass']);
    const accepted = await check([BIN, 'run', '--agent', '{agent}', '--answer', 'size=large', 'hello']);
    expect(statusOf(accepted), messages(accepted)).toEqual(['v1 pass', 'v2 pass']);
  }, 60_000);

  it('a client accepting a value the schema does not offer fails ACP-ALL-ELIC-07', async () => {
    // the fixture offers v2 at initialize unless OFFER=1 (its v1 capabilities are then read)
    const v2 = await check([FIXTURE], { BREAK: 'elicit-off-schema' });
    const v1 = await check([FIXTURE], { BREAK: 'elicit-off-schema', OFFER: '1' });
    expect([
      ...statusOf(v1).filter((s) => s.startsWith('v1')),
      ...statusOf(v2).filter((s) => s.startsWith('v2')),
    ]).toEqual(['v1 fail', 'v2 fail']);
    expect(messages(v2)).toMatch(/size: must be one of "small", "large"/);
  }, 60_000);
});
