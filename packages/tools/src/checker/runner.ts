import type { AgentDriver, Finding } from './driver.js';
import {
  CaseContext,
  NotApplicable,
  excerpt,
  type CaseInfo,
  type Check,
  type CheckCase,
  type CheckSettings,
} from './case.js';
import { ALL_CASES } from './cases/index.js';
import { REQUIREMENTS, requirement, type Requirement } from './requirements.js';
import {
  MAX_UNCLOSED_SESSIONS,
  SharedAgents,
  findingsBetween,
  markOf,
  openWork,
  sessionsLeftOpen,
  type SharedAgent,
  type SharedMark,
} from './shared-agent.js';

/** How one case ended. */
export interface CaseResult {
  name: string;
  title: string;
  protocol: 1 | 2;
  status: 'ran' | 'not-applicable' | 'error';
  /** The requirement IDs the case judges. */
  ids: readonly string[];
  /** Why the case did not apply, or what stopped it. */
  reason?: string;
  checks: Check[];
  ms: number;
  /** The agent's stderr, when the case failed (the last 2000 characters; of a shared process, what came during the case). */
  stderr?: string;
  /**
   * `check agent`: whether the case ran in an agent process it shared with other cases, or in its
   * own (see {@link CheckSettings.processPerCase}).
   */
  process?: 'shared' | 'own';
}

/** The verdict on one requirement under one protocol version. */
export interface RequirementResult extends Requirement {
  protocol: 1 | 2;
  status: 'pass' | 'fail' | 'not-checked';
  /** The failures, with the case that saw them. */
  failures: Array<Check & { case: string }>;
  /** The cases that judged it. */
  cases: string[];
}

/** A whole run. */
export interface CheckRun {
  protocols: Array<1 | 2>;
  cases: CaseResult[];
  requirements: RequirementResult[];
  /** True when no MUST requirement failed, no case failed or could not run, and the agent spoke every asked version. */
  conformant: boolean;
  /**
   * Versions whose cases were not run because the handshake (initialize/basic) already showed the
   * agent cannot be checked: it could not be started, exited, or does not speak ACP on stdout.
   */
  notRun?: Array<{ protocol: 1 | 2; reason: string; cases: number }>;
  /** Set when the agent could not be started at all (the command does not exist, is not executable). */
  unstartable?: string;
  ms: number;
}

/** Which cases to run and how (`C`: agent cases, or the client cases of `check client`). */
export interface RunOptions<C extends CaseInfo = CheckCase> {
  /** The versions to check (for `check client`: the versions the scripted agent plays). */
  protocols: Array<1 | 2>;
  /** Only these requirement IDs (and the cases that judge them); empty = all. */
  only?: readonly string[];
  skip?: readonly string[];
  /** Cases at once (each lane its own agent processes, or its own launch of the client per case). */
  concurrency?: number;
  /** The cases to pick from (default: all of them). */
  cases?: readonly C[];
}

/** Wire requirements every case checks on every line it receives. */
const WIRE_IDS = ['ACP-ALL-RPC-01', 'ACP-ALL-TRANS-01', 'ACP-ALL-TRANS-04', 'ACP-ALL-TRANS-05', 'ACP-ALL-CAP-01'];

/** Whether `id` matches a pattern of --only/--skip: exact, or a prefix ending in `-` or `*`. */
export function matchesId(id: string, pattern: string): boolean {
  if (pattern.endsWith('*')) return id.startsWith(pattern.slice(0, -1));
  return id === pattern;
}

/** Whether `id` is a requirement of the other protocol version only (it does not apply under `v`). */
export function otherVersionId(id: string, v: 1 | 2): boolean {
  return id.startsWith(v === 1 ? 'ACP-V2-' : 'ACP-V1-');
}

/** One case under one protocol version. */
export interface CaseJob<C extends CaseInfo> {
  c: C;
  v: 1 | 2;
}

