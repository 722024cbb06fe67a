import { Command, CommanderError, Option } from 'commander';
import { CliError, formatCliError, usageError } from './errors.js';
import { ExitCode, formatExitCodeTable } from './exit-codes.js';
import { resultLine } from './render/ndjson-events.js';
import type { AgentFlags, ChatFlags, RunFlags, SessionsFlags } from './flags.js';
import { colorEnabled, createStyle } from './style.js';
import { packageVersion } from '@acp-kit/protocol/internal';

// flag types live in a leaf module (the version in protocol/package-version.ts) so that commands never import this file
export type { AgentFlags, ChatFlags, ModelFlags, RunFlags, SessionsFlags } from './flags.js';

const EXIT_HELP = `\nExit codes:\n${formatExitCodeTable()}\n`;

const AGENT_HELP = `
Agent:
  Without --agent (and without $ACP_KIT_AGENT) the built-in coding agent runs in --cwd, on the
  model --model picks: with OPENAI_API_KEY or ANTHROPIC_API_KEY set that provider, else the
  offline demo model, which understands prompts like "create notes.txt containing hello",
  "read README.md", "list files" and "run ls -la". --agent takes one command line, split
  like a shell does (quotes, backslashes; no variables or globs), e.g.
    --agent "npx @zed-industries/claude-code-acp"  or  --agent "node ./my-agent.js --acp".
`;

function addAgentOptions(cmd: Command): Command {
  return cmd
    .option('--agent <command line>', 'agent to run, as one command line (default: the built-in demo agent)')
    .option('--agent-url <url>', 'remote agent (acp-kit serve): ws://host:port/acp or http://host:port/acp; token from $ACP_KIT_AGENT_TOKEN or --agent-token-file')
    .option('--agent-token-file <file>', 'file holding the bearer token for --agent-url')
    .option('--agent-http2', 'an http:// or https:// --agent-url: speak HTTP/2 (cleartext h2c for http://, e.g. acp-kit serve --http2-port)')
    .option('--cwd <dir>', 'working directory of the session (default: the current directory)')
    .addOption(new Option('--protocol <version>', 'protocol version to use').choices(['auto', '1', '2']).default('auto'))
    .option('--connect-timeout <seconds>', "how long to wait for the agent's initialize answer (default 60)", (v) => {
      const n = Number(v);
      if (!Number.isFinite(n) || n <= 0) throw usageError(`--connect-timeout must be a positive number of seconds (got ${JSON.stringify(v)})`);
      return n;
    })
    .option('--timeout <seconds>', 'how long to wait for the agent to open the session (session/new, load, resume; default 60)', (v) => {
      const n = Number(v);
      if (!Number.isFinite(n) || n <= 0 || n > 2_000_000) throw usageError(`--timeout must be a positive number of seconds up to 2000000 (got ${JSON.stringify(v)})`);
      return n;
    })
    .option('--verbose', "print the agent's stderr and protocol notes to stderr");
}

/** Model choice of the built-in agent, for `run` and `chat` (the agent itself has the same flags). */
function addModelOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--model <backend>', 'model of the built-in agent (default: $ACP_KIT_MODEL, else the provider whose API key is set, else demo)').choices(['demo', 'openai', 'anthropic']))
    .option('--model-name <name>', 'model name (default: $ACP_KIT_MODEL_NAME, else gpt-4o-mini / claude-sonnet-4-5)')
    .option('--base-url <url>', 'API base URL (default: $OPENAI_BASE_URL / $ANTHROPIC_BASE_URL), e.g. a local OpenAI-compatible server');
}

/** Lazily loaded command implementations keep `--help` fast and the heavy UI out of `run`. */
export interface CommandHandlers {
  run(prompt: string, flags: RunFlags): Promise<number>;
  chat(flags: ChatFlags): Promise<number>;
  sessionsList(flags: SessionsFlags): Promise<number>;
  sessionsShow(sessionId: string, flags: SessionsFlags): Promise<number>;
  agent(flags: Record<string, unknown>): Promise<number>;
}

/** `serve --port`: 0 (any free port) to 65535. */
function portNumber(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw usageError(`--port must be 0..65535 (got ${JSON.stringify(v)})`);
  return n;
}

