/** `acp-kit serve`: its flags and help; the action (`serve.ts`, the server) loads only when the command runs. */
import { Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { collect, integerFlag, text, type ExitResult } from '../options.js';

const count = (flag: string): ((value: string) => number) => integerFlag(flag, { min: 1 });
const port = (flag: string): ((value: string) => number) => integerFlag(flag, { min: 0, max: 65535 });

// the longer help lines, so that each flag reads as one line below
const HELP = {
  token: 'bearer token clients must send (visible in ps: prefer --token-file or $ACP_KIT_SERVE_TOKEN)',
  tokenFile:
    'read the bearer tokens from this file: one token a line, one tenant each (blank lines and # comments skipped)',
  allowedRoot:
    "session roots (cwd) must lie inside this folder (repeatable); with several tokens the default is each tenant's workspace under the data dir",
  agent: 'stdio agent to run per connection, or an ACP Registry id[@version] (default: the built-in agent, in-process)',
  registry: 'registry.json for an --agent <id> (default: $ACP_KIT_REGISTRY, the official one, the snapshot)',
};

export function register(program: CommandUnknownOpts, result: ExitResult): void {
  program
    .command('serve')
    .description('serve an agent over the network: WebSocket and Streamable HTTP on one /acp endpoint')
    .option('--host <address>', 'address to bind (a non-loopback one needs a token)', '127.0.0.1')
    .option('--port <n>', 'port (0: any free one)', port('--port'), 8765)
    .option('--token <token>', HELP.token)
    .option('--token-file <file>', HELP.tokenFile)
    .option('--allowed-root <dir>', HELP.allowedRoot, collect)
    .option('--agent <command line|id>', HELP.agent)
    .option('--registry <url|file>', HELP.registry)
    .option('--allow-origin <origin>', 'browser Origin allowed to connect (repeatable)', collect)
    .option('--max-message-bytes <n>', 'largest client message (default 16 MiB)', count('--max-message-bytes'))
    .option(
      '--max-buffered-bytes <n>',
      'unread bytes held per connection before it is dropped (default 64 MiB)',
      count('--max-buffered-bytes'),
    )
    .option(
      '--max-unread-bytes <n>',
      'unread bytes held across all connections; beyond it the slowest readers are cut first (default 256 MiB)',
      count('--max-unread-bytes'),
    )
    .option('--max-connections <n>', 'concurrent connections (default 256)', count('--max-connections'))
    .option(
      '--max-pending-sockets <n>',
      'sockets not authenticated yet, in total (default 1024, at most a quarter of ulimit -n); more get 503 + Retry-After',
      count('--max-pending-sockets'),
    )
    .option(
      '--max-pending-per-ip <n>',
      'the same per client address (default a quarter of --max-pending-sockets, at most 256); more get 429 + Retry-After',
      count('--max-pending-per-ip'),
    )
    .option(
      '--pending-timeout-ms <n>',
      'a socket without an authenticated request this long is closed (default 10000)',
      count('--pending-timeout-ms'),
    )
    .option(
      '--http2-port <port>',
      'also serve Streamable HTTP over cleartext HTTP/2 (h2c, prior knowledge) on this port (0 = any free one)',
      port('--http2-port'),
    )
    .option('--max-sessions <n>', 'open sessions per token (default 64)', count('--max-sessions'))
    .option(
      '--shutdown-grace <seconds>',
      'on SIGTERM, how long running turns may take to end cancelled (default 5)',
      count('--shutdown-grace'),
    )
    .option(
      '--instance-id <id>',
      "cluster mode (a postgres:// --store): this instance's name in session leases (default <host>-<pid>-<random>; unique among live instances)",
    )
    .option(
      '--lease-ms <n>',
      "cluster mode: how long an instance owns a session without renewing (default 10000; a dead instance's sessions move on after it)",
      count('--lease-ms'),
    )
    .addOption(new Option('--model <backend>', 'model of the built-in agent').choices(['demo', 'openai', 'anthropic']))
    .option('--model-name <name>', 'model name of the built-in agent')
    .option('--base-url <url>', 'API base URL of the built-in agent')
    .option('--verbose', "log connections, requests and the agent's stderr")
    .option(
      '--metrics-port <port>',
      'serve Prometheus metrics (OpenTelemetry) on GET /metrics at this port (0 = any free one)',
      port('--metrics-port'),
    )
    .option('--metrics-host <address>', 'address of the metrics endpoint (no token: keep it private)', '127.0.0.1')
    .addOption(
      new Option('--log-format <format>', 'stderr log lines: text, or json (one object a line)')
        .choices(['text', 'json'] as const)
        .default('text' as const),
    )
    .option(
      '--store <jsonl|postgres://...>',
      'where the built-in agent keeps sessions: jsonl (default: files under the data dir) or a PostgreSQL URL (one namespace per token; schema created if missing)',
      text,
    )
    .addHelpText(
      'after',
      '\nExample: acp-kit serve --port 8765 --token-file ~/.acp-token\n         ACP_KIT_AGENT_TOKEN=$(cat ~/.acp-token) acp-kit chat --agent-url ws://127.0.0.1:8765/acp\n',
    )
    .action(async (flags) => {
      result.code = await (await import('./serve.js')).serveCommand(flags);
    });
}
