/**
 * The checker checked: fixture agents that each break exactly one requirement must fail exactly that
 * requirement (and nothing else); conformant agents (acp-kit's own agent, agents written with the
 * official SDK) must pass with no failure. Runs the real `acp-kit check` cases; the agents run in
 * process (the checker's in-memory launch: the same bytes, framing and schema checks, ~190 fewer
 * processes), except one process run of each agent kind for what is about being a process (exit on
 * stdin EOF, the first initialize, malformed input over a real pipe).
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runChecks, type CheckRun } from '../src/checker/runner.js';
import { ALL_CASES } from '../src/checker/cases/index.js';
import { acpKitAgent, fixtureAgent, sdkAgents, type CountedAgent } from '../../../test/support/checker-agents.js';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const FIXTURE = here('../../../test/fixtures/checker/agent.mjs');
const BIN = here('../../../bin/acp-kit.js');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const scratch = () => {
  const d = realpathSync(mkdtempSync(join(tmpdir(), 'acp-kit-checker-')));
  dirs.push(d);
  return d;
};

const casesNamed = (names?: string[]) => (names ? ALL_CASES.filter((c) => names.includes(c.name)) : undefined);

/** A check of an agent process (`node args…`), as `acp-kit check` runs it. */
async function check(
  args: string[],
  env: Record<string, string>,
  protocols: Array<1 | 2>,
  caseNames?: string[],
  prompt = 'go',
): Promise<CheckRun> {
  const cwd = scratch();
  return runChecks(
    {
      command: process.execPath,
      args,
      cwd,
      env: { FIXTURE_STORE: cwd, ACP_KIT_DATA_DIR: cwd, ...env },
      timeoutMs: 8000,
      prompt,
      clientVersion: 'test',
    },
    { protocols, concurrency: 4, cases: casesNamed(caseNames) },
  );
}

/** A check of an in-process agent made by `make` (given the scratch folder its store lives in); every instance must be closed after the run. */
async function checkInProcess(
  make: (dir: string) => CountedAgent,
  protocols: Array<1 | 2>,
  caseNames?: string[],
  prompt = 'go',
): Promise<CheckRun> {
  const cwd = scratch();
  const agent = make(cwd);
  const run = await runChecks(
    { inProcess: agent.agent, cwd, timeoutMs: 8000, prompt, clientVersion: 'test' },
    { protocols, concurrency: 4, cases: casesNamed(caseNames) },
  );
  expect(agent.started()).toBeGreaterThan(0);
  expect(agent.live(), 'in-process agents left open after the run').toBe(0);
  return run;
}

/** The cases about being a process: each agent kind runs them once as a real process. */
const PROCESS_CASES = ['stdout/exit-on-eof', 'initialize/basic', 'jsonrpc/malformed'];

const failed = (run: CheckRun) =>
  run.requirements
    .filter((r) => r.status === 'fail')
    .map((r) => `v${r.protocol} ${r.id}`)
    .sort();
/** The cases that ran, as `v<n> <name>`. */
const ran = (run: CheckRun) =>
  run.cases
    .filter((c) => c.status === 'ran')
    .map((c) => `v${c.protocol} ${c.name}`)
    .sort();
const ranAll = (names: string[]) => [1, 2].flatMap((v) => names.map((n) => `v${v} ${n}`)).sort();
const explain = (run: CheckRun) =>
  JSON.stringify(
    run.requirements.filter((r) => r.status === 'fail').map((r) => r.failures.map((f) => `${f.case}: ${f.message}`)),
    null,
    1,
  );