const defaultHandlers: CommandHandlers = {
  run: async (prompt, flags) => (await import('./commands/run.js')).runCommand(prompt, flags),
  chat: async (flags) => (await import('./commands/chat.js')).chatCommand(flags),
  sessionsList: async (flags) => (await import('./commands/sessions.js')).sessionsListCommand(flags),
  sessionsShow: async (id, flags) => (await import('./commands/sessions.js')).sessionsShowCommand(id, flags),
  agent: async (flags) => (await import('./commands/agent-launch.js')).agentCommand(flags),
};

/** `check agent`'s three prompts, one per kind of case (docs/checker.md); kept out of buildProgram, which must not grow. */
const CHECK_PROMPT_FLAGS = [
  ['--prompt <text>', 'prompt of the general turn cases; the cancel case\'s too unless --cancel-prompt (default "run sleep 3")'],
  ['--cancel-prompt <text>', 'prompt of the cancel cases: must keep the agent busy until the cancel arrives (default: --prompt)'],
  ['--short-prompt <text>', 'prompt of the cases that only need a turn that ends (load, resume, image; default "hello")'],
] as const;
/** A fresh Option per program built (an Option is not shared between commands). */
const checkPromptOption = (i: 0 | 1 | 2): Option => new Option(CHECK_PROMPT_FLAGS[i][0], CHECK_PROMPT_FLAGS[i][1]);

/**
 * Builds the `acp-kit` command tree. Actions store their exit code in `result.code`; parse
 * errors surface as {@link CommanderError} (see {@link main}).
 */
