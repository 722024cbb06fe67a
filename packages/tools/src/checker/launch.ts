import { spawn } from 'node:child_process';
import { PassThrough, Writable, type Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { killGroup } from './process.js';

// How the checker starts the agent under test: a process, or an agent served in this process on
// in-memory streams. The driver (driver.ts) sees either as bytes both ways and an end.

/** What the driver needs to start the program under test as a process. */
export interface LaunchSpec {
  command: string;
  args: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string>>;
}

/**
 * The byte streams an in-process agent is served on: the same bytes a process would read on its
 * stdin and write on its stdout and stderr.
 */
export interface InProcessAgentIo {
  /** What the checker writes to the agent; it ends when the checker closes the connection. */
  input: Readable;
  /** Where the agent writes its messages (newline-delimited JSON, as on stdout). */
  output: Writable;
  /** Where the agent may write diagnostics (its stderr); kept for failure reports. */
  stderr: Writable;
}

/** A started in-process agent: how the checker learns that it ended, and how it ends it. */
export interface InProcessAgentHandle {
  /** Resolves once the agent has ended its connection (a rejection counts as an end, with its error). */
  closed: Promise<void>;
  /** Ends the agent for good (the in-process meaning of killing its process); `closed` then resolves. */
  close(): void;
}

/**
 * Starts one agent inside this process on `io`. The checker calls it once per agent it would
 * otherwise spawn (a case that spans two processes gets two instances), so per-connection state
 * belongs in the instance; what a second process would find on disk (a session store) may be
 * shared through whatever the function closes over.
 */
export type InProcessAgent = (io: InProcessAgentIo) => InProcessAgentHandle;

/** What the driver needs to start an in-process agent. */
export interface InProcessLaunch {
  inProcess: InProcessAgent;
}

/** How a started agent ended. */
export interface AgentEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set for an in-process agent: how it ended, for messages. */
  inProcess?: string;
}

/** A started agent, process or in-process, as the driver sees it: bytes both ways and its end. */
export interface StartedAgent {
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Resolves once the agent has ended (exited, or closed its connection). */
  readonly ended: Promise<AgentEnd>;
  /** Set when the agent could not be started at all. */
  readonly startError: () => Error | undefined;
  /** Ends the agent for good. */
  kill(): void;
  /** Resolves once nothing of the agent is left running (after {@link kill}). */
  readonly settled: Promise<void>;
}

/** A writable that hands each chunk (and the end) on to `to` in a later turn, in order. */
function crossing(to: PassThrough): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      setImmediate(() => {
        if (!to.destroyed && !to.writableEnded) to.write(chunk);
        done();
      });
    },
    final(done) {
      setImmediate(() => {
        if (!to.writableEnded) to.end();
        done();
      });
    },
    destroy(err, done) {
      to.destroy(err ?? undefined);
      done(err);
    },
  });
}

/** Spawns the agent process detached (its own group), so that killing it ends what it started too. */
function startProcess(spec: LaunchSpec): StartedAgent {
  const child = spawn(spec.command, [...spec.args], {
    cwd: spec.cwd,
    env: { ...process.env, ...spec.env },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: process.platform !== 'win32',
  });
  let error: Error | undefined;
  const ended = new Promise<AgentEnd>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
    child.on('error', (e) => {
      error = e;
      resolve({ code: null, signal: null });
    });
  });
  return {
    stdin: child.stdin,
    stdout: child.stdout,
    stderr: child.stderr,
    ended,
    startError: () => error,
    kill: () => {
      child.stdin.end();
      killGroup(child);
    },
    settled: ended.then(() => undefined),
  };
}

/**
 * Starts `agent` on in-memory streams. It has ended once its `closed` resolved (its output is then
 * read to the end, so that every line it wrote before is in the transcript) or once it ended its
 * output.
 */
function startInProcess(agent: InProcessAgent): StartedAgent {
  // bytes cross in a later turn of the event loop, as over a pipe: neither side sees the other's
  // answer inside its own write
  const agentIn = new PassThrough();
  const stdin = crossing(agentIn);
  const stdout = new PassThrough();
  const agentOut = crossing(stdout);
  // what an agent writes after its end has no reader, as on a closed pipe
  agentOut.on('error', () => undefined);
  const stderr = new PassThrough();
  let error: Error | undefined;
  let handle: InProcessAgentHandle | undefined;
  try {
    handle = agent({ input: agentIn, output: agentOut, stderr });
  } catch (e) {
    error = e instanceof Error ? e : new Error(String(e));
  }
  const outputDone = finished(stdout).then(
    () => 'it ended its output',
    (e: Error) => `its output failed: ${e.message}`,
  );
  const closed = handle
    ? handle.closed.then(
        () => 'it closed its connection',
        (e: unknown) => `it failed: ${e instanceof Error ? e.message : String(e)}`,
      )
    : Promise.resolve('it could not be started');
  const ended = Promise.race([
    closed.then(async (how) => {
      if (!agentOut.writableEnded) agentOut.end();
      await outputDone;
      return how;
    }),
    outputDone,
  ]).then((how): AgentEnd => ({ code: null, signal: null, inProcess: how }));
  return {
    stdin,
    stdout,
    stderr,
    ended,
    startError: () => error,
    kill: () => {
      stdin.end();
      handle?.close();
    },
    settled: Promise.all([ended, closed]).then(() => undefined),
  };
}

/** Starts the agent of `launch`: a process for a {@link LaunchSpec}, in memory for an {@link InProcessLaunch}. */
export function startAgent(launch: LaunchSpec | InProcessLaunch): StartedAgent {
  return 'inProcess' in launch ? startInProcess(launch.inProcess) : startProcess(launch);
}
