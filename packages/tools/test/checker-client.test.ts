/**
 * `acp-kit check client` checked: `acp-kit run` (a real client, launched as a process that launches
 * the scripted agent) must pass with no failure; fixture clients that each break exactly one
 * requirement must fail exactly that requirement. Needs dist/ (`npm run build`) for `acp-kit run`.
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
const SDK_CLIENT = here('../../../test/fixtures/checker/sdk-client.mjs');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function check(
  args: string[],
  env: Record<string, string> = {},
  caseNames?: string[],
  protocols: Array<1 | 2> = [1, 2],
): Promise<CheckRun> {
  const data = realpathSync(mkdtempSync(join(tmpdir(), 'acp-kit-check-client-test-')));
  dirs.push(data);
  return runClientChecks(
    {
      command: process.execPath,
      args,
      env: { ACP_KIT_DATA_DIR: data, NO_COLOR: '1', ...env },
      timeoutMs: 8000,
      agentVersion: 'test',
    },
    { protocols, concurrency: 4, cases: caseNames && CLIENT_CASES.filter((c) => caseNames.includes(c.name)) },
  );
}

const failed = (run: CheckRun) =>
  run.requirements
    .filter((r) => r.status === 'fail')
    .map((r) => `v${r.protocol} ${r.id}`)
    .sort();
const passed = (run: CheckRun) =>
  run.requirements.filter((r) => r.status === 'pass').map((r) => `v${r.protocol} ${r.id}`);
const explain = (run: CheckRun) =>
  JSON.stringify(
    [
      ...run.requirements
        .filter((r) => r.status === 'fail')
        .map((r) => r.failures.map((f) => `${f.case}: ${f.message}`)),
      ...run.cases.filter((c) => c.status === 'error').map((c) => `${c.name}: ${c.reason}`),
    ],
    null,
    1,
  );

describe('check client against acp-kit run', () => {
  it('passes every case it can observe, v1 and v2, with the agent command given as {agent}', async () => {
    const run = await check([BIN, 'run', '--agent', '{agent}', 'hello']);
    expect(failed(run), explain(run)).toEqual([]);
    expect(
      run.cases.filter((c) => c.status === 'error'),
      explain(run),
    ).toEqual([]);
    expect(run.conformant).toBe(true);
    // the cases really ran (acp-kit run offers v2 and falls back to v1, advertises fs and terminals in v1)
    expect(passed(run)).toEqual(
      expect.arrayContaining([
        'v1 ACP-ALL-PERM-03',
        'v2 ACP-ALL-PERM-03',
        'v1 ACP-ALL-TRANS-05',
        'v2 ACP-ALL-TRANS-05',
        'v1 ACP-ALL-RPC-03',
        'v2 ACP-ALL-EXT-05',
        'v2 ACP-V2-EXT-03',
        // plan_removed, session_message, session_message_chunk, subagent_update and auth/status_update taken
        'v1 unstable/client-updates',
        'v2 unstable/client-updates',
        'v2 ACP-V2-SESS-05',
        'v2 ACP-V2-INIT-03',
        'v1 ACP-V1-FS-05',
        'v1 ACP-V1-TERM-08',
        'v1 ACP-V1-TERM-07',
        'v1 ACP-V1-TERM-06',
        'v1 ACP-V1-TERM-05',
        'v1 ACP-ALL-ELIC-09',
        'v2 ACP-ALL-ELIC-09',
        'v1 schema/v1',
        'v2 schema/v2',
      ]),
    );
    // v2 sends every unstable kind (v1 only what the client's plan / subagents capabilities allow)
    const took = (v: 1 | 2) =>
      run.cases
        .find((c) => c.name === 'client/unstable-updates' && c.protocol === v)
        ?.checks.find((x) => x.id === 'unstable/client-updates' && x.ok)?.message;
    const after = ' and answered a round trip after each';
    const kinds = ['plan_removed', 'subagent_update', 'session_message', 'session_message_chunk'];
    expect(took(2)).toBe(
      `the client took ${[...kinds, 'a future update kind', 'auth/status_update'].join(', ')}${after}`,
    );
    // acp-kit's v1 client advertises subagents, not plan
    expect(took(1)).toBe(`the client took ${[...kinds.slice(1), 'auth/status_update'].join(', ')}${after}`);
  }, 60_000);
});

describe('check client: fixture clients breaking one requirement each', () => {
  it('the fixture client without a broken rule passes (and holds a permission request until the cancel)', async () => {
    const run = await check([FIXTURE]);
    expect(failed(run), explain(run)).toEqual([]);
    expect(run.conformant).toBe(true);
    // it holds permission requests, so the pending-at-cancel rule is judged, not skipped
    expect(passed(run)).toEqual(
      expect.arrayContaining([
        'v1 ACP-V1-CANCEL-03',
        'v1 ACP-ALL-PERM-03',
        'v2 ACP-ALL-PERM-03',
        'v2 ACP-ALL-TRANS-05',
        'v2 ACP-V2-INIT-03',
        // it held the request the agent then withdrew, and answered it once
        'v1 ACP-ALL-CREQ-04',
        'v2 ACP-ALL-CREQ-04',
      ]),
    );
  }, 60_000);

  // [rule broken, the case run (the one that judges the rule), the failures expected]. No plain turn
  // (client/basic) next to it: a broken rule changes nothing in a plain turn (no permission request, no
  // non-JSON line, no unknown update kind), so that would be the passing fixture's basic case again,
  // which the test above runs; any case can be the first of its version (see runner.ts)
  it.each([
    // answers pending permission requests (and those asked after its cancel) with an error instead of `cancelled`
    [
      'permission-error-after-cancel',
      ['client/cancel-permission'],
      ['v1 ACP-ALL-PERM-03', 'v1 ACP-V1-CANCEL-03', 'v2 ACP-ALL-PERM-03'],
    ],
    // exits on the first line from the agent that is not JSON
    ['dies-on-non-json', ['client/non-json-line'], ['v1 ACP-ALL-TRANS-05', 'v2 ACP-ALL-TRANS-05']],
    // exits on a session update kind it does not know (v2 only: v1 has no extension of update kinds)
    ['dies-on-unknown-update', ['client/unknown-updates'], ['v2 ACP-V2-EXT-03']],
    // exits on plan_removed, session_message, session_message_chunk, subagent_update (v2; the v1 run
    // sends none of them to a client that advertises neither plan nor subagents) and on auth/status_update
    [
      'dies-on-unstable-update',
      ['client/unstable-updates'],
      ['v1 unstable/client-updates', 'v2 unstable/client-updates'],
    ],
    // sends a prompt whose content block has no type: the official schema of each version refuses it
    ['untyped-prompt-block', ['client/basic'], ['v1 schema/v1', 'v2 schema/v2']],
    // never answers a permission request the agent withdrew with $/cancel_request (a hanging prompt)
    ['ignores-withdrawal', ['client/withdrawn-request'], ['v1 ACP-ALL-CREQ-04', 'v2 ACP-ALL-CREQ-04']],
    // answers a withdrawn permission request twice
    // (its second answer is also a response to no request in flight)
    [
      'withdrawal-answered-twice',
      ['client/withdrawn-request'],
      ['v1 ACP-ALL-CREQ-04', 'v1 ACP-ALL-RPC-03', 'v2 ACP-ALL-CREQ-04', 'v2 ACP-ALL-RPC-03'],
    ],
  ])(
    '%s fails exactly its requirement',
    async (rule, cases, expected) => {
      const run = await check([FIXTURE], { BREAK: rule }, cases);
      expect(failed(run), explain(run)).toEqual([...expected].sort());
      expect(run.cases.filter((c) => c.status === 'error')).toEqual([]);
      expect(run.cases.map((c) => `v${c.protocol} ${c.name}`).sort()).toEqual(
        cases.flatMap((c) => [`v1 ${c}`, `v2 ${c}`]).sort(),
      );
      // a broken SHOULD is a warning: the verdict stays conformant
      expect(run.conformant).toBe(rule === 'dies-on-unknown-update' || rule === 'dies-on-unstable-update');
    },
    60_000,
  );
});

describe('check client on a client that writes JSON-RPC batches', () => {
  it('writes-in-arrays: each message in a one-entry array is read as a line, the batch reported (info), the run conformant', async () => {
    const run = await check([FIXTURE], { BREAK: 'writes-in-arrays' }, ['client/basic', 'client/cancel-permission']);
    expect(
      run.cases.filter((c) => c.status === 'error'),
      explain(run),
    ).toEqual([]);
    // a v2 ID: the v1 run reads the arrays the same way but reports nothing (as for agents)
    expect(failed(run), explain(run)).toEqual(['v2 ACP-V2-TRANS-11']);
    expect(run.requirements.filter((r) => r.status === 'fail').map((r) => r.tier)).toEqual(['info']);
    expect(run.requirements.find((r) => r.id === 'ACP-V2-TRANS-11')?.failures[0]?.message).toMatch(
      /sent a JSON-RPC batch \(an array of 1\)/,
    );
    // what the client said inside its arrays was understood: the permission rules were judged, not skipped
    expect(passed(run)).toEqual(expect.arrayContaining(['v1 ACP-ALL-PERM-03', 'v2 ACP-ALL-PERM-03']));
    expect(run.conformant).toBe(true);
  }, 60_000);
});

describe('check client against clients written with the official SDK', () => {
  // test/fixtures/checker/sdk-client.mjs: the SDK's v1 or v2 client app, holding permission requests until Ctrl-C
  it.each([
    [
      '1',
      1 as const,
      [
        'v1 ACP-V1-CANCEL-03',
        'v1 ACP-ALL-PERM-03',
        'v1 ACP-ALL-TRANS-05',
        'v1 ACP-ALL-RPC-03',
        'v1 unstable/client-updates',
        'v1 schema/v1',
      ],
    ],
    // the v2 client leaves when the agent answers v1: ACP-V2-INIT-03 allows that
    [
      '2',
      2 as const,
      [
        'v2 ACP-ALL-PERM-03',
        'v2 ACP-ALL-TRANS-05',
        'v2 ACP-V2-INIT-03',
        'v2 ACP-V2-EXT-03',
        'v2 ACP-V2-SESS-05',
        'v2 unstable/client-updates',
        'v2 schema/v2',
      ],
    ],
  ])(
    'the SDK v%s client passes with no failure',
    async (sdk, version, mustPass) => {
      const run = await check([SDK_CLIENT], { SDK_PROTOCOL: sdk }, undefined, [version]);
      expect(failed(run), explain(run)).toEqual([]);
      expect(
        run.cases.filter((c) => c.status === 'error'),
        explain(run),
      ).toEqual([]);
      expect(passed(run)).toEqual(expect.arrayContaining(mustPass));
    },
    60_000,
  );
});

describe('check client: a client that cannot run the cases', () => {
  it('one that never launches the agent: every case is an error that says why, and the run is not conformant', async () => {
    const run = await check(
      ['-e', 'process.exit(0)'],
      {},
      ['client/basic', 'client/non-json-line', 'client/fs-roots'],
      [1],
    );
    expect(run.cases.map((c) => c.status)).toEqual(['error', 'error', 'error']);
    // the first case says it; the others wait for it (whether the client speaks v1 is not known
    // before) and are not started once it could not run
    expect(run.cases[0]!.reason).toMatch(/the client ended \(exit code 0\) without launching the agent/);
    expect(run.cases.slice(1).map((c) => c.reason)).toEqual([
      'not run: case client/basic (v1) could not run',
      'not run: case client/basic (v1) could not run',
    ]);
    expect(failed(run)).toEqual([]);
    expect(run.conformant).toBe(false);
  }, 30_000);
});