/**
 * The cases to run, in order: each case under each asked version it speaks. `wanted` is the
 * --only/--skip filter; with --only a case runs when it judges a wanted ID, and since its wire
 * checks (`wireIds`, the version's schema) run along with any case, a wanted wire ID keeps them all.
 */
export function planJobs<C extends CaseInfo>(
  cases: readonly C[],
  options: RunOptions<C>,
  wireIds: readonly string[],
): { jobs: Array<CaseJob<C>>; wanted: (id: string) => boolean; skipped: (id: string) => boolean } {
  const only = options.only ?? [];
  const skip = options.skip ?? [];
  const skipped = (id: string) => skip.some((p) => matchesId(id, p));
  const wanted = (id: string) => (only.length === 0 || only.some((p) => matchesId(id, p))) && !skipped(id);
  const jobs: Array<CaseJob<C>> = [];
  for (const v of options.protocols) {
    for (const c of cases) {
      if (!c.protocols.includes(v)) continue;
      if (only.length > 0 && !c.ids.some(wanted) && !wireIds.some(wanted) && !wanted(`schema/v${v}`)) continue;
      jobs.push({ c, v });
    }
  }
  return { jobs, wanted, skipped };
}

/**
 * Runs `run(0)` … `run(n - 1)`, `concurrency` (at least 1) at a time, in order of index; the results
 * by index. `lane` (0 … concurrency - 1) names the worker that runs `i`: one lane runs one job at a time.
 */
