import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkAgent } from '../checker/check-agent.js';
import { findAgent, parseAgentSpec, planInstall, RegistryError, type InstallPlan } from './distribution.js';
import { installAgent } from './install.js';
import { PROBED_METHODS, probeHandshake, type HandshakeProbe } from './probe.js';
import type { Registry } from './types.js';

/** One protocol version's conformance check of an agent. */
export interface MatrixCheck {
  protocol: 1 | 2;
  verdict: 'conformant' | 'not conformant' | 'not run';
  /** Requirement IDs that failed (MUST and SHOULD). */
  failing: string[];
  reason?: string;
}

/**
 * One agent's row: every field of the registry's daily matrix (`.protocol-matrix/snapshots/*.json`:
 * id, name, registryVersion, distribution, initialize, protocolVersion, agentInfoVersion,
 * authMethods, capabilities, sessionNew, methodProbes, durationSeconds) plus the conformance
 * columns: the version installed, the protocol negotiated when v2 is offered, the verdict, the
 * failing requirement IDs per version, and the time of the whole row.
 */
export interface MatrixRow extends Partial<HandshakeProbe> {
  id: string;
  name: string;
  registryVersion: string;
  distribution: InstallPlan['kind'] | 'none';
  installedVersion: string | null;
  /** What the agent answered to an `initialize` offering v2 (1, 2, or null when it did not answer). */
  negotiatedProtocol: number | null;
  verdict: 'conformant' | 'not conformant' | 'auth required' | 'install failed' | 'unavailable' | 'not started';
  /** For `auth required`: the methods the agent offers (`terminal`, `agent`, `env_var`, ...). */
  verdictDetail?: string;
  checks: MatrixCheck[];
  failingIds: string[];
  durationSeconds: number;
}

export interface MatrixReport {
  generatedAt: string;
  registry: Registry['source'];
  platform: string;
  rows: MatrixRow[];
  totalSeconds: number;
  /** The checker's `--only` / `--skip` when given: the verdicts cover those requirements only. */
  only?: string[];
  skip?: string[];
}

export interface MatrixOptions {
  registry: Registry;
  /** Ids (`<id>` or `<id>@<version>`); empty: every agent of the registry. */
  ids: readonly string[];
  env?: NodeJS.ProcessEnv;
  /** One answer's deadline in the probe and the checker (default 20000). */
  timeoutMs?: number;
  prompt?: string;
  cancelPrompt?: string;
  shortPrompt?: string;
  concurrency?: number;
  /** Requirement IDs the checker is limited to / leaves out (as `check agent --only/--skip`); recorded in the report. */
  only?: readonly string[];
  skip?: readonly string[];
  log?: (line: string) => void;
}

const scratch = (): string => realpathSync(mkdtempSync(join(tmpdir(), 'acp-kit-matrix-')));

/** The conformance check of the versions the agent speaks (v1 always when it answered; v2 when it chose v2). */
async function checks(
  launch: { command: string; args: string[]; env: Record<string, string> },
  versions: Array<1 | 2>,
  o: MatrixOptions,
): Promise<MatrixCheck[]> {
  const out: MatrixCheck[] = [];
  for (const protocol of versions) {
    const run = await checkAgent(launch, {
      protocols: [protocol],
      timeoutMs: o.timeoutMs ?? 20_000,
      concurrency: o.concurrency ?? 2,
      ...(o.only !== undefined ? { only: o.only } : {}),
      ...(o.skip !== undefined ? { skip: o.skip } : {}),
      ...(o.prompt !== undefined ? { prompt: o.prompt } : {}),
      ...(o.cancelPrompt !== undefined ? { cancelPrompt: o.cancelPrompt } : {}),
      ...(o.shortPrompt !== undefined ? { shortPrompt: o.shortPrompt } : {}),
    });
    const failing = [...new Set(run.requirements.filter((r) => r.status === 'fail').map((r) => r.id))].sort();
    const notRun = run.unstartable ?? run.notRun?.[0]?.reason;
    out.push({
      protocol,
      verdict:
        notRun !== undefined && run.cases.every((c) => c.status !== 'ran')
          ? 'not run'
          : run.conformant
            ? 'conformant'
            : 'not conformant',
      failing,
      ...(notRun !== undefined ? { reason: notRun } : {}),
    });
  }
  return out;
}

