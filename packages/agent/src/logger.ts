/** Where the agent runtime logs. Never stdout: that is the protocol channel (ACP-ALL-TRANS-07). */
export interface AgentLogger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/**
 * Logs to stderr, prefixed with `name`. `debug` lines only when `ACP_KIT_DEBUG` is set.
 */
export function stderrLogger(name = 'acp-kit agent'): AgentLogger {
  const debug = !!process.env.ACP_KIT_DEBUG;
  const line = (level: string, message: string): void => {
    process.stderr.write(`[${name}] ${level}: ${message}\n`);
  };
  return {
    debug: (m) => (debug ? line('debug', m) : undefined),
    info: (m) => line('info', m),
    warn: (m) => line('warn', m),
    error: (m) => line('error', m),
  };
}

/** Discards everything (embedding, tests that check stderr is empty). */
export const silentLogger: AgentLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