export async function runPool<T>(
  n: number,
  concurrency: number,
  run: (i: number, lane: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = new Array(n);
  let next = 0;
  const worker = async (lane: number) => {
    while (next < n) {
      const i = next++;
      results[i] = await run(i, lane);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, (_, lane) => worker(lane)));
  return results;
}

/** {@link runPool} over `items`: runs `run` on each, at most `concurrency` at a time, results in order. */
export function runEach<I, T>(
  items: readonly I[],
  concurrency: number,
  run: (item: I, i: number, lane: number) => Promise<T>,
): Promise<T[]> {
  return runPool(items.length, concurrency, (i, lane) => {
    const item = items[i];
    if (item === undefined) throw new RangeError(`runEach: no item ${i} of ${items.length}`);
    return run(item, i, lane);
  });
}

/** The requirement a case's step that never completed fails: the case's first MUST for `v` (else its first). */
export function stepFailureId(c: CaseInfo, v: 1 | 2): string {
  // a MUST of the case first: a step that failed left the case unfinished, which a draft or SHOULD
  // row (reported, never failing the verdict) would let pass as conformant
  const own = c.ids.filter((x) => !otherVersionId(x, v));
  return own.find((x) => REQUIREMENTS.get(x)?.tier === 'MUST') ?? own[0] ?? `schema/v${v}`;
}

/** How {@link runCaseWith} drives one case (agent and client cases differ only in these). */
export interface CaseSteps {
  /** When the case began (its set-up included). */
  started: number;
  /** Runs the case. */
  run(): Promise<void>;
  /**
   * Takes what the case threw (other than {@link NotApplicable}): records the failure and returns
   * undefined, or returns why the case could not run at all (the case is then an error).
   */
  thrown(e: unknown): string | undefined;
  /** Ends what the case started; runs whatever happened. */
  dispose(): Promise<void>;
  /** The checks of the case and the findings on the wire, once it is over. */
  checks(): Check[];
  /** The stderr of the program under test. */
  stderr(): string;
}

/**
 * Runs one case and makes its result. When it ran, its wire checks (`wireIds`, the version's
 * schema) pass as well: a finding that broke one is a failing check already. The stderr of the
 * program under test is kept only when something failed.
 */
export async function runCaseWith(
  c: CaseInfo,
  v: 1 | 2,
  wireIds: readonly string[],
  steps: CaseSteps,
): Promise<CaseResult> {
  let status: CaseResult['status'] = 'ran';
  let reason: string | undefined;
  try {
    await steps.run();
  } catch (e) {
    if (e instanceof NotApplicable) {
      status = 'not-applicable';
      reason = e.message;
    } else {
      reason = steps.thrown(e);
      if (reason !== undefined) status = 'error';
    }
  } finally {
    await steps.dispose();
  }
  const checks = steps.checks();
  if (status === 'ran') for (const id of [...wireIds, `schema/v${v}`]) checks.push({ id, ok: true });
  const failed = checks.some((x) => !x.ok) || status === 'error';
  return {
    name: c.name,
    title: c.title,
    ids: c.ids,
    protocol: v,
    status,
    reason,
    checks,
    ms: Date.now() - steps.started,
    stderr: failed ? steps.stderr().slice(-2000) || undefined : undefined,
  };
}

/** The handshake case: it runs first under each version, and the other cases only when it went through. */
const GATE = 'initialize/basic';

/** Why a handshake result means the other cases of its version cannot tell anything; undefined when they can. */
function gateFailure(r: CaseResult): string | undefined {
  if (r.status === 'error') return r.reason ?? 'the case could not run';
  if (r.status !== 'ran') return undefined;
  // initialize never answered (timeout, exit, not ACP on stdout): the step failure of the case
  const step = r.checks.find((x) => !x.ok && x.id === 'ACP-ALL-INIT-03');
  return step?.message;
}

/** Runs the cases against the agent of `settings` and judges every requirement. */
export async function runChecks(settings: CheckSettings, options: RunOptions): Promise<CheckRun> {
  const started = Date.now();
  const all = options.cases ?? ALL_CASES;
  const { jobs, wanted, skipped } = planJobs(all, options, WIRE_IDS);
  // the handshake runs first (even when --only leaves it out): an agent that cannot be started or
  // does not speak ACP is known after one case, not after every case timed out
  const gateCase = all.find((c) => c.name === GATE);
  const gates = gateCase
    ? options.protocols.filter((v) => gateCase.protocols.includes(v)).map((v) => ({ c: gateCase, v }))
    : [];
  const gateResults = await runEach(gates, options.concurrency ?? 4, (g) => runOwnCase(g.c, g.v, settings, true));
  const notRun: NonNullable<CheckRun['notRun']> = [];
  for (const g of gateResults) {
    const reason = gateFailure(g);
    if (reason !== undefined)
      notRun.push({
        protocol: g.protocol,
        reason,
        cases: jobs.filter((j) => j.v === g.protocol && j.c.name !== GATE).length,
      });
  }
  const rest = jobs.filter((j) => j.c.name !== GATE && !notRun.some((n) => n.protocol === j.v));
  const restResults = await runRest(rest, settings, options.concurrency ?? 4);
  const results = [...gateResults, ...restResults];
  const requirements = judge(results, options.protocols, wanted, skipped);
  const spoke = options.protocols.every(
    (v) => !gateCase?.protocols.includes(v) || gateResults.some((r) => r.protocol === v && r.status === 'ran'),
  );
  const failedCase = results.some(
    (r) => r.status === 'error' || r.checks.some((x) => !x.ok && !skipped(x.id) && requirement(x.id).tier === 'MUST'),
  );
  const conformant =
    spoke && notRun.length === 0 && !failedCase && !requirements.some((r) => r.status === 'fail' && r.tier === 'MUST');
  const unstartable = gateResults.find((r) => r.status === 'error' && r.reason?.startsWith(UNSTARTABLE))?.reason;
  return {
    protocols: options.protocols,
    cases: results,
    requirements,
    conformant,
    ms: Date.now() - started,
    ...(notRun.length ? { notRun } : {}),
    ...(unstartable ? { unstartable } : {}),
  };
}

/** How the reason of a case whose agent could not be started begins. */
export const UNSTARTABLE = 'the agent could not be started';

/**
 * The cases after the handshake: those that may share run in their lane's shared agent (unless
 * `processPerCase`), the others each in a process of its own.
 */
async function runRest(jobs: Array<CaseJob<CheckCase>>, settings: CheckSettings, concurrency: number) {
  const pool = settings.processPerCase === true ? undefined : new SharedAgents(settings);
  try {
    return await runEach(jobs, concurrency, (j, _i, lane) =>
      pool === undefined || j.c.ownProcess === true
        ? runOwnCase(j.c, j.v, settings)
        : runSharedCase(j.c, j.v, settings, pool, lane),
    );
  } finally {
    await pool?.close();
  }
}

/** What a case that threw left: a failure of its step, or (agent not started) why it could not run. */
function thrownBy(c: CheckCase, v: 1 | 2, ctx: CaseContext, e: unknown): string | undefined {
  const d = ctx.latest;
  if (d.spawnError) return `${UNSTARTABLE}: ${d.spawnError.message}`;
  const own = d === ctx.driver ? d.stderrSince(ctx.start.stderr) : d.stderr;
  const tail = own.trim().split('\n').slice(-3).join(' | ');
  const msg = `${e instanceof Error ? e.message : String(e)}${!d.alive && tail ? ` (agent stderr: ${tail.slice(-300)})` : ''}`;
  const last = d.transcript.at(-1);
  ctx.fail(stepFailureId(c, v), msg, last ? [last.seq] : [], d);
  return undefined;
}

/** The findings of `d` as failing checks. */
const findingChecks = (d: AgentDriver, findings: readonly Finding[]): Check[] =>
  findings.map((f) => ({ id: f.id, ok: false, message: f.message, excerpt: excerpt(d, f.seqs) }));

/**
 * Runs a case in `lane`'s shared agent: its checks, wire findings and stderr are those since it
 * began (the first case on an agent reports its initialize too). Unless it ran clean, left no work
 * open and the agent still answers a round trip (which brings in what the agent sent late, so that
 * it is this case's), the agent is retired: the next case gets a fresh one.
 */
async function runSharedCase(
  c: CheckCase,
  v: 1 | 2,
  settings: CheckSettings,
  pool: SharedAgents,
  lane: number,
): Promise<CaseResult> {
  const started = Date.now();
  const shared: SharedAgent = await pool.lease(lane, v);
  const ctx = new CaseContext(settings, v, shared);
  const d = ctx.driver;
  let keep = false;
  let end: SharedMark = ctx.start;
  const result = await runCaseWith(c, v, WIRE_IDS, {
    started,
    run: () => c.run(ctx),
    thrown: (e) => thrownBy(c, v, ctx, e),
    dispose: async () => {
      keep = await reusable(ctx, shared);
      await Promise.all(ctx.all.map((x) => x.dispose()));
    },
    checks: () => {
      end = markOf(d);
      const extra = ctx.all.flatMap((x) => findingChecks(x, x.findings));
      return [...ctx.checks, ...findingChecks(d, findingsBetween(d, ctx.start, end)), ...extra];
    },
    stderr: () => d.stderrSince(ctx.start.stderr) + ctx.all.map((x) => x.stderr).join(''),
  });
  const failed = result.status === 'error' || result.checks.some((x) => !x.ok);
  await pool.release(lane, shared, keep && !failed, end);
  return { ...result, process: 'shared' };
}

/**
 * Whether the shared agent of `ctx` may serve the lane's next case: the case ran clean (nothing
 * failed, no finding), left no work open, and the agent still answers a round trip, which also
 * brings in what it sent late, as this case's lines.
 */
async function reusable(ctx: CaseContext, shared: SharedAgent): Promise<boolean> {
  const d = ctx.driver;
  const clean = () =>
    d.alive &&
    shared.initResult !== undefined &&
    !ctx.checks.some((x) => !x.ok) &&
    d.findings.length === ctx.start.findings;
  if (!clean() || openWork(d, ctx.since) !== undefined) return false;
  try {
    await d.roundTrip(ctx.timeout);
    if (!(await closeLeftSessions(ctx, shared))) return false;
  } catch {
    return false;
  }
  return clean();
}

/**
 * Closes the sessions the case left open in its shared agent, as an editor closes a tab's session,
 * so a run does not pile up what the agent holds per session (Claude Code keeps a process for each).
 * An agent without session/close keeps them; false once it holds {@link MAX_UNCLOSED_SESSIONS}, or
 * when a close fails: the agent is then retired.
 */
async function closeLeftSessions(ctx: CaseContext, shared: SharedAgent): Promise<boolean> {
  const left = sessionsLeftOpen(ctx.driver, ctx.since);
  if (!ctx.advertises(ctx.version === 2 ? 'session' : 'sessionCapabilities.close')) {
    shared.openSessions += left.length;
    return shared.openSessions < MAX_UNCLOSED_SESSIONS;
  }
  const closed = await Promise.all(
    left.map((sessionId) => ctx.driver.request('session/close', { sessionId }, ctx.timeout)),
  );
  // what the agent sends as it closes belongs to this case, not the next
  if (left.length > 0) await ctx.driver.roundTrip(ctx.timeout);
  return closed.every((r) => r.error === undefined);
}

/** Runs a case in a fresh agent process of its own (the handshake with `gate`). */
async function runOwnCase(c: CheckCase, v: 1 | 2, settings: CheckSettings, gate = false): Promise<CaseResult> {
  const started = Date.now();
  const ctx = new CaseContext(settings, v);
  // the handshake stops at the first line that is not JSON instead of waiting out the timeout
  if (gate) ctx.driver.stopOnGarbage = true;
  const result = await runCaseWith(c, v, WIRE_IDS, {
    started,
    run: () => c.run(ctx),
    thrown: (e) => thrownBy(c, v, ctx, e),
    dispose: async () => {
      await Promise.all(ctx.all.map((d) => d.dispose()));
    },
    checks: () => [...ctx.checks, ...ctx.all.flatMap((d) => findingChecks(d, d.findings))],
    stderr: () => ctx.all.map((d) => d.stderr).join(''),
  });
  return { ...result, process: 'own' };
}

/** Turns the checks of all cases into one verdict per requirement and version (shared with `check client`). */
export function judge(
  results: CaseResult[],
  protocols: Array<1 | 2>,
  wanted: (id: string) => boolean,
  skipped?: (id: string) => boolean,
): RequirementResult[] {
  const out = new Map<string, RequirementResult>();
  for (const r of results) {
    for (const ch of r.checks) {
      // a failure is reported even outside --only (a case that failed is never conformant); --skip hides it
      if (!wanted(ch.id) && (ch.ok || skipped === undefined || skipped(ch.id))) continue;
      if (otherVersionId(ch.id, r.protocol)) continue;
      const key = `${r.protocol}:${ch.id}`;
      let rr = out.get(key);
      if (!rr) {
        rr = { ...requirement(ch.id), protocol: r.protocol, status: 'not-checked', failures: [], cases: [] };
        out.set(key, rr);
      }
      if (!rr.cases.includes(r.name)) rr.cases.push(r.name);
      if (!ch.ok) {
        rr.status = 'fail';
        rr.failures.push({ ...ch, case: r.name });
      } else if (rr.status === 'not-checked') rr.status = 'pass';
    }
  }
  // what a case would have judged, had it applied
  for (const r of results) {
    if (r.status === 'ran') continue;
    for (const id of r.ids) {
      if (!wanted(id) || otherVersionId(id, r.protocol)) continue;
      const key = `${r.protocol}:${id}`;
      if (!out.has(key))
        out.set(key, {
          ...requirement(id),
          protocol: r.protocol,
          status: 'not-checked',
          failures: [],
          cases: [r.name],
        });
    }
  }
  void protocols;
  return [...out.values()].sort((a, b) => a.protocol - b.protocol || a.id.localeCompare(b.id));
}
