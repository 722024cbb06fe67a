import { Command, CommanderError, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { CliError, formatCliError, usageError } from './errors.js';
import { ExitCode } from './exit-codes.js';
import { resultLine } from './render/ndjson-events.js';
import type { CommandHandlers } from './flags.js';
import { EXIT_HELP, type ExitResult } from './options.js';
import { colorEnabled, createStyle } from './style.js';
import { packageVersion } from '@acp-kit/protocol/internal';
import { register as registerAgent } from './commands/agent.options.js';
import { register as registerAuth } from './commands/auth.options.js';
import { register as registerAgents } from './commands/agents.options.js';
import { register as registerCaptures } from './commands/captures.options.js';
import { register as registerChat } from './commands/chat.options.js';
import { register as registerCheck } from './commands/check.options.js';
import { register as registerDb } from './commands/db.options.js';
import { register as registerDiff } from './commands/diff.options.js';
import { register as registerInspect } from './commands/inspect.options.js';
import { register as registerLogin } from './commands/login.options.js';
import { register as registerProviders } from './commands/providers.options.js';
import { register as registerProxy } from './commands/proxy.options.js';
import { register as registerConduct } from './commands/conduct.options.js';
import { register as registerRecord } from './commands/record.options.js';
import { register as registerProfiles } from './commands/profiles.options.js';
import { register as registerReplay } from './commands/replay.options.js';
import { register as registerRun } from './commands/run.options.js';
import { register as registerServe } from './commands/serve.options.js';
import { register as registerSessions } from './commands/sessions.options.js';
import { register as registerSessionsAdmin } from './commands/sessions-admin.options.js';
import { register as registerStats } from './commands/stats.options.js';
import { register as registerValidate } from './commands/validate.options.js';

// flag types live in a leaf module (the version in protocol/package-version.ts) so that commands never import this file
export type { AgentFlags, ChatFlags, CommandHandlers, ModelFlags, RunFlags, SessionsFlags } from './flags.js';

const defaultHandlers: CommandHandlers = {
  run: async (prompt, flags) => (await import('./commands/run.js')).runCommand(prompt, flags),
  chat: async (flags) => (await import('./commands/chat.js')).chatCommand(flags),
  sessionsList: async (flags) => (await import('./commands/sessions.js')).sessionsListCommand(flags),
  sessionsShow: async (id, flags) => (await import('./commands/sessions.js')).sessionsShowCommand(id, flags),
  agent: async (flags) => (await import('./commands/agent-launch.js')).agentCommand(flags),
};

/** commander's own error text goes out as is; {@link main} adds the hint line. */
const outputError = (str: string, write: (str: string) => void): void => write(str);

/**
 * Builds the `acp-kit` command tree: the root program here, each command in its
 * `commands/<name>.options.ts` (its flags, help and a lazy import of its action). Commands take
 * the root's error behaviour (exitOverride, outputError) when they are created. Actions store
 * their exit code in `result.code`; parse errors surface as {@link CommanderError} (see {@link main}).
 */
export function buildProgram(result: ExitResult, handlers: CommandHandlers = defaultHandlers): CommandUnknownOpts {
  const program = rootProgram(result, handlers);
  registerRun(program, result, handlers.run);
  registerChat(program, result, handlers.chat);
  registerLogin(program, result);
  registerSessions(program, result, handlers);
  registerSessionsAdmin(program, result);
  registerAuth(program, result);
  registerProviders(program, result);
  registerAgent(program, result, handlers.agent);
  registerAgents(program, result);
  registerServe(program, result);
  registerDb(program, result);
  registerProxy(program, result);
  registerConduct(program, result);
  registerRecord(program, result);
  registerInspect(program, result);
  registerCaptures(program, result);
  registerCheck(program, result);
  registerValidate(program, result);
  registerReplay(program, result);
  registerStats(program, result);
  registerDiff(program, result);
  registerProfiles(program, result);
  return program;
}

/** `acp-kit` itself: version, help, and `chat` (in a terminal) or the help when no command is given. */
function rootProgram(result: ExitResult, handlers: CommandHandlers): CommandUnknownOpts {
  const program = new Command();
  program
    .name('acp-kit')
    .description('Agent Client Protocol toolkit: run ACP agents from the terminal (protocol v1 and v2).')
    .version(packageVersion(), '-V, --version', 'print the acp-kit version')
    .helpOption('-h, --help', 'show help')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({ outputError })
    .addHelpText(
      'after',
      `\nWithout a command, in a terminal, acp-kit starts \`chat\`.\nEnvironment: NO_COLOR disables colour, ACP_KIT_AGENT sets the default --agent.\n${EXIT_HELP}`,
    )
    .usage('[options] [command]')
    .argument('[command]')
    .action(async (word) => {
      if (word !== undefined) {
        throw usageError(
          `unknown command '${word}'`,
          'Commands: run, chat, sessions, profiles, agent, login, proxy, captures, validate, check, replay, stats, diff, inspect. To send a prompt: acp-kit run "<prompt>".',
        );
      }
      if (process.stdin.isTTY && process.stdout.isTTY) {
        result.code = await handlers.chat({ protocol: 'auto' });
        return;
      }
      program.outputHelp({ error: true });
      result.code = ExitCode.Usage;
    });
  return program;
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
  const code = await runMain(argv);
  await flushStdio();
  process.exit(code);
}

/**
 * Parses `argv` (`[node, script, ...args]`), runs the command and reports its failure on stderr
 * (and as a `result` line with `--json`), as {@link main} does; returns the exit code instead of
 * exiting. Separate so that tests can run a command that touches no process (a usage error, a
 * capture refused) in their own process, where starting one costs more than the command.
 */
export async function runMain(argv: string[]): Promise<number> {
  const style = createStyle(colorEnabled(process.stderr));
  const result = { code: 0 };
  const program = buildProgram(result);
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help')
        result.code = 0;
      else {
        // commander printed "error: ..." already
        const hint = `run \`${commandPath(argv)} --help\` to see the options.`;
        process.stderr.write(`${style.yellow('hint:')} ${hint}\n`);
        result.code = ExitCode.Usage;
        if (wantsJson(argv))
          writeJsonFailure(
            argv,
            new CliError('usage', ExitCode.Usage, e.message.replace(/^error: /, '').trim(), {
              hint: `Run \`${commandPath(argv)} --help\` to see the options.`,
            }),
          );
      }
    } else if (e instanceof CliError) {
      process.stderr.write(formatCliError(e, style));
      result.code = e.exitCode;
      if (wantsJson(argv)) writeJsonFailure(argv, e);
    } else {
      process.stderr.write(
        `${style.red('acp-kit: internal error:')} ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`,
      );
      result.code = ExitCode.Internal;
      if (wantsJson(argv))
        writeJsonFailure(
          argv,
          new CliError('internal', ExitCode.Internal, `internal error: ${e instanceof Error ? e.message : String(e)}`),
        );
    }
  }
  return result.code;
}

/** `--json` was asked for (before any `--`): scripts then read a `result` line even for usage errors. */
function wantsJson(argv: string[]): boolean {
  const args = argv.slice(2);
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).includes('--json');
}

/** The `result` line of a command that failed before it could report it itself (`run`'s carries its turn fields). */
function writeJsonFailure(argv: string[], e: CliError): void {
  process.stdout.write(
    resultLine(e.exitCode, {
      ...(commandPath(argv) === 'acp-kit run' ? { stopReason: null, rejectedPermissions: 0 } : {}),
      error: e.toJSON(),
    }),
  );
}

function commandPath(argv: string[]): string {
  const sub = argv.slice(2).find((a) => !a.startsWith('-'));
  return sub &&
    [
      'run',
      'chat',
      'sessions',
      'agent',
      'login',
      'proxy',
      'conduct',
      'record',
      'captures',
      'validate',
      'check',
      'replay',
      'stats',
      'diff',
      'inspect',
      'db',
      'profiles',
    ].includes(sub)
    ? `acp-kit ${sub}`
    : 'acp-kit';
}