describe('checker: fixture agents breaking one requirement each', () => {
  // [rule broken, versions, cases to run (undefined = all), the failures expected]
  const matrix: Array<[string, Array<1 | 2>, string[] | undefined, string[]]> = [
    // the rows run the cases where the broken rule shows (every case of both versions is ~35 agent
    // processes); the clean fixture below runs them all
    ['chunk-no-message-id', [2], ['lifecycle-v2/prompt', 'sessions/resume-v2', 'cancel/turn'], ['v2 ACP-V2-MSG-01']],
    ['plan-no-plan-id', [2], ['lifecycle-v2/prompt', 'sessions/resume-v2'], ['v2 ACP-V2-PLAN-01']],
    ['boolean-capability', [2], ['initialize/basic', 'lifecycle-v2/prompt'], ['v2 ACP-V2-CAP-01']],
    [
      'cancel-error',
      [1, 2],
      ['cancel/turn', 'prompt-v1/turn', 'lifecycle-v2/prompt'],
      ['v1 ACP-V1-CANCEL-06', 'v2 ACP-V2-CANCEL-06'],
    ],
    ['update-after-response', [1], ['prompt-v1/turn', 'cancel/turn'], ['v1 ACP-V1-PROMPT-03']],
    [
      'answer-notification',
      [1, 2],
      ['jsonrpc/notifications', 'extensions/methods', 'initialize/basic'],
      ['v1 ACP-ALL-RPC-02', 'v2 ACP-ALL-RPC-02'],
    ],
    ['id-not-echoed', [1, 2], ['jsonrpc/ids', 'initialize/basic'], ['v1 ACP-ALL-RPC-03', 'v2 ACP-ALL-RPC-03']],
    // a v1 agent echoing any requested version (999 too) claims versions that do not exist
    ['echo-any-version', [1], ['initialize/unknown-version'], ['v1 ACP-ALL-INIT-03']],
    // terminal auth advertised to a client whose clientCapabilities did not offer auth.terminal
    ['terminal-auth-unasked', [1], ['initialize/basic'], ['v1 ACP-V1-AUTH-04']],
    // v1: image prompts advertised (promptCapabilities.image) but image blocks refused; auth.logout advertised, no logout
    ['v1-extras', [1], ['prompt/image', 'auth/logout'], []],
    ['image-rejected', [1], ['prompt/image'], ['v1 ACP-V1-CAP-02']],
    ['logout-missing', [1], ['auth/logout'], ['v1 ACP-V1-CAP-02']],
    // mcpServers dropped: the checker's MCP server never saw initialize (a MUST for v1: stdio is baseline)
    ['mcp-ignored', [1], ['mcp/client-server'], ['v1 ACP-V1-SESS-01']],
    // connected but the tool never called when asked: a SHOULD warning (an LLM may decline), still conformant
    ['mcp-unused', [1], ['mcp/client-server'], ['v1 ACP-ALL-SESS-08']],
    [
      'stdout-log',
      [1, 2],
      ['initialize/basic', 'prompt-v1/turn', 'lifecycle-v2/prompt', 'stdout/exit-on-eof'],
      ['v1 ACP-ALL-TRANS-05', 'v2 ACP-ALL-TRANS-05'],
    ],
  ];
  it('v1-extras: the image and logout cases run (not n/a) and pass on a v1 agent that takes images and logs out', async () => {
    const run = await checkInProcess(
      (dir) => fixtureAgent({ BREAK: 'v1-extras', FIXTURE_STORE: dir }),
      [1],
      ['prompt/image', 'auth/logout'],
    );
    expect(ran(run)).toEqual(['v1 auth/logout', 'v1 prompt/image']);
    expect(failed(run), explain(run)).toEqual([]);
  }, 60_000);

  it.each(matrix)(
    '%s fails exactly its requirement',
    async (rule, protocols, cases, expected) => {
      const run = await checkInProcess((dir) => fixtureAgent({ BREAK: rule, FIXTURE_STORE: dir }), protocols, cases);
      expect(failed(run), explain(run)).toEqual(expected.sort());
      expect(run.cases.filter((c) => c.status === 'error')).toEqual([]);
    },
    60_000,
  );

  it('batches (ACP-V2-TRANS-11): answering them per JSON-RPC 2.0 and refusing them both pass; a wrong answer is reported, still conformant', async () => {
    // the plain fixture refuses arrays as the TypeScript SDK does; `batch-reply` answers as the Rust SDK does
    for (const BREAK of ['', 'batch-reply']) {
      const run = await checkInProcess(
        (dir) => fixtureAgent({ BREAK, FIXTURE_STORE: dir }),
        [1, 2],
        ['jsonrpc/batch', 'jsonrpc/ids'],
      );
      expect(failed(run), explain(run)).toEqual([]);
      // judged under v2 (the ID's version); under v1 the array reply must not fail any wire check either
      expect(run.requirements.filter((r) => r.id === 'ACP-V2-TRANS-11').map((r) => r.status)).toEqual(['pass']);
      expect(run.conformant).toBe(true);
    }
    // silently dropping the array (what the public kit's own v1 fixtures do) is reported under the informational tier
    const wrong = await checkInProcess(
      (dir) => fixtureAgent({ BREAK: 'batch-dropped', FIXTURE_STORE: dir }),
      [1, 2],
      ['jsonrpc/batch'],
    );
    expect(wrong.requirements.filter((r) => r.status === 'fail').map((r) => `${r.id} ${r.tier}`)).toEqual([
      'ACP-V2-TRANS-11 info',
    ]);
    expect(wrong.conformant).toBe(true);
  }, 60_000);

  it('the same fixture without a broken rule passes everything it is checked on', async () => {
    const run = await checkInProcess((dir) => fixtureAgent({ FIXTURE_STORE: dir }), [1, 2]);
    expect(failed(run), explain(run)).toEqual([]);
    expect(run.conformant).toBe(true);
    // the cases really ran: the turn and the cancel were judged, not skipped
    const passed = run.requirements.filter((r) => r.status === 'pass').map((r) => `v${r.protocol} ${r.id}`);
    expect(passed).toEqual(
      expect.arrayContaining([
        'v1 ACP-V1-CANCEL-05',
        'v2 ACP-V2-CANCEL-05',
        'v2 ACP-V2-LIFE-04',
        'v2 ACP-V2-RESUME-03',
        'v1 ACP-V1-PROMPT-03',
      ]),
    );
  }, 60_000);

  it('the fixture as a process passes the process-bound cases (exit on EOF, initialize, malformed input)', async () => {
    const run = await check([FIXTURE], {}, [1, 2], PROCESS_CASES);
    expect(failed(run), explain(run)).toEqual([]);
    expect(run.conformant).toBe(true);
    expect(ran(run)).toEqual(ranAll(PROCESS_CASES));
  }, 60_000);
});