/** One agent: install, the registry's probe, the v2 offer, then (unless it needs a login) the checker. */
async function matrixRow(spec: string, o: MatrixOptions): Promise<MatrixRow> {
  const started = Date.now();
  const parsed = parseAgentSpec(spec);
  const seconds = () => Math.round((Date.now() - started) / 10) / 100;
  if (!parsed) throw new RegistryError(`"${spec}" is not an agent id`);
  const agent = findAgent(o.registry.agents, parsed);
  const base = { id: agent.id, name: agent.name, registryVersion: agent.version, checks: [], failingIds: [] };
  let plan: InstallPlan;
  try {
    plan = planInstall(agent, parsed.version);
  } catch (e) {
    const detail = e instanceof Error ? e.message : String(e);
    return {
      ...base,
      distribution: 'none',
      installedVersion: null,
      negotiatedProtocol: null,
      verdict: 'unavailable',
      verdictDetail: detail,
      durationSeconds: seconds(),
    };
  }
  const env = o.env ?? process.env;
  let launch: { command: string; args: string[]; env: Record<string, string> };
  try {
    o.log?.(`${agent.id}: installing ${plan.kind === 'binary' ? plan.target.archive : plan.spec}`);
    const got = await installAgent(plan, { env, log: o.log });
    launch = { command: got.command, args: got.args, env: got.env };
  } catch (e) {
    const detail =
      e instanceof Error ? `${e.message}${e instanceof RegistryError && e.hint ? ` (${e.hint})` : ''}` : String(e);
    return {
      ...base,
      distribution: plan.kind,
      installedVersion: null,
      negotiatedProtocol: null,
      verdict: 'install failed',
      verdictDetail: detail,
      durationSeconds: seconds(),
    };
  }
  const row = await probeAndCheck(launch, o, env);
  return { ...base, distribution: plan.kind, installedVersion: plan.version, ...row, durationSeconds: seconds() };
}

/** The registry's probe (v1), an `initialize` offering v2, and the checker on what the agent speaks. */
async function probeAndCheck(
  launch: { command: string; args: string[]; env: Record<string, string> },
  o: MatrixOptions,
  env: NodeJS.ProcessEnv,
): Promise<
  Pick<MatrixRow, 'negotiatedProtocol' | 'verdict' | 'verdictDetail' | 'checks' | 'failingIds'> &
    Partial<HandshakeProbe>
> {
  const cwd = scratch();
  try {
    const target = {
      command: launch.command,
      args: launch.args,
      env: { ...env, ...launch.env },
      cwd,
      timeoutMs: o.timeoutMs ?? 20_000,
    };
    const probe = await probeHandshake({ ...target, protocolVersion: 1 });
    const offer2 = await probeHandshake({ ...target, protocolVersion: 2 });
    const negotiatedProtocol = offer2.protocolVersion;
    if (probe.initialize.status !== 'success')
      return {
        ...probe,
        negotiatedProtocol,
        verdict: 'not started',
        verdictDetail: probe.initialize.message ?? probe.initialize.status,
        checks: [],
        failingIds: [],
      };
    if (probe.sessionNew.status === 'auth_required')
      return {
        ...probe,
        negotiatedProtocol,
        verdict: 'auth required',
        verdictDetail: probe.authMethods.join(', ') || 'no method advertised',
        checks: [],
        failingIds: [],
      };
    const versions: Array<1 | 2> = negotiatedProtocol === 2 ? [1, 2] : [1];
    const done = await checks(launch, versions, o);
    const failingIds = [...new Set(done.flatMap((c) => c.failing.map((id) => `v${c.protocol} ${id}`)))];
    const verdict = done.every((c) => c.verdict === 'conformant') ? 'conformant' : 'not conformant';
    return { ...probe, negotiatedProtocol, verdict, checks: done, failingIds };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

/**
 * `acp-kit check matrix`: per agent (one after the other: each install and check already runs
 * several processes), the registry's own matrix columns and the conformance verdict.
 */
export async function runMatrix(o: MatrixOptions): Promise<MatrixReport> {
  const started = Date.now();
  const ids = o.ids.length > 0 ? o.ids : o.registry.agents.map((a) => a.id);
  const rows: MatrixRow[] = [];
  for (const id of ids) {
    o.log?.(`${id}: start`);
    const row = await matrixRow(id, o);
    o.log?.(`${id}: ${row.verdict}${row.verdictDetail ? ` (${row.verdictDetail})` : ''} in ${row.durationSeconds} s`);
    rows.push(row);
  }
  return {
    generatedAt: new Date().toISOString(),
    registry: o.registry.source,
    platform: `${process.platform}-${process.arch}`,
    rows,
    totalSeconds: Math.round((Date.now() - started) / 100) / 10,
    ...(o.only !== undefined ? { only: [...o.only] } : {}),
    ...(o.skip !== undefined ? { skip: [...o.skip] } : {}),
  };
}

export { PROBED_METHODS };
