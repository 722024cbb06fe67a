import { mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { formatJson, formatJunit, formatText } from '../../checker/report.js';
import { runChecks } from '../../checker/runner.js';
import { runClientChecks } from '../../checker/client/runner.js';
import { usageError } from '../errors.js';
import { joinCommandLine } from '../split-command-line.js';
import { packageVersion } from '../version.js';

/** Flags of `acp-kit check agent` as commander hands them over. */
export interface CheckAgentFlags {
  protocol?: string;
  only?: string[];
  skip?: string[];
  timeout?: number;
  cwd?: string;
  env?: string[];
  prompt?: string;
  auth?: string;
  json?: boolean;
  junit?: string;
  concurrency?: number;
}

/** The default prompt: makes the built-in demo agent ask to run a command, and any agent do some work. */
export const DEFAULT_CHECK_PROMPT = 'run sleep 3';

const splitIds = (values: string[] | undefined): string[] => (values ?? []).flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean);

/** `acp-kit check agent [flags] -- <agent command...>`: exit 0 conformant, 1 not, 2 usage. */
export async function checkAgentCommand(agent: string[], flags: CheckAgentFlags): Promise<number> {
  if (agent.length === 0) throw usageError('no agent command given', 'Put the agent command after --, e.g. acp-kit check agent -- npx acp-kit agent');
  const protocols: Array<1 | 2> = flags.protocol === '1' ? [1] : flags.protocol === '2' ? [2] : [1, 2];
  const env: Record<string, string> = {};
  for (const kv of flags.env ?? []) {
    const i = kv.indexOf('=');
    if (i <= 0) throw usageError(`--env ${JSON.stringify(kv)} must be NAME=VALUE`);
    env[kv.slice(0, i)] = kv.slice(i + 1);
  }
  let cwd: string;
  let ownCwd: string | undefined;
  if (flags.cwd !== undefined) {
    cwd = resolve(flags.cwd);
    try {
      if (!statSync(cwd).isDirectory()) throw new Error('not a directory');
    } catch {
      throw usageError(`--cwd ${JSON.stringify(flags.cwd)} is not a directory`);
    }
  } else {
    // a scratch directory: the agent's tools must not touch the user's files
    ownCwd = realpathSync(mkdtempSync(join(tmpdir(), 'acp-kit-check-')));
    cwd = ownCwd;
  }
  if (!isAbsolute(cwd)) throw usageError(`--cwd must resolve to an absolute path (got ${cwd})`);
  const label = joinCommandLine(agent);
  try {
    const run = await runChecks(
      { command: agent[0]!, args: agent.slice(1), cwd, env, timeoutMs: flags.timeout ?? 10_000, prompt: flags.prompt ?? DEFAULT_CHECK_PROMPT, auth: flags.auth, clientVersion: packageVersion() },
      { protocols, only: splitIds(flags.only), skip: splitIds(flags.skip), concurrency: flags.concurrency ?? 4 },
    );
    if (run.cases.length > 0 && run.cases.every((c) => c.status === 'error')) {
      process.stderr.write(`acp-kit check: ${run.cases[0]!.reason}\n`);
    }
    process.stdout.write(flags.json ? formatJson(run, label) : formatText(run, label));
    if (flags.junit) writeFileSync(flags.junit, formatJunit(run, label));
    return run.conformant ? 0 : 1;
  } finally {
    if (ownCwd) rmSync(ownCwd, { recursive: true, force: true });
  }
}

/** Flags of `acp-kit check client` as commander hands them over. */
export interface CheckClientFlags {
  protocol?: string;
  only?: string[];
  skip?: string[];
  timeout?: number;
  cwd?: string;
  env?: string[];
  json?: boolean;
  junit?: string;
  concurrency?: number;
}

/**
 * `acp-kit check client [flags] -- <client command with {agent}...>`: the checker plays a scripted
 * agent that the client launches (`{agent}` in the command, or $ACP_CHECK_AGENT). Exit 0 conformant, 1 not, 2 usage.
 */
export async function checkClientCommand(client: string[], flags: CheckClientFlags): Promise<number> {
  if (client.length === 0) throw usageError('no client command given', 'Put the client command after --, with {agent} where it takes the agent command, e.g. acp-kit check client -- acp-kit run --agent "{agent}" hello');
  const protocols: Array<1 | 2> = flags.protocol === '1' ? [1] : flags.protocol === '2' ? [2] : [1, 2];
  const env: Record<string, string> = {};
  for (const kv of flags.env ?? []) {
    const i = kv.indexOf('=');
    if (i <= 0) throw usageError(`--env ${JSON.stringify(kv)} must be NAME=VALUE`);
    env[kv.slice(0, i)] = kv.slice(i + 1);
  }
  let processCwd: string | undefined;
  if (flags.cwd !== undefined) {
    processCwd = resolve(flags.cwd);
    try {
      if (!statSync(processCwd).isDirectory()) throw new Error('not a directory');
    } catch {
      throw usageError(`--cwd ${JSON.stringify(flags.cwd)} is not a directory`);
    }
  }
  if (!client.some((w) => w.includes('{agent}'))) {
    process.stderr.write('acp-kit check: the client command has no {agent}; the client must read the agent command from $ACP_CHECK_AGENT\n');
  }
  const label = joinCommandLine(client);
  const run = await runClientChecks(
    { command: client[0]!, args: client.slice(1), env, processCwd, timeoutMs: flags.timeout ?? 10_000, agentVersion: packageVersion() },
    { protocols, only: splitIds(flags.only), skip: splitIds(flags.skip), concurrency: flags.concurrency ?? 4 },
  );
  if (run.cases.length > 0 && run.cases.every((c) => c.status === 'error')) process.stderr.write(`acp-kit check: ${run.cases[0]!.reason}\n`);
  process.stdout.write(flags.json ? formatJson(run, label, 'client') : formatText(run, label, 'client'));
  if (flags.junit) writeFileSync(flags.junit, formatJunit(run, label, 'client'));
  return run.conformant ? 0 : 1;
}
