/**
 * `client/upserts` judges v2 message upserts (ACP-V2-MSG-03, ACP-V2-MSG-04) of a client that
 * prints its final message state, and is informational for one that streams. The fixture client
 * (test/fixtures/checker/client.mjs) with PRINT=final keeps messages by messageId and prints them
 * at the end of the turn; BREAK=keeps-null-content makes it treat `content: null` as omitted.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { CLIENT_CASES } from '../src/checker/client/cases.js';
import { runClientChecks } from '../src/checker/client/runner.js';
import type { CheckRun } from '../src/checker/runner.js';

const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/checker/client.mjs', import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function checkUpserts(env: Record<string, string>): Promise<CheckRun> {
  const data = realpathSync(mkdtempSync(join(tmpdir(), 'acp-kit-check-upserts-')));
  dirs.push(data);
  return runClientChecks(
    {
      command: process.execPath,
      args: [FIXTURE],
      env: { ACP_KIT_DATA_DIR: data, ...env },
      timeoutMs: 8000,
      agentVersion: 'test',
    },
    {
      protocols: [2],
      concurrency: 2,
      cases: CLIENT_CASES.filter((c) => c.name === 'client/upserts' || c.name === 'client/basic'),
    },
  );
}

const status = (run: CheckRun, id: string) => run.requirements.find((r) => r.protocol === 2 && r.id === id)?.status;
const failed = (run: CheckRun) =>
  run.requirements
    .filter((r) => r.status === 'fail')
    .map((r) => `v${r.protocol} ${r.id}`)
    .sort();

describe('check client: v2 upserts observed on the client stdout', () => {
  it('a client printing its final message state is judged, and passes when it applies replacements and clears', async () => {
    const run = await checkUpserts({ PRINT: 'final' });
    expect(run.cases.find((c) => c.name === 'client/upserts')?.status).toBe('ran');
    expect(status(run, 'ACP-V2-MSG-03')).toBe('pass');
    expect(status(run, 'ACP-V2-MSG-04')).toBe('pass');
    expect(failed(run)).toEqual([]);
  }, 60_000);

  it('one that keeps a message cleared with content: null fails exactly ACP-V2-MSG-04, naming the text it kept', async () => {
    const run = await checkUpserts({ PRINT: 'final', BREAK: 'keeps-null-content' });
    expect(failed(run)).toEqual(['v2 ACP-V2-MSG-04']);
    expect(status(run, 'ACP-V2-MSG-03')).toBe('pass');
    const [f] = run.requirements.find((r) => r.id === 'ACP-V2-MSG-04')!.failures;
    expect(f!.message).toMatch(/^the client's final text still shows GONE-\w+, cleared by content: null$/);
    expect(f!.excerpt!.some((l) => l.includes('"content":null') && l.endsWith('<=='))).toBe(true);
    expect(run.conformant).toBe(false);
  }, 60_000);

  it('a streaming client leaves the case informational, with the reason', async () => {
    const run = await checkUpserts({});
    const c = run.cases.find((x) => x.name === 'client/upserts')!;
    expect(c.status).toBe('not-applicable');
    expect(c.reason).toMatch(
      /^informational: the client prints messages as they stream \(it showed OLD-\w+, the text that was replaced\)/,
    );
    expect(status(run, 'ACP-V2-MSG-03')).toBe('not-checked');
    expect(failed(run)).toEqual([]);
  }, 60_000);
});
