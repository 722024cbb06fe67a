import { fileURLToPath } from 'node:url';
import { usageError, type AgentContext } from './errors.js';
import { joinCommandLine, splitCommandLine } from './split-command-line.js';

/** How to start the agent. */
export interface AgentCommand {
  command: string;
  args: string[];
  /** True when no `--agent` was given: the built-in coding agent on the offline demo model. */
  builtIn: boolean;
  /** For messages. */
  display: string;
}

/** This package's launcher, `bin/acp-kit.js` (from `dist/cli/` two folders up). */
export function launcherPath(): string {
  return fileURLToPath(new URL('../../bin/acp-kit.js', import.meta.url));
}

/**
 * The agent to run: `--agent "<command line>"` (split shell-like), else `$ACP_KIT_AGENT`, else
 * the built-in agent on the demo model, run with this very Node binary so that it works on a
 * fresh machine with no API keys and no PATH setup.
 */
export function resolveAgentCommand(agentFlag: string | undefined, env: NodeJS.ProcessEnv = process.env): AgentCommand {
  const line = agentFlag ?? (env.ACP_KIT_AGENT ? env.ACP_KIT_AGENT : undefined);
  if (line === undefined) {
    const args = [launcherPath(), 'agent', '--model', 'demo'];
    return { command: process.execPath, args, builtIn: true, display: 'acp-kit agent --model demo (built-in)' };
  }
  let words: string[];
  try {
    words = splitCommandLine(line);
  } catch (e) {
    throw usageError(`invalid --agent command line: ${(e as Error).message}`, 'Quote the whole command line once, e.g. --agent "my-agent --acp".');
  }
  if (words.length === 0 || words[0] === '') throw usageError('--agent needs a command line, e.g. --agent "my-agent --acp"');
  return { command: words[0]!, args: words.slice(1), builtIn: false, display: joinCommandLine(words) };
}

/** The error context for an agent command. */
export function agentContext(a: AgentCommand, forcedProtocol?: number): AgentContext {
  return { commandLine: a.display, command: a.command, builtIn: a.builtIn, forcedProtocol };
}
