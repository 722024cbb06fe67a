// A recording proxy in the test's process in front of a real `acp-kit agent`, for the tests that only read
// the capture it writes (the proxy's own process is covered by the proxy-* tests over real pipes).
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { packageVersion } from '../../packages/protocol/src/package-version.js';
import { connect, type ClientConnection, type ClientOptions } from '../../packages/client/src/index.js';
import { selectOption } from '../../packages/client/src/services/permission-policy.js';
import { CaptureWriter } from '../../packages/tools/src/captures/capture.js';
import { startProxy } from '../../packages/tools/src/proxy/proxy.js';
import { StreamTransport } from '../../packages/protocol/src/rpc/stream-transport.js';

const BIN = fileURLToPath(new URL('../../bin/acp-kit.js', import.meta.url));

/** Allows every permission request with the first allow option (the demo model asks before writing). */
export const allowAll = async (request: Parameters<typeof selectOption>[0]) => selectOption(request, 'allow');

/** A client connected through an in-process recording proxy; see {@link connectRecording}. */
export interface RecordingConnection {
  conn: ClientConnection;
  /** Closes the connection, waits until the agent exited at stdin EOF (fails unless with 0) and closes the capture. */
  finish(): Promise<void>;
}

/**
 * Connects a client to the built-in agent (`acp-kit agent`, a real process, its data dir `dataDir`)
 * through the proxy recording to `capture` as `acp-kit proxy --record` does it: `startProxy` with a
 * `CaptureWriter` (same header: the package version and the agent command), here in this process,
 * which saves a Node start-up per capture. The connection is pushed onto `conns` and the proxy's stop
 * onto `stops`, for the caller's afterEach to close them also on failure (stopping a finished proxy
 * is a no-op).
 */
export async function connectRecording(
  options: { capture: string; dataDir: string; protocol: ClientOptions['protocol'] },
  conns: ClientConnection[],
  stops: Array<() => Promise<unknown>>,
): Promise<RecordingConnection> {
  const agent = [process.execPath, BIN, 'agent'];
  const recorder = new CaptureWriter(options.capture, { acpKit: packageVersion(), agent });
  const toProxy = new PassThrough();
  const fromProxy = new PassThrough();
  const proxy = startProxy({
    command: agent[0]!,
    args: agent.slice(1),
    env: { ...process.env, ACP_KIT_DATA_DIR: options.dataDir },
    editorIn: toProxy,
    editorOut: fromProxy,
    agentStderr: new PassThrough().resume(),
    recorder,
    log: () => undefined,
  });
  const stop = async () => {
    await proxy.stop();
    recorder.close();
  };
  stops.push(stop);
  const conn = await connect({
    transport: new StreamTransport(fromProxy, toProxy),
    protocol: options.protocol,
    permissionPolicy: allowAll,
  });
  conns.push(conn);
  return {
    conn,
    async finish() {
      await conn.close();
      toProxy.end();
      const { exitCode } = await proxy.done;
      recorder.close();
      if (exitCode !== 0) throw new Error(`the recorded agent exited ${exitCode}, not 0`);
    },
  };
}

/**
 * One prompt of the built-in agent in a new session in `dir` (its data dir under `dir`), recorded
 * through {@link connectRecording} to `capture` (default `<dir>/cap.ndjson`); resolves with the
 * capture's path once the turn ended end_turn, the agent exited and the capture was closed.
 */
export async function recordTurn(
  dir: string,
  protocol: 1 | 2,
  prompt: string,
  conns: ClientConnection[],
  capture = join(dir, 'cap.ndjson'),
): Promise<string> {
  const stops: Array<() => Promise<unknown>> = [];
  try {
    const { conn, finish } = await connectRecording({ capture, dataDir: join(dir, 'data'), protocol }, conns, stops);
    const s = await conn.newSession({ cwd: dir });
    const r = await s.prompt(prompt);
    if (r.stopReason !== 'end_turn') throw new Error(`the recorded turn ended ${r.stopReason}, not end_turn`);
    await finish();
    return capture;
  } finally {
    // ends the agent's process group if the turn failed (nothing left to do when it finished)
    for (const stop of stops) await stop();
  }
}
