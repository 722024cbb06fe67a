import { appendFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
// single modules, not proxy/index.js: the barrel would load the `diff` package (capture diffs) too
import { CaptureWriter, defaultCapturePath, startBridge, startProxy, type Violation } from '@acp-kit/tools/proxy';
import { messageOf } from '@acp-kit/agent/internal';
import { CliError, usageError } from '../errors.js';
import { agentOfWordsOrId } from '../registry-agent.js';
import { ExitCode } from '../exit-codes.js';
import { packageVersion } from '@acp-kit/protocol/internal';

/** Flags of `acp-kit proxy`. */
export interface ProxyFlags {
  /** `true` = record to the default capture folder. */
  record?: string | boolean;
  log?: string;
  validate?: boolean;
  /** `1`, `2` (the editor's version) or `auto`: translate between ACP versions (docs/bridge.md). */
  bridge?: string;
  /** Serve the web inspector for this session (records to the default capture file without --record). */
  inspect?: boolean;
  /** An ACP Registry agent id (`<id>[@version]`) instead of a command after `--`. */
  agent?: string;
  registry?: string;
}

const SIGNALS: Array<[NodeJS.Signals, number]> = [
  ['SIGTERM', 143],
  ['SIGINT', 130],
  ['SIGHUP', 129],
];

/** `acp-kit proxy [options] -- <agent command...>`: stdio to the editor, the agent behind it. */
export async function proxyCommand(agent: string[], flags: ProxyFlags): Promise<number> {
  const agentCommand = await agentOfWordsOrId(agent, flags.agent, { registry: flags.registry });
  if (!agentCommand)
    throw usageError(
      'the agent command is missing',
      'Put it after --, e.g. acp-kit proxy --record -- npx @zed-industries/claude-code-acp, or name a registry agent: --agent claude-acp',
    );
  const spawnable = {
    command: agentCommand.command,
    args: agentCommand.args,
    ...(agentCommand.env ? { env: { ...process.env, ...agentCommand.env } } : {}),
  };
  // what the capture header and the inspector name: the command as started (also for --agent <id>)
  const words = agent.length > 0 ? agent : [agentCommand.command, ...agentCommand.args];
  const bridge =
    flags.bridge === undefined
      ? undefined
      : flags.bridge === '1'
        ? 1
        : flags.bridge === '2'
          ? 2
          : flags.bridge === 'auto'
            ? 'auto'
            : null;
  if (bridge === null)
    throw usageError(
      `--bridge must be 1, 2 or auto (got ${JSON.stringify(flags.bridge)})`,
      'Pass the version your editor speaks, e.g. --bridge 2 for a v2 editor in front of a v1 agent, or --bridge auto.',
    );
  const logFile = flags.log;
  const log = logFile
    ? (line: string) => {
        try {
          appendFileSync(logFile, `${new Date().toISOString()} ${line}\n`);
        } catch {
          /* a log that cannot be written must not break the editor's connection */
        }
      }
    : (line: string) => void process.stderr.write(`acp-kit proxy: ${line}\n`);
  const record = flags.inspect && (flags.record === undefined || flags.record === false) ? true : flags.record;
  const recordPath =
    record === undefined || record === false ? undefined : record === true ? defaultCapturePath() : resolve(record);
  // a path the user typed: its folder must exist (a typo must not create folders); the default folder is ours to create
  if (typeof record === 'string' && recordPath !== undefined) requireFolder(recordPath);
  let recorder: CaptureWriter | undefined;
  try {
    recorder = recordPath ? new CaptureWriter(recordPath, { acpKit: packageVersion(), agent: words }) : undefined;
  } catch (e) {
    // refuse to start rather than run an unrecorded session the user asked to record
    throw new CliError('usage', ExitCode.Usage, `cannot write the capture ${recordPath}: ${messageOf(e)}`, {
      hint: 'Pass a writable path to --record, or set ACP_KIT_DATA_DIR to a writable folder.',
    });
  }
  if (recorder) log(`recording to ${recorder.path}`);
  const inspector = recorder && flags.inspect ? await startInspectorFor(recorder.path, words, log) : undefined;
  const onViolation = flags.validate
    ? (v: Violation) => log(`violation ${v.requirement} [${v.rule}] seq ${v.seqs.join(',')}: ${v.message}`)
    : undefined;
  if (bridge !== undefined)
    log(`bridge mode ${bridge}${recorder ? ': the capture holds both legs (docs/captures.md)' : ''}`);
  const proxy =
    bridge === undefined
      ? startProxy({ ...spawnable, recorder, onViolation, log })
      : startBridge({ mode: bridge, ...spawnable, recorder, onViolation, log });
  let signalled: number | undefined;
  const handlers = SIGNALS.map(([sig, code]) => {
    const h = (): void => {
      log(`${sig}: stopping the agent`);
      signalled ??= code;
      void proxy.stop();
    };
    process.on(sig, h);
    return [sig, h] as const;
  });
  try {
    const r = await proxy.done;
    return signalled ?? r.exitCode;
  } finally {
    for (const [sig, h] of handlers) process.off(sig, h);
    recorder?.close();
    await inspector?.close();
  }
}

/** Refuses a `--record` path whose folder does not exist, naming the folder (exit 2). */
function requireFolder(path: string): void {
  const folder = dirname(path);
  let isDir = false;
  try {
    isDir = statSync(folder).isDirectory();
  } catch {
    throw new CliError(
      'usage',
      ExitCode.Usage,
      `cannot write the capture ${path}: the folder ${folder} does not exist`,
      { hint: `Create it first (mkdir -p ${folder}) or pass --record a path in an existing folder.` },
    );
  }
  if (!isDir)
    throw new CliError('usage', ExitCode.Usage, `cannot write the capture ${path}: ${folder} is not a folder`, {
      hint: 'Pass --record a path in an existing folder.',
    });
}

/** `--inspect`: the inspector follows the capture being recorded; registered so other inspector pages list it. */
async function startInspectorFor(
  capture: string,
  agent: string[],
  log: (line: string) => void,
): Promise<{ close(): Promise<void> }> {
  const { startInspector, registerLive } = await import('@acp-kit/tools/inspector');
  const handle = await startInspector({ liveCapture: { path: capture, agent } });
  const unregister = registerLive({ capture, agent, url: handle.url, start: new Date().toISOString() });
  log(`inspector: ${handle.url}`);
  return {
    close: async () => {
      unregister();
      await handle.close();
    },
  };
}
