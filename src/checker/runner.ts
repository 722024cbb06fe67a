import { CaseContext, NotApplicable, excerpt, type Check, type CheckCase, type CheckSettings } from './case.js';
import { ALL_CASES } from './cases/index.js';
import { WaitTimeout } from './driver.js';
import { requirement, type Requirement } from './requirements.js';

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
  /** The agent's stderr, when the case failed (the last 2000 characters). */
  stderr?: string;
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
  /** True when no MUST requirement failed (and the agent spoke every asked version). */
  conformant: boolean;
  ms: number;
}

/** Which cases to run and how. */
export interface RunOptions {
  protocols: Array<1 | 2>;
  /** Only these requirement IDs (and the cases that judge them); empty = all. */
  only?: readonly string[];
  skip?: readonly string[];
  /** Cases at once (each is its own agent process). */
  concurrency?: number;
  cases?: readonly CheckCase[];
}

/** Wire requirements every case checks on every line it receives. */
const WIRE_IDS = ['ACP-ALL-RPC-01', 'ACP-ALL-TRANS-01', 'ACP-ALL-TRANS-04', 'ACP-ALL-TRANS-05', 'ACP-ALL-CAP-01'];

/** Whether `id` matches a pattern of --only/--skip: exact, or a prefix ending in `-` or `*`. */
export function matchesId(id: string, pattern: string): boolean {
  if (pattern.endsWith('*')) return id.startsWith(pattern.slice(0, -1));
  return id === pattern;
}

/** Runs the cases against the agent of `settings` and judges every requirement. */
export async function runChecks(settings: CheckSettings, options: RunOptions): Promise<CheckRun> {
  const started = Date.now();
  const only = options.only ?? [];
  const skip = options.skip ?? [];
  const wanted = (id: string) => (only.length === 0 || only.some((p) => matchesId(id, p))) && !skip.some((p) => matchesId(id, p));
  const jobs: Array<{ c: CheckCase; v: 1 | 2 }> = [];
  for (const v of options.protocols) {
    for (const c of options.cases ?? ALL_CASES) {
      if (!c.protocols.includes(v)) continue;
      // with --only, a case runs when it judges a wanted ID; wire checks run along with any case
      if (only.length > 0 && !c.ids.some(wanted) && !WIRE_IDS.some(wanted) && !wanted(`schema/v${v}`)) continue;
      jobs.push({ c, v });
    }
  }
  const results: CaseResult[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await runCase(jobs[i]!.c, jobs[i]!.v, settings);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 4) }, worker));
  const requirements = judge(results, options.protocols, wanted);
  const spoke = options.protocols.every((v) => results.some((r) => r.protocol === v && r.name === 'initialize/basic' && r.status === 'ran') || !jobs.some((j) => j.v === v && j.c.name === 'initialize/basic'));
  const conformant = spoke && !requirements.some((r) => r.status === 'fail' && r.tier === 'MUST') && !results.some((r) => r.status === 'error');
  return { protocols: options.protocols, cases: results, requirements, conformant, ms: Date.now() - started };
}

async function runCase(c: CheckCase, v: 1 | 2, settings: CheckSettings): Promise<CaseResult> {
  const t0 = Date.now();
  const ctx = new CaseContext(settings, v);
  let status: CaseResult['status'] = 'ran';
  let reason: string | undefined;
  try {
    await c.run(ctx);
  } catch (e) {
    if (e instanceof NotApplicable) {
      status = 'not-applicable';
      reason = e.message;
    } else {
      // a step that never completed fails the case's first requirement for this version
      const id = c.ids.find((x) => !x.startsWith(v === 1 ? 'ACP-V2-' : 'ACP-V1-')) ?? `schema/v${v}`;
      const d = ctx.all.at(-1)!;
      const tail = d.stderr.trim().split('\n').slice(-3).join(' | ');
      const msg = `${e instanceof WaitTimeout || e instanceof Error ? e.message : String(e)}${!d.alive && tail ? ` (agent stderr: ${tail.slice(-300)})` : ''}`;
      if (d.spawnError) {
        status = 'error';
        reason = `the agent could not be started: ${d.spawnError.message}`;
      } else ctx.fail(id, msg, d.transcript.length ? [d.transcript.at(-1)!.seq] : [], d);
    }
  } finally {
    await Promise.all(ctx.all.map((d) => d.dispose()));
  }
  const checks = [...ctx.checks];
  for (const d of ctx.all) {
    for (const f of d.findings) checks.push({ id: f.id, ok: false, message: f.message, excerpt: excerpt(d, f.seqs) });
  }
  if (status === 'ran') {
    for (const id of [...WIRE_IDS, `schema/v${v}`]) checks.push({ id, ok: true });
  }
  const failed = checks.some((x) => !x.ok) || status === 'error';
  return { name: c.name, title: c.title, ids: c.ids, protocol: v, status, reason, checks, ms: Date.now() - t0, stderr: failed ? ctx.all.map((d) => d.stderr).join('').slice(-2000) || undefined : undefined };
}

/** Turns the checks of all cases into one verdict per requirement and version (shared with `check client`). */
export function judge(results: CaseResult[], protocols: Array<1 | 2>, wanted: (id: string) => boolean): RequirementResult[] {
  const out = new Map<string, RequirementResult>();
  for (const r of results) {
    for (const ch of r.checks) {
      if (!wanted(ch.id)) continue;
      if (ch.id.startsWith(r.protocol === 1 ? 'ACP-V2-' : 'ACP-V1-')) continue;
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
      if (!wanted(id) || id.startsWith(r.protocol === 1 ? 'ACP-V2-' : 'ACP-V1-')) continue;
      const key = `${r.protocol}:${id}`;
      if (!out.has(key)) out.set(key, { ...requirement(id), protocol: r.protocol, status: 'not-checked', failures: [], cases: [r.name] });
    }
  }
  void protocols;
  return [...out.values()].sort((a, b) => a.protocol - b.protocol || a.id.localeCompare(b.id));
}
