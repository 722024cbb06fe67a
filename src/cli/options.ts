/**
 * Option declarations shared by several commands, and the flag parsers. Light on purpose (commander
 * and the error module only): every `commands/<name>.options.ts` imports it, and they all load at
 * start-up to build the command tree, before any command's own modules.
 */
import { Option, type Command, type OptionValues } from '@commander-js/extra-typings';
import { usageError } from './errors.js';
import { formatExitCodeTable } from './exit-codes.js';

/** Exit code table, at the end of the help of the commands that use all of them. */
export const EXIT_HELP = `\nExit codes:\n${formatExitCodeTable()}\n`;

export const AGENT_HELP = `
Agent:
  Without --agent (and without $ACP_KIT_AGENT) the built-in coding agent runs in --cwd, on the
  model --model picks: with OPENAI_API_KEY or ANTHROPIC_API_KEY set that provider, else the
  offline demo model, which understands prompts like "create notes.txt containing hello",
  "read README.md", "list files" and "run ls -la". --agent takes one command line, split
  like a shell does (quotes, backslashes; no variables or globs), e.g.
    --agent "npx @zed-industries/claude-code-acp"  or  --agent "node ./my-agent.js --acp".
`;

/** Where an action leaves its exit code for {@link main} (commander's actions return nothing). */
export interface ExitResult {
  code: number;
}

/** Bounds of an integer flag; `max` defaults to the largest safe integer. */
export interface IntegerRange {
  min: number;
  max?: number;
}

/**
 * The one parser of integer flags (counts, limits, ports). A value must be a whole number in the
 * range; the message says the range the way people say it ("a positive integer", "0..65535").
 */
export function integerFlag(flag: string, range: IntegerRange): (value: string) => number {
  const max = range.max ?? Number.MAX_SAFE_INTEGER;
  const wanted =
    range.max !== undefined
      ? `${range.min}..${range.max}`
      : range.min === 1
        ? 'a positive integer'
        : `an integer of at least ${range.min}`;
  return (value) => {
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n < range.min || n > max)
      throw usageError(`${flag} must be ${wanted} (got ${JSON.stringify(value)})`);
    return n;
  };
}

/** A positive number of seconds (fractions allowed), at most `max`. */
export function secondsFlag(flag: string, max?: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0 || (max !== undefined && n > max)) {
      throw usageError(
        `${flag} must be a positive number of seconds${max !== undefined ? ` up to ${max}` : ''} (got ${JSON.stringify(value)})`,
      );
    }
    return n;
  };
}

/**
 * A plain string value. For flags whose value name ends in `...` after a non-word character
 * (`<postgres://...>`): commander reads one value there, but extra-typings' inference takes the
 * `...` for a variadic option (`string[]`); a parser states the type commander really produces.
 */
export const text = (value: string): string => value;

/** Repeatable string flag (`--allow-origin a --allow-origin b`). */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/*
 * The helpers below take a command with no options yet (or, for the model flags, exactly the
 * agent flags): extra-typings infers option types through conditional types, and over a generic
 * option set that inference does not finish (tsc ran out of memory); over a known set it is instant.
 */

/** Options every agent-talking command shares (`run`, `chat`, `login`, `sessions`); declared first. */
export function addAgentOptions<A extends unknown[]>(cmd: Command<A, {}, OptionValues>) {
  return cmd
    .option('--agent <command line>', 'agent to run, as one command line (default: the built-in demo agent)')
    .option(
      '--agent-url <url>',
      'remote agent (acp-kit serve): ws://host:port/acp or http://host:port/acp; token from $ACP_KIT_AGENT_TOKEN or --agent-token-file',
    )
    .option('--agent-token-file <file>', 'file holding the bearer token for --agent-url')
    .option(
      '--agent-http2',
      'an http:// or https:// --agent-url: speak HTTP/2 (cleartext h2c for http://, e.g. acp-kit serve --http2-port)',
    )
    .option('--cwd <dir>', 'working directory of the session (default: the current directory)')
    .addOption(
      new Option('--protocol <version>', 'protocol version to use').choices(['auto', '1', '2']).default('auto'),
    )
    .option(
      '--connect-timeout <seconds>',
      "how long to wait for the agent's initialize answer (default 60)",
      secondsFlag('--connect-timeout'),
    )
    .option(
      '--timeout <seconds>',
      'how long to wait for the agent to open the session (session/new, load, resume; default 60)',
      secondsFlag('--timeout', 2_000_000),
    )
    .option('--verbose', "print the agent's stderr and protocol notes to stderr");
}

/** The flags {@link addAgentOptions} declares, as parsed. */
export type AgentOptionValues =
  ReturnType<typeof addAgentOptions> extends Command<unknown[], infer O, OptionValues> ? O : never;

/**
 * Model choice of the built-in agent, and the session's mode, model and config options of any
 * agent, for `run` and `chat` (the built-in agent itself has the model flags); declared after the
 * agent flags.
 */
export function addModelOptions<A extends unknown[]>(cmd: Command<A, AgentOptionValues, OptionValues>) {
  return cmd
    .option(
      '--model <id>',
      "built-in agent: its backend, demo, openai or anthropic (default: $ACP_KIT_MODEL, else the provider whose API key is set, else demo); another agent: the session's model, through its config option of category model",
    )
    .option('--model-name <name>', 'model name (default: $ACP_KIT_MODEL_NAME, else gpt-4o-mini / claude-sonnet-4-5)')
    .option(
      '--base-url <url>',
      'API base URL (default: $OPENAI_BASE_URL / $ANTHROPIC_BASE_URL), e.g. a local OpenAI-compatible server',
    )
    .option(
      '--mode <id>',
      "the session's mode: its config option of category mode, else the agent's modes (v1 session/set_mode)",
    )
    .option(
      '--config <id=value>',
      "set one of the session's config options after it opens (repeatable; booleans take true/false)",
      collect,
    )
    .option(
      '--profile <name>',
      'take defaults from this profile of the config file (default: $ACP_KIT_PROFILE; see acp-kit profiles)',
    );
}
