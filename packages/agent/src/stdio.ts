import { PassThrough, type Readable, type Writable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { StreamTransport } from '@acp-kit/protocol/rpc';
import { serveAgent, type AgentConnection, type ServeAgentOptions } from './agent-connection.js';
import { defaultSessionDir, JsonlSessionStore } from './jsonl-session-store.js';
import { stderrLogger } from './logger.js';
import type { AgentDefinition } from './types.js';

export interface RunAgentOnStdioOptions extends ServeAgentOptions {
  /** Exit the process when the connection ends (default true). */
  exitOnClose?: boolean;
  /**
   * When stdin closes, how long requests already received may take to be answered before the
   * connection ends anyway (default 5000 ms; running turns are cancelled at once).
   */
  eofGraceMs?: number;
}

/**
 * Serves `definition` on this process's stdin/stdout (the ACP stdio transport, ACP-ALL-TRANS-03).
 * stdout carries only protocol messages: `console.log`/`info`/`debug` are redirected to stderr,
 * where the runtime also logs. Sessions persist in a {@link JsonlSessionStore} in this agent's own
 * folder ({@link defaultSessionDir} keyed by `definition.info.name`) unless `store` says otherwise. When stdin closes, running turns are cancelled, the requests already received are
 * answered (for up to `eofGraceMs`), sessions are closed, and the process exits 0.
 * Uncaught exceptions and unhandled rejections (e.g. from an author's stray timer) are logged and
 * the agent keeps serving: one broken tool should not take every open session down with it.
 */
export function runAgentOnStdio(definition: AgentDefinition, options: RunAgentOnStdioOptions = {}): AgentConnection {
  const logger = options.logger ?? stderrLogger(definition.info?.name);
  // anything printed with console.* must not corrupt the protocol stream
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  process.on('uncaughtException', (e) => logger.error(`uncaught exception: ${e?.stack ?? String(e)}`));
  process.on('unhandledRejection', (e) =>
    logger.error(`unhandled rejection: ${(e instanceof Error ? e.stack : undefined) ?? String(e)}`),
  );
  // one store per agent (keyed by its name): other acp-kit agents' sessions stay theirs
  const store =
    options.store === undefined
      ? new JsonlSessionStore({ dir: defaultSessionDir(process.env, definition.info?.name ?? '') })
      : options.store;
  const connection = serveAgentOnStreams(definition, process.stdin, process.stdout, { ...options, logger, store });
  if (options.exitOnClose !== false) {
    void connection.closed.then((info) => {
      logger.debug(`connection closed: ${info.reason}`);
      if (store instanceof JsonlSessionStore) store.close();
      process.exit(0);
    });
  }
  return connection;
}

/**
 * Serves `definition` on `input`/`output` the way {@link runAgentOnStdio} serves it on stdio: the
 * end of `input` is held back until the requests read before it were answered (for up to
 * `eofGraceMs`), then the connection ends. For embedding an agent where a process would be (e.g.
 * the conformance checker's in-process agents); `store` defaults as in {@link serveAgent}.
 */
export function serveAgentOnStreams(
  definition: AgentDefinition,
  input: Readable,
  output: Writable,
  options: Omit<RunAgentOnStdioOptions, 'exitOnClose'> = {},
): AgentConnection {
  const logger = options.logger ?? stderrLogger(definition.info?.name);
  // the input's end is held back from the transport until what was read before it has been answered:
  // a client that writes a request and closes its side at once still gets its answer
  const held = new PassThrough();
  let ended = false;
  const endInput = async (): Promise<void> => {
    if (ended) return;
    ended = true;
    // let the transport read and dispatch every line that arrived before the end
    while (held.readableLength > 0 || held.writableLength > 0) await nextTurn();
    await nextTurn();
    await connection.drain(options.eofGraceMs ?? 5000);
    held.end();
  };
  input.on('data', (chunk: Buffer) => held.write(chunk));
  input.on('end', () => void endInput());
  input.on('error', (e) => {
    logger.warn(`input failed: ${e.message}`);
    void endInput();
  });
  const connection = serveAgent(definition, new StreamTransport(held, output), { ...options, logger });
  return connection;
}