describe('checker: conformant agents', () => {
  it('acp-kit agent (v1 and v2) passes every case within 60 s', async () => {
    const run = await checkInProcess(acpKitAgent, [1, 2], undefined, 'run sleep 3');
    expect(failed(run), explain(run)).toEqual([]);
    expect(run.conformant).toBe(true);
    expect(run.ms).toBeLessThan(60_000);
  }, 90_000);

  it('the acp-kit agent binary passes the process-bound cases', async () => {
    const run = await check([BIN, 'agent'], { ACP_KIT_MODEL: 'demo' }, [1, 2], PROCESS_CASES, 'run sleep 3');
    expect(failed(run), explain(run)).toEqual([]);
    expect(run.conformant).toBe(true);
    expect(ran(run)).toEqual(ranAll(PROCESS_CASES));
  }, 60_000);

  // The SDK ships no runnable example agents; these are the project's SDK-based fixtures (test/fixtures/client-sdk-apps.mjs).
  // The v2 one advertises `capabilities.session` without list/resume and answers prompts for any
  // session id: the checker must name exactly those gaps (ACP-V2-CAP-02 asks for list and resume).
  // RESUME-03 is no longer a gap: a new instance that does not know the session is not exercised (no route is guaranteed to persist);
  // RPC-01 (-32002 for an unknown session) is an SDK-draft rule, reported as a draft failure, not a MUST
  const v2Gaps = ['v2 ACP-ALL-LIST-01', 'v2 ACP-V2-RPC-01'];
  // (in process: the app of client-sdk-agent-v1.mjs / -v2.mjs on the SDK's ndJsonStream over in-memory streams)
  it.each([
    // the v1 fixture ignores mcpServers: the checker's MCP server is never started (a v1 MUST)
    ['client-sdk-agent-v1.mjs', sdkAgents.v1, [1] as Array<1 | 2>, ['v1 ACP-V1-SESS-01']],
    ['client-sdk-agent-v2.mjs', sdkAgents.v2, [2] as Array<1 | 2>, v2Gaps],
  ])(
    'SDK-based agent %s fails only where it is incomplete',
    async (_file, make, protocols, expected) => {
      const run = await checkInProcess(make, protocols, undefined, 'permission');
      expect(failed(run), explain(run)).toEqual(expected);
    },
    60_000,
  );

  // The SDK's router (v1 and v2 behind one initialize) normalizes only the initialize params and
  // forwards every later message unchanged to the same v1App/v2App checked in full above, so what
  // is the router's own is version selection and the messages before initialize: the initialize
  // and jsonrpc cases of both versions (every SDK agent process costs ~0.5 s of CPU to start, and
  // the full 32-case run against the router repeated the two runs above).
  it('SDK-based router (v1 and v2) negotiates and frames like a conformant agent', async () => {
    const routed = ALL_CASES.filter((c) => c.name.startsWith('initialize/') || c.name.startsWith('jsonrpc/')).map(
      (c) => c.name,
    );
    const run = await checkInProcess(sdkAgents.router, [1, 2], routed, 'permission');
    expect(failed(run), explain(run)).toEqual([]);
    expect(run.conformant).toBe(true);
    // both versions were really negotiated and judged (v2 has initialize/old-version on top)
    expect(ran(run)).toEqual(
      [1, 2]
        .flatMap((v) => routed.filter((n) => v === 2 || n !== 'initialize/old-version').map((n) => `v${v} ${n}`))
        .sort(),
    );
  }, 60_000);

  it('the SDK-based router as a process passes the process-bound cases', async () => {
    const run = await check(
      [here('../../../test/fixtures/client-sdk-agent-router.mjs')],
      {},
      [1, 2],
      PROCESS_CASES,
      'permission',
    );
    expect(failed(run), explain(run)).toEqual([]);
    expect(run.conformant).toBe(true);
    expect(ran(run)).toEqual(ranAll(PROCESS_CASES));
  }, 60_000);
});
