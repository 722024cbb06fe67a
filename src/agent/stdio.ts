import { StreamTransport } from '../rpc/stream-transport.js';
import { serveAgent, type AgentConnection, type ServeAgentOptions } from './agent-connection.js';
import { JsonlSessionStore } from './jsonl-session-store.js';
import { stderrLogger } from './logger.js';
import type { AgentDefinition } from './types.js';

export interface RunAgentOnStdioOptions extends ServeAgentOptions {
  /** Exit the process when the connection ends (default true). */
  exitOnClose?: boolean;
}

/**
 * Serves `definition` on this process's stdin/stdout (the ACP stdio transport, ACP-ALL-TRANS-03).
 * stdout carries only protocol messages: `console.log`/`info`/`debug` are redirected to stderr,
 * where the runtime also logs. Sessions persist in a {@link JsonlSessionStore} unless `store` says
 * otherwise. When stdin closes, running turns are cancelled, sessions closed, and the process exits 0.
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
  process.on('unhandledRejection', (e) => logger.error(`unhandled rejection: ${(e as Error)?.stack ?? String(e)}`));
  const store = options.store === undefined ? new JsonlSessionStore() : options.store;
  const connection = serveAgent(definition, new StreamTransport(process.stdin, process.stdout), { ...options, logger, store });
  if (options.exitOnClose !== false) {
    void connection.closed.then((info) => {
      logger.debug(`connection closed: ${info.reason}`);
      if (store instanceof JsonlSessionStore) store.close();
      process.exit(0);
    });
  }
  return connection;
}