export function buildProgram(result: { code: number }, handlers: CommandHandlers = defaultHandlers): Command {
  const program = new Command();
  program
    .name('acp-kit')
    .description('Agent Client Protocol toolkit: run ACP agents from the terminal (protocol v1 and v2).')
    .version(packageVersion(), '-V, --version', 'print the acp-kit version')
    .helpOption('-h, --help', 'show help')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      // commander's own error text; we add the hint line
      outputError: (str, write) => write(str),
    })
    .addHelpText(
      'after',
      `\nWithout a command, in a terminal, acp-kit starts \`chat\`.\nEnvironment: NO_COLOR disables colour, ACP_KIT_AGENT sets the default --agent.\n${EXIT_HELP}`,
    )
    .usage('[options] [command]')
    .argument('[command]')
    .action(async (word: string | undefined) => {
      if (word !== undefined) {
        throw usageError(`unknown command '${word}'`, 'Commands: run, chat, sessions, agent, login, proxy, captures, validate, check, replay, stats, diff, inspect. To send a prompt: acp-kit run "<prompt>".');
      }
      if (process.stdin.isTTY && process.stdout.isTTY) {
        result.code = await handlers.chat({ protocol: 'auto' });
        return;
      }
      program.outputHelp({ error: true });
      result.code = ExitCode.Usage;
    });

  addModelOptions(addAgentOptions(
    program
      .command('run')
      .description('send one prompt to an agent and stream the answer (non-interactive; works without a TTY)')
      .argument('<prompt...>', 'the prompt (several words are joined with spaces; "-" reads it from stdin)'),
  ))
    .addOption(new Option('--approve-all', 'approve every permission request').conflicts(['approveReads', 'denyAll']))
    .addOption(new Option('--approve-reads', 'approve read-only tool calls, reject the rest (default)').conflicts(['approveAll', 'denyAll']))
    .addOption(new Option('--deny-all', 'reject every permission request').conflicts(['approveAll', 'approveReads']))
    .option('--json', 'print NDJSON events (first: connection, last: result) instead of text')
    .addHelpText(
      'after',
      `\nExamples:\n  acp-kit run "create notes.txt containing hello" --approve-all\n  acp-kit run --json "list files" | jq -c .type\n  acp-kit run --agent "node my-agent.js" --protocol 1 "hello"\n${AGENT_HELP}${EXIT_HELP}`,
    )
    .action(async (words: string[], flags: RunFlags) => {
      result.code = await handlers.run(await promptText(words), flags);
    });

  addModelOptions(addAgentOptions(
    program
      .command('chat')
      .description('interactive terminal client (needs a TTY): streaming answers, plans, tool calls, permission picker'),
  ))
    .option('--resume [sessionId]', 'resume an earlier session (without an id: pick one from a list)')
    .addOption(new Option('--approve-all', 'approve every permission request without asking').conflicts(['approveReads']))
    .addOption(new Option('--approve-reads', 'approve read-only tool calls without asking; ask for the rest').conflicts(['approveAll']))
    .addHelpText(
      'after',
      `\nKeys: Enter sends, Ctrl-C cancels the running turn (a second Ctrl-C exits), Ctrl-D exits,\n/ lists the agent's slash commands, /exit or /quit exits, up/down + Enter pick a permission option.\n${AGENT_HELP}${EXIT_HELP}`,
    )
    .action(async (flags: ChatFlags) => {
      result.code = await handlers.chat(flags);
    });

  addAgentOptions(program.command('login').description("run the agent's terminal login (interactive), then check that the agent accepts it").argument('[method]', 'auth method id (needed when the agent offers several)'))
    .action(async (method: string | undefined, flags: AgentFlags) => {
      result.code = await (await import('./commands/login.js')).loginCommand(method, flags);
    });

  const sessions = program.command('sessions').description("list and show an agent's stored sessions (needs an agent that supports session listing)");
  addAgentOptions(sessions.command('list').description('list sessions (of --cwd, or all with --all)'))
    .option('--all', 'list sessions of every working directory')
    .option('--json', 'print NDJSON')
    .action(async (flags: SessionsFlags & { all?: boolean }) => {
      result.code = await handlers.sessionsList(flags);
    });
  addAgentOptions(sessions.command('show').description("replay a session's history").argument('<sessionId>', 'the session id'))
    .option('--json', 'print NDJSON')
    .action(async (id: string, flags: SessionsFlags) => {
      result.code = await handlers.sessionsShow(id, flags);
    });
  sessions.addHelpText('after', EXIT_HELP);

  const positive = (flag: string) => (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw usageError(`${flag} must be a positive integer (got ${JSON.stringify(v)})`);
    return n;
  };
  program
    .command('agent')
    .description('run the built-in ACP coding agent on stdio (what `run` and `chat` start by default)')
    .addOption(new Option('--model <backend>', 'model backend (default: $ACP_KIT_MODEL, else openai when OPENAI_API_KEY is set, else anthropic when ANTHROPIC_API_KEY is set, else demo — offline, rule-based)').choices(['demo', 'openai', 'anthropic']))
    .option('--model-name <name>', 'model name (default gpt-4o-mini / claude-sonnet-4-5)')
    .option('--base-url <url>', 'API base URL (e.g. a local OpenAI-compatible server)')
    .option('--max-turn-requests <n>', 'model requests per turn before stopping with max_turn_requests (default 25)', positive('--max-turn-requests'))
    .option('--max-output-tokens <n>', 'output token cap per model request (stop reason max_tokens when hit)', positive('--max-output-tokens'))
    .option('--context-window <n>', 'context window size reported in usage updates', positive('--context-window'))
    .addOption(new Option('--mode <mode>', 'initial permission mode').choices(['ask', 'auto', 'read-only']))
    .addHelpText(
      'after',
      '\nThe agent speaks ACP (v1 and v2) on stdin/stdout, logs to stderr and ends when stdin closes.\n' +
        'Cost: without --model, an OPENAI_API_KEY or ANTHROPIC_API_KEY in the environment switches the agent from the\n' +
        'free demo model to that paid provider (every prompt is billed to the key); pass --model demo to stay offline.\n' +
        'Environment: OPENAI_API_KEY / ANTHROPIC_API_KEY, OPENAI_BASE_URL / ANTHROPIC_BASE_URL, ACP_KIT_MODEL,\n' +
        'ACP_KIT_MODEL_NAME, ACP_KIT_DATA_DIR (where sessions are stored).\n',
    )
    .action(async (flags: Record<string, unknown>) => {
      result.code = await handlers.agent(flags);
    });

  const count = (name: string) => (v: string) => {
    const n = Number(v);
    if (!Number.isSafeInteger(n) || n <= 0) throw usageError(`${name} must be a positive whole number (got ${JSON.stringify(v)})`);
    return n;
  };
  program
    .command('serve')
    .description('serve an agent over the network: WebSocket and Streamable HTTP on one /acp endpoint')
    .option('--host <address>', 'address to bind (a non-loopback one needs a token)', '127.0.0.1')
    .option('--port <n>', 'port (0: any free one)', portNumber, 8765)
    .option('--token <token>', 'bearer token clients must send (visible in ps: prefer --token-file or $ACP_KIT_SERVE_TOKEN)')
    .option('--token-file <file>', 'read the bearer tokens from this file: one token a line, one tenant each (blank lines and # comments skipped)')
    .option('--allowed-root <dir>', 'session roots (cwd) must lie inside this folder (repeatable); with several tokens the default is each tenant\'s workspace under the data dir', (v: string, prev: string[] = []) => [...prev, v])
    .option('--agent <command line>', 'stdio agent to run per connection (default: the built-in agent, in-process)')
    .option('--allow-origin <origin>', 'browser Origin allowed to connect (repeatable)', (v: string, prev: string[] = []) => [...prev, v])
    .option('--max-message-bytes <n>', 'largest client message (default 16 MiB)', count('--max-message-bytes'))
    .option('--max-buffered-bytes <n>', 'unread bytes held per connection before it is dropped (default 64 MiB)', count('--max-buffered-bytes'))
    .option('--max-unread-bytes <n>', 'unread bytes held across all connections; beyond it the slowest readers are cut first (default 256 MiB)', count('--max-unread-bytes'))
    .option('--max-connections <n>', 'concurrent connections (default 256)', count('--max-connections'))
    .option('--max-pending-sockets <n>', 'sockets not authenticated yet, in total (default 1024, at most a quarter of ulimit -n); more get 503 + Retry-After', count('--max-pending-sockets'))
    .option('--max-pending-per-ip <n>', 'the same per client address (default a quarter of --max-pending-sockets, at most 256); more get 429 + Retry-After', count('--max-pending-per-ip'))
    .option('--pending-timeout-ms <n>', 'a socket without an authenticated request this long is closed (default 10000)', count('--pending-timeout-ms'))
    .option('--http2-port <port>', 'also serve Streamable HTTP over cleartext HTTP/2 (h2c, prior knowledge) on this port (0 = any free one)', (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0 || n > 65535) throw usageError(`--http2-port must be 0..65535 (got ${JSON.stringify(v)})`);
      return n;
    })
    .option('--max-sessions <n>', 'open sessions per token (default 64)', count('--max-sessions'))
    .option('--shutdown-grace <seconds>', 'on SIGTERM, how long running turns may take to end cancelled (default 5)', count('--shutdown-grace'))
    .option('--instance-id <id>', "cluster mode (a postgres:// --store): this instance's name in session leases (default <host>-<pid>-<random>; unique among live instances)")
    .option('--lease-ms <n>', "cluster mode: how long an instance owns a session without renewing (default 10000; a dead instance's sessions move on after it)", count('--lease-ms'))
    .addOption(new Option('--model <backend>', 'model of the built-in agent').choices(['demo', 'openai', 'anthropic']))
    .option('--model-name <name>', 'model name of the built-in agent')
    .option('--base-url <url>', 'API base URL of the built-in agent')
    .option('--verbose', 'log connections and the agent\'s stderr')
    .option('--store <jsonl|postgres://...>', "where the built-in agent keeps sessions: jsonl (default: files under the data dir) or a PostgreSQL URL (one namespace per token; schema created if missing)")
    .addHelpText('after', '\nExample: acp-kit serve --port 8765 --token-file ~/.acp-token\n         ACP_KIT_AGENT_TOKEN=$(cat ~/.acp-token) acp-kit chat --agent-url ws://127.0.0.1:8765/acp\n')
    .action(async (flags: import('./commands/serve.js').ServeFlags) => {
      result.code = await (await import('./commands/serve.js')).serveCommand(flags);
    });

  const db = program.command('db').description('the PostgreSQL session store (acp-kit serve --store postgres://...): schema and retention');
  db.command('migrate')
    .description('create or update the schema (idempotent); prints the versions applied')
    .option('--url <postgres://...>', 'the database (default: $ACP_KIT_DATABASE_URL)')
    .action(async (flags: import('./commands/db.js').DbFlags) => {
      result.code = await (await import('./commands/db.js')).dbMigrateCommand(flags);
    });
  db.command('prune')
    .description('delete the sessions (with their history) not updated for a while; prints how many')
    .requiredOption('--older-than <duration>', 'e.g. 30d, 12h, 90m')
    .option('--url <postgres://...>', 'the database (default: $ACP_KIT_DATABASE_URL)')
    .option('--namespace <name>', 'only this namespace (a token owner of acp-kit serve)')
    .action(async (flags: import('./commands/db.js').DbFlags) => {
      result.code = await (await import('./commands/db.js')).dbPruneCommand(flags);
    });

  program
    .command('proxy')
    .description('sit between an editor and an agent on stdio: forward every line unchanged, optionally record and validate')
    .argument('<agent...>', 'the agent command, after --')
    .option('--record [file]', 'append every frame to a capture file (default file: <data dir>/captures/<time>.ndjson)')
    .option('--validate', 'check every frame (schema + protocol rules) and log violations; traffic is never altered')
    .option('--log <file>', "write the proxy's own log lines to this file instead of stderr")
    .option('--bridge <version>', 'translate between ACP versions: 1 or 2 = the version the editor speaks (the agent is offered the other); auto = translate only if the agent answers the other version')
    .option('--inspect', 'serve the web inspector for this session on 127.0.0.1 (records to the default capture file unless --record names one); the URL goes to the log')
    .addHelpText('after', '\nExample (editor config): acp-kit proxy --record --validate -- npx @zed-industries/claude-code-acp\nThe proxy exits with the agent\'s exit code.\n')
    .action(async (agent: string[], flags: { record?: string | boolean; log?: string; validate?: boolean; bridge?: string; inspect?: boolean }) => {
      result.code = await (await import('./commands/proxy.js')).proxyCommand(agent, flags);
    });
  program
    .command('inspect')
    .description('a web page on 127.0.0.1 for captures and live proxies: frames, violations, latency and the session they build')
    .argument('[captures...]', 'capture files (acp-kit NDJSON or acp-devtools exports)')
    .option('--port <port>', 'port on 127.0.0.1 (default: any free port)')
    .option('--open', 'open the page in the default browser')
    .option('--diff', 'open the page on the diff of the two captures given')
    .addHelpText('after', '\nThe URL holds a random token: every request needs it. Live proxies (acp-kit proxy --inspect) are listed in the page while they run.\nExample: acp-kit inspect ~/.local/share/acp-kit/captures/*.ndjson --open\n')
    .action(async (files: string[], flags: { port?: string; open?: boolean; diff?: boolean }) => {
      result.code = await (await import('./commands/inspect.js')).inspectCommand(files, flags);
    });
  const captures = program.command('captures').description('list, show and export recorded captures (acp-kit proxy --record)');
  captures.command('list').description('captures in the default folder: date, frames, size, agent').option('--json', 'print NDJSON')
    .action(async (flags: { json?: boolean }) => {
      result.code = await (await import('./commands/captures.js')).capturesListCommand(flags);
    });
  captures.command('show').description('one readable line per frame').argument('<file>', 'capture file (acp-kit NDJSON or acp-devtools export)')
    .action(async (file: string) => {
      result.code = await (await import('./commands/captures.js')).capturesShowCommand(file);
    });
  captures.command('export').description('print a capture with secrets redacted (auth _meta, env values, authorization headers)').argument('<file>', 'capture file')
    .addOption(new Option('--format <format>', 'output format').choices(['ndjson', 'json']).default('ndjson'))
    .action(async (file: string, flags: { format?: 'ndjson' | 'json' }) => {
      result.code = await (await import('./commands/captures.js')).capturesExportCommand(file, flags);
    });
  const check = program.command('check').description('check that an agent speaks ACP: drive it over stdio and judge it against docs/conformance.md');
  check
    .command('agent')
    .description('run the conformance cases against an agent (a fresh process per case); exit 0 conformant, 1 not, 2 usage')
    .argument('<agent...>', 'the agent command, after --')
    .addOption(new Option('--protocol <version>', 'protocol version(s) to check').choices(['1', '2', 'both']).default('both'))
    .option('--only <ids...>', 'only these requirement IDs (comma or space separated; a trailing * matches a prefix)')
    .option('--skip <ids...>', 'skip these requirement IDs')
    .option('--timeout <ms>', 'how long one answer may take (a whole turn: 4x; default 10000)', positive('--timeout'))
    .option('--concurrency <n>', 'cases run at once (default 4)', positive('--concurrency'))
    .option('--cwd <dir>', 'working directory for the agent and its sessions (default: a fresh temporary directory)')
    .option('--env <NAME=VALUE...>', 'extra environment for the agent')
    .addOption(checkPromptOption(0)).addOption(checkPromptOption(1)).addOption(checkPromptOption(2))
    .option('--auth <methodId>', 'auth method to log in with after initialize')
    .option('--json', 'print the report as JSON')
    .option('--junit <file>', 'also write a JUnit XML report')
    .addHelpText('after', '\nExample: acp-kit check agent --protocol 2 -- npx acp-kit agent\nSee docs/checker.md for the cases and a GitHub Actions snippet.\n')
    .action(async (agent: string[], flags: import('./commands/check.js').CheckAgentFlags) => {
      result.code = await (await import('./commands/check.js')).checkAgentCommand(agent, flags);
    });
  check
    .command('client')
    .description('run the conformance cases against a client: it launches a scripted agent ({agent}) once per case; exit 0 conformant, 1 not, 2 usage')
    .argument('<client...>', 'the client command, after --; {agent} in it becomes the agent command line (also in $ACP_CHECK_AGENT)')
    .addOption(new Option('--protocol <version>', 'protocol version(s) the scripted agent speaks').choices(['1', '2', 'both']).default('both'))
    .option('--only <ids...>', 'only these requirement IDs (comma or space separated; a trailing * matches a prefix)')
    .option('--skip <ids...>', 'skip these requirement IDs')
    .option('--timeout <ms>', 'how long one step of the client may take (default 10000)', positive('--timeout'))
    .option('--concurrency <n>', 'cases run at once (default 4)', positive('--concurrency'))
    .option('--cwd <dir>', 'working directory for the client (default: a fresh temporary directory per case)')
    .option('--env <NAME=VALUE...>', 'extra environment for the client')
    .option('--json', 'print the report as JSON')
    .option('--junit <file>', 'also write a JUnit XML report')
    .addHelpText('after', '\nExample: acp-kit check client -- acp-kit run --agent "{agent}" hello\nThe checker presses Ctrl-C (SIGINT to the client\'s process group) to make it cancel. See docs/checker.md.\n')
    .action(async (client: string[], flags: import('./commands/check.js').CheckClientFlags) => {
      result.code = await (await import('./commands/check.js')).checkClientCommand(client, flags);
    });

  program
    .command('validate')
    .description('check a capture against the schema of its protocol version and the protocol rules (exit 1 on violations)')
    .argument('<capture>', 'capture file (acp-kit NDJSON or acp-devtools export)')
    .option('--json', 'print NDJSON: one violation per line, then a result line')
    .addOption(new Option('--side <leg>', 'bridge captures: check only this leg, editor or agent (default: each leg against its own version)').choices(['editor', 'agent']))
    .action(async (file: string, flags: { json?: boolean; side?: string }) => {
      result.code = await (await import('./commands/validate.js')).validateCommand(file, flags);
    });

  program
    .command('replay')
    .description('replay a capture: play the recorded agent to a live client, or drive a live agent with the recorded client side')
    .argument('<capture>', 'capture file (acp-kit NDJSON or acp-devtools export)')
    .argument('[agent...]', 'with --as client: the agent command, after --')
    .addOption(new Option('--as <side>', 'the recorded side to play').choices(['agent', 'client']).makeOptionMandatory())
    .option('--fast', '--as agent: send recorded frames without the recorded gaps')
    .option('--speed <factor>', '--as agent: play the recorded gaps this many times faster (default 1)')
    .option('--record <file>', '--as client: record the new run to this capture')
    .addOption(new Option('--permission <answer>', "--as client: answer the agent's permission requests").choices(['recorded', 'allow', 'reject']))
    .option('--cwd <dir>', "--as client: working directory of the live run (the recorded session's cwd maps onto it)")
    .option('--timeout <seconds>', '--as client: longest wait for one recorded answer (default 120)')
    .addHelpText('after', '\nExamples:\n  acp-kit run --agent "acp-kit replay cap.ndjson --as agent --fast" "hello"\n  acp-kit replay cap.ndjson --as client --record new.ndjson -- acp-kit agent\nExit codes: 0 the whole recording was replayed, 1 the live side diverged (reported on stderr), 2 usage.\n')
    .action(async (capture: string, agent: string[], flags: import('./commands/replay.js').ReplayFlags) => {
      result.code = await (await import('./commands/replay.js')).replayCommand(capture, agent, flags);
    });

  program
    .command('stats')
    .description('per method counts, latency p50/p99/max, bytes, errors, and per turn time to first chunk, duration and stop reason')
    .argument('<capture>', 'capture file (acp-kit NDJSON, acp-devtools export or Rust conductor .jsons trace)')
    .option('--json', 'print one JSON object (the CaptureStats of acp-kit/proxy)')
    .addOption(new Option('--side <leg>', 'bridge captures: the leg to read, editor (default) or agent (docs/captures.md)').choices(['editor', 'agent']))
    .action(async (file: string, flags: { json?: boolean; side?: string }) => {
      result.code = await (await import('./commands/stats.js')).statsCommand(file, flags);
    });
  program
    .command('diff')
    .description('compare two captures: frames aligned ignoring ids and timing, field differences, capabilities, versions, latency deltas (exit 1 when they differ)')
    .argument('<a>', 'first capture')
    .argument('<b>', 'second capture')
    .option('--json', 'print one JSON object (the CaptureDiff of acp-kit/proxy, see docs/captures.md)')
    .addOption(new Option('--side <leg>', 'bridge captures: the leg to read, editor (default) or agent (docs/captures.md)').choices(['editor', 'agent']))
    .action(async (a: string, b: string, flags: { json?: boolean; side?: string }) => {
      result.code = await (await import('./commands/diff.js')).diffCommand(a, b, flags);
    });

  // subcommands inherit the error behaviour
  for (const c of [...program.commands, ...sessions.commands, ...captures.commands, ...check.commands]) c.exitOverride().configureOutput({ outputError: (str, write) => write(str) });
  return program;
}

