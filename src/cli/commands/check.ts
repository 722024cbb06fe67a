import { statSync, writeFileSync } from 'node:fs';
import { resultLine } from '../render/ndjson-events.js';
import { resolve } from 'node:path';
import {
  formatJson,
  formatJunit,
  formatText,
  checkAgent,
  type CheckRun,
  runClientChecks,
} from '@acp-kit/tools/checker';
import { CliError, usageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { commandOf, joinCommandLine } from '../split-command-line.js';
import { agentOfWordsOrId } from '../registry-agent.js';
import { packageVersion } from '@acp-kit/protocol/internal';

/** Flags of `acp-kit check client` as commander hands them over; `check agent` takes them too. */
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

/** Flags of `acp-kit check agent` as commander hands them over. */
export interface CheckAgentFlags extends CheckClientFlags {
  prompt?: string;
  cancelPrompt?: string;
  shortPrompt?: string;
  auth?: string;
  elicitation?: boolean;
  /** --process-per-case: a fresh agent process for every case. */
  processPerCase?: boolean;
  /** An ACP Registry agent id (`<id>[@version]`) instead of a command after `--`. */
  agent?: string;
  registry?: string;
}

const splitIds = (values: string[] | undefined): string[] =>
  (values ?? [])
    .flatMap((v) => v.split(','))
    .map((s) => s.trim())
    .filter(Boolean);

/** --protocol: 1, 2, or (default) both. */
const protocolsOf = (flags: CheckClientFlags): Array<1 | 2> =>
  flags.protocol === '1' ? [1] : flags.protocol === '2' ? [2] : [1, 2];

/** --env NAME=VALUE, repeated. */
function envOf(flags: CheckClientFlags): Record<string, string> {
  const env: Record<string, string> = {};
  for (const kv of flags.env ?? []) {
    const i = kv.indexOf('=');
    if (i <= 0) throw usageError(`--env ${JSON.stringify(kv)} must be NAME=VALUE`);
    env[kv.slice(0, i)] = kv.slice(i + 1);
  }
  return env;
}

/** --cwd, resolved; a usage error unless it is a directory. */
function cwdOf(cwd: string): string {
  const dir = resolve(cwd);
  try {
    if (!statSync(dir).isDirectory()) throw new Error('not a directory');
  } catch {
    throw usageError(`--cwd ${JSON.stringify(cwd)} is not a directory`);
  }
  return dir;
}

/** The case selection and pace the runners take from the flags. */
const runOptionsOf = (flags: CheckClientFlags) => ({
  protocols: protocolsOf(flags),
  only: splitIds(flags.only),
  skip: splitIds(flags.skip),
  concurrency: flags.concurrency ?? 4,
});

/** Writes the report (text or --json, and --junit) and returns the exit code: 0 conformant, 1 not. */
function report(run: CheckRun, label: string, flags: CheckClientFlags, subject: 'agent' | 'client'): number {
  // when no case could run, the reason is the one thing to read first
  const [first] = run.cases;
  if (first && run.cases.every((c) => c.status === 'error')) process.stderr.write(`acp-kit check: ${first.reason}\n`);
  const code = run.conformant ? 0 : 1;
  // --json: the report as one `report` line, then the result line every --json command ends with
  process.stdout.write(
    flags.json
      ? `${JSON.stringify({ type: 'report', ...JSON.parse(formatJson(run, label, subject)) })}\n${resultLine(code, { conformant: run.conformant })}`
      : formatText(run, label, subject),
  );
  if (flags.junit) writeFileSync(flags.junit, formatJunit(run, label, subject));
  return code;
}

/** `acp-kit check agent [flags] -- <agent command...>`: exit 0 conformant, 1 not, 2 usage. */
export async function checkAgentCommand(agent: string[], flags: CheckAgentFlags): Promise<number> {
  const found = await agentOfWordsOrId(agent, flags.agent, { registry: flags.registry });
  if (!found)
    throw usageError(
      'no agent command given',
      'Put the agent command after --, e.g. acp-kit check agent -- npx acp-kit agent, or name a registry agent: --agent claude-acp',
    );
  const agentCommand = { command: found.command, args: found.args };
  const env = { ...found.env, ...envOf(flags) };
  // without --cwd, checkAgent's scratch directory: the agent's tools must not touch the user's files
  const cwd = flags.cwd !== undefined ? cwdOf(flags.cwd) : undefined;
  const run = await checkAgent(
    { ...agentCommand, env },
    {
      cwd,
      timeoutMs: flags.timeout,
      prompt: flags.prompt,
      cancelPrompt: flags.cancelPrompt,
      shortPrompt: flags.shortPrompt,
      auth: flags.auth,
      elicitation: flags.elicitation === true,
      processPerCase: flags.processPerCase === true,
      ...runOptionsOf(flags),
    },
  );
  // nothing to judge: one line, the exit code of an agent that could not be started
  if (run.unstartable)
    throw new CliError(
      'agent_start_failed',
      ExitCode.AgentFailed,
      `acp-kit check: ${run.unstartable} (${found.label})`,
    );
  return report(run, found.label, flags, 'agent');
}

/**
 * `acp-kit check client [flags] -- <client command with {agent}...>`: the checker plays a scripted
 * agent that the client launches (`{agent}` in the command, or $ACP_CHECK_AGENT). Exit 0 conformant, 1 not, 2 usage.
 */
export async function checkClientCommand(client: string[], flags: CheckClientFlags): Promise<number> {
  const clientCommand = commandOf(client);
  if (!clientCommand)
    throw usageError(
      'no client command given',
      'Put the client command after --, with {agent} where it takes the agent command, e.g. acp-kit check client -- acp-kit run --agent "{agent}" hello',
    );
  const env = envOf(flags);
  const processCwd = flags.cwd !== undefined ? cwdOf(flags.cwd) : undefined;
  if (!client.some((w) => w.includes('{agent}'))) {
    process.stderr.write(
      'acp-kit check: the client command has no {agent}; the client must read the agent command from $ACP_CHECK_AGENT\n',
    );
  }
  const label = joinCommandLine(client);
  const run = await runClientChecks(
    { ...clientCommand, env, processCwd, timeoutMs: flags.timeout ?? 10_000, agentVersion: packageVersion() },
    runOptionsOf(flags),
  );
  return report(run, label, flags, 'client');
}
