import { fileURLToPath } from 'node:url';
import { usageError, type AgentContext } from './errors.js';
import type { ModelBackend, SessionConfigFlags } from './flags.js';
import { chooseModel } from './model-choice.js';
import { joinCommandLine, splitCommandLine } from './split-command-line.js';

/** How to start the agent. */
export interface AgentCommand {
  command: string;
  args: string[];
  /** True when no `--agent` was given: the built-in coding agent. */
  builtIn: boolean;
  /** For messages. */
  display: string;
  /** The built-in agent's model (`demo`, `openai:gpt-4o-mini`, ...); unknown for other agents. */
  model?: string;
  /** Environment added to ours (a registry agent's manifest `env`). */
  env?: Record<string, string>;
}

/** This package's launcher, `bin/acp-kit.js` (from `dist/cli/` two folders up). */
export function launcherPath(): string {
  return fileURLToPath(new URL('../../bin/acp-kit.js', import.meta.url));
}

/**
 * The agent to run: `--agent "<command line>"` (split shell-like), else `$ACP_KIT_AGENT`, else
 * the built-in agent, run with this very Node binary so that it works on a fresh machine with no
 * PATH setup. The built-in agent gets the model {@link chooseModel} picks (demo without keys).
 */
export function resolveAgentCommand(
  agentFlag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  modelFlags: CliModelFlags = {},
): AgentCommand {
  const line = agentFlag ?? (env.ACP_KIT_AGENT ? env.ACP_KIT_AGENT : undefined);
  if (line === undefined) {
    const m = chooseModel({ ...modelFlags, model: backendFlag(modelFlags.model) }, env);
    const args = [launcherPath(), 'agent', '--model', m.backend];
    if (m.modelName !== undefined) args.push('--model-name', m.modelName);
    if (m.baseUrl !== undefined) args.push('--base-url', m.baseUrl);
    return {
      command: process.execPath,
      args,
      builtIn: true,
      display: `acp-kit agent --model ${m.backend} (built-in)`,
      model: m.label,
    };
  }
  refuseModelFlags(
    modelFlags,
    agentFlag !== undefined ? '--agent' : '$ACP_KIT_AGENT',
    agentFlag !== undefined ? '--agent' : 'ACP_KIT_AGENT',
  );
  let words: string[];
  try {
    words = splitCommandLine(line);
  } catch (e) {
    throw usageError(
      `invalid --agent command line: ${e instanceof Error ? e.message : String(e)}`,
      'Quote the whole command line once, e.g. --agent "my-agent --acp".',
    );
  }
  const [command, ...args] = words;
  if (command === undefined || command === '')
    throw usageError('--agent needs a command line, e.g. --agent "my-agent --acp"');
  return { command, args, builtIn: false, display: joinCommandLine(words) };
}

/** The model flags as `run`/`chat` parse them (`--model` is any string there, see {@link backendFlag}). */
export type CliModelFlags = Pick<SessionConfigFlags, 'model' | 'modelName' | 'baseUrl'>;

const BACKENDS: readonly ModelBackend[] = ['demo', 'openai', 'anthropic'];

/**
 * `--model` of the built-in agent names its backend. (With another agent the same flag names the
 * session's model, set through a config option once the session is open: session-config.ts.)
 */
function backendFlag(model: string | undefined): ModelBackend | undefined {
  if (model === undefined) return undefined;
  const b = BACKENDS.find((x) => x === model);
  if (b) return b;
  throw usageError(
    `--model ${JSON.stringify(model)}: the built-in agent runs on demo, openai or anthropic`,
    "Use --model-name for the provider's model name, or --agent to run another agent (whose --model sets the session's model).",
  );
}

/**
 * The built-in agent's model flags mean nothing to another agent: a usage error. `--model` is not
 * one of them: another agent gets it as the session's model.
 */
function refuseModelFlags(modelFlags: CliModelFlags, other: string, drop: string): void {
  const given = (['modelName', 'baseUrl'] as const).filter((k) => modelFlags[k] !== undefined);
  if (given.length === 0) return;
  const names = given.map((k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ');
  throw usageError(
    `${names} ${given.length === 1 ? 'chooses' : 'choose'} the model of the built-in agent, but ${other} runs another agent`,
    `Drop ${names}, or drop ${drop} to use the built-in agent.`,
  );
}

/**
 * The agent of `--agent-url`: named by its URL, with no local command and no model (the remote
 * agent's own `initialize` answer says what it is). `--agent` and the model flags are usage errors.
 */
export function remoteAgentCommand(
  url: string,
  agentFlag: string | undefined,
  modelFlags: CliModelFlags = {},
): AgentCommand {
  if (agentFlag !== undefined) throw usageError('give --agent or --agent-url, not both');
  refuseModelFlags(modelFlags, '--agent-url', '--agent-url');
  return { command: url, args: [], builtIn: false, display: url };
}

/** The error context for an agent command. */
export function agentContext(a: AgentCommand, forcedProtocol?: number): AgentContext {
  return { commandLine: a.display, command: a.command, builtIn: a.builtIn, forcedProtocol };
}