async function promptText(words: string[]): Promise<string> {
  if (words.length === 1 && words[0] === '-') {
    if (process.stdin.isTTY) throw usageError('"-" reads the prompt from stdin, but stdin is a terminal');
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(String(c)));
    const text = Buffer.concat(chunks).toString('utf8').trim();
    if (!text) throw usageError('the prompt read from stdin is empty');
    return text;
  }
  const text = words.join(' ').trim();
  if (!text) throw usageError('the prompt is empty');
  return text;
}

async function flushStdio(): Promise<void> {
  await Promise.all(
    [process.stdout, process.stderr].map(
      (s) => new Promise<void>((resolve) => (s.writableLength === 0 ? resolve() : s.write('', () => resolve()))),
    ),
  );
}

/**
 * Runs the CLI and exits the process with the command's exit code. Exiting explicitly (after
 * flushing stdio) makes sure no leftover handle keeps us alive; the rpc layer's exit hook kills
 * any agent process group that is somehow still running.
 */
export async function main(argv: string[] = process.argv): Promise<never> {
  const style = createStyle(colorEnabled(process.stderr));
  const result = { code: 0 };
  const program = buildProgram(result);
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') result.code = 0;
      else {
        // commander printed "error: ..." already
        const hint = `run \`${commandPath(argv)} --help\` to see the options.`;
        process.stderr.write(`${style.yellow('hint:')} ${hint}\n`);
        result.code = ExitCode.Usage;
        if (wantsJson(argv)) writeJsonFailure(argv, new CliError('usage', ExitCode.Usage, e.message.replace(/^error: /, '').trim(), { hint: hint[0]!.toUpperCase() + hint.slice(1) }));
      }
    } else if (e instanceof CliError) {
      process.stderr.write(formatCliError(e, style));
      result.code = e.exitCode;
      if (wantsJson(argv)) writeJsonFailure(argv, e);
    } else {
      process.stderr.write(`${style.red('acp-kit: internal error:')} ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      result.code = ExitCode.Internal;
      if (wantsJson(argv)) writeJsonFailure(argv, new CliError('internal', ExitCode.Internal, `internal error: ${e instanceof Error ? e.message : String(e)}`));
    }
  }
  await flushStdio();
  process.exit(result.code);
}

/** `--json` was asked for (before any `--`): scripts then read a `result` line even for usage errors. */
function wantsJson(argv: string[]): boolean {
  const args = argv.slice(2);
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).includes('--json');
}

/** The `result` line of a command that failed before it could report it itself (`run`'s carries its turn fields). */
function writeJsonFailure(argv: string[], e: CliError): void {
  process.stdout.write(resultLine(e.exitCode, { ...(commandPath(argv) === 'acp-kit run' ? { stopReason: null, rejectedPermissions: 0 } : {}), error: e.toJSON() }));
}

function commandPath(argv: string[]): string {
  const sub = argv.slice(2).find((a) => !a.startsWith('-'));
  return sub && ['run', 'chat', 'sessions', 'agent', 'login', 'proxy', 'captures', 'validate', 'check', 'replay', 'stats', 'diff', 'inspect', 'db'].includes(sub) ? `acp-kit ${sub}` : 'acp-kit';
}
