import { resolve } from 'node:path';
// single modules, not proxy/index.js: the barrel would load the `diff` package (capture diffs) too
import {
  CaptureWriter,
  loadReplayScript,
  replayAsAgent,
  replayAsClient,
  type ReplayPermission,
  type ReplayScript,
} from '@acp-kit/tools/proxy';
import { messageOf } from '@acp-kit/agent/internal';
import { CliError, usageError } from '../errors.js';
import { commandOf } from '../split-command-line.js';
import { ExitCode } from '../exit-codes.js';
import { packageVersion } from '@acp-kit/protocol/internal';
import { captureReadFailure } from './captures.js';

/** Flags of `acp-kit replay`. */
export interface ReplayFlags {
  as?: string;
  fast?: boolean;
  speed?: string;
  record?: string;
  permission?: string;
  cwd?: string;
  timeout?: string;
}

function isPermissionAnswer(v: string): v is ReplayPermission {
  return v === 'recorded' || v === 'allow' || v === 'reject';
}

const log = (line: string): void => void process.stderr.write(`acp-kit replay: ${line.replace(/^replay: /, '')}\n`);

const missingAgent = (): CliError =>
  usageError(
    '--as client needs the agent command',
    'Put it after --, e.g. acp-kit replay cap.ndjson --as client -- acp-kit agent',
  );

/** `--speed`: a positive factor, 1 when absent. */
function speedOf(flag: string | undefined): number {
  if (flag === undefined) return 1;
  const speed = Number(flag);
  if (!Number.isFinite(speed) || speed <= 0)
    throw usageError(`--speed must be a positive number, e.g. 2 for twice as fast (got ${JSON.stringify(flag)})`);
  return speed;
}

/** `--timeout` in seconds, as milliseconds; undefined when absent. */
function timeoutMsOf(flag: string | undefined): number | undefined {
  if (flag === undefined) return undefined;
  const n = Number(flag);
  if (!Number.isFinite(n) || n <= 0)
    throw usageError(`--timeout must be a positive number of seconds (got ${JSON.stringify(flag)})`);
  return n * 1000;
}

/**
 * `acp-kit replay CAPTURE --as agent` (play the recorded agent on stdio to a live client) and
 * `acp-kit replay CAPTURE --as client [--record OUT] -- <agent command...>` (drive a live agent
 * with the recorded client side). Exit 0 = the whole recording was replayed, 1 = the live side
 * diverged (reported on stderr), 2 = usage (bad flags, unreadable capture), 10 = the live agent
 * negotiated another protocol version than the recording.
 */
export async function replayCommand(capture: string, agent: string[], flags: ReplayFlags): Promise<number> {
  const as = flags.as;
  if (as !== 'agent' && as !== 'client')
    throw usageError(
      `--as must be agent or client (got ${JSON.stringify(as ?? '')})`,
      'acp-kit replay CAPTURE --as agent (for a client to test)  or  acp-kit replay CAPTURE --as client -- <agent command...>',
    );
  let permission: ReplayPermission = 'recorded';
  if (as === 'agent') {
    if (agent.length > 0)
      throw usageError(
        `--as agent plays the recorded agent itself; it takes no agent command (got ${JSON.stringify(agent.join(' '))})`,
        'Use --as client -- <agent command...> to drive a live agent.',
      );
    for (const [flag, v] of [
      ['--record', flags.record],
      ['--permission', flags.permission],
      ['--cwd', flags.cwd],
      ['--timeout', flags.timeout],
    ] as const) {
      if (v !== undefined) throw usageError(`${flag} applies to --as client only`);
    }
  } else {
    if (agent.length === 0) throw missingAgent();
    if (flags.fast || flags.speed !== undefined)
      throw usageError(
        '--fast and --speed apply to --as agent only (the client side waits for the live agent instead)',
      );
    if (flags.permission !== undefined) {
      if (!isPermissionAnswer(flags.permission))
        throw usageError(`--permission must be recorded, allow or reject (got ${JSON.stringify(flags.permission)})`);
      permission = flags.permission;
    }
  }
  const speed = speedOf(flags.speed);
  const timeoutMs = timeoutMsOf(flags.timeout);

  let script: ReplayScript;
  try {
    script = await loadReplayScript(capture);
  } catch (e) {
    captureReadFailure(capture, e);
  }
  const [firstSkipped] = script.skipped;
  if (firstSkipped)
    log(
      `skipped ${script.skipped.length} unreadable line(s) of ${capture} (first: line ${firstSkipped.line}, ${firstSkipped.reason})`,
    );

  if (as === 'agent') {
    const r = await replayAsAgent({ script, fast: flags.fast, speed, log });
    return r.completed && r.divergences.length === 0 ? ExitCode.Ok : 1;
  }

  const recordPath = flags.record === undefined ? undefined : resolve(flags.record);
  let recorder: CaptureWriter | undefined;
  try {
    recorder = recordPath ? new CaptureWriter(recordPath, { acpKit: packageVersion(), agent }) : undefined;
  } catch (e) {
    throw new CliError('usage', ExitCode.Usage, `cannot write the capture ${recordPath}: ${messageOf(e)}`, {
      hint: 'Pass a writable path to --record.',
    });
  }
  // (checked with the other flags above; here for the type)
  const agentCommand = commandOf(agent);
  if (!agentCommand) throw missingAgent();
  try {
    const r = await replayAsClient({
      script,
      ...agentCommand,
      cwd: flags.cwd === undefined ? undefined : resolve(flags.cwd),
      permission,
      recorder,
      timeoutMs,
      log,
    });
    if (r.completed) {
      log(
        `done: ${r.sent} recorded client message(s) sent, the agent answered like the recording${recorder ? `; new capture ${recorder.path}` : ''}`,
      );
      return ExitCode.Ok;
    }
    if (r.versionMismatch) return ExitCode.VersionMismatch; // the message above says which versions
    log(
      `diverged${r.divergence ? ` at frame ${r.divergence.seq}: expected ${r.divergence.expected}, got ${r.divergence.got}` : ''}`,
    );
    return 1;
  } finally {
    recorder?.close();
  }
}
