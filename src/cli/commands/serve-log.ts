/**
 * The one logger of `acp-kit serve`: every stderr line goes through it, as text (`acp-kit serve:
 * …`, as before) or, with `--log-format json`, one JSON object a line (`time`, `level`, `msg`, and
 * `connection`, `session`, `method`, `code`, `durationMs` when known). Tokens never reach a line:
 * each accepted token is masked wherever it appears (an agent's stderr, an error message).
 */
import type { AgentLogger } from '@acp-kit/agent';

export type LogFormat = 'text' | 'json';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface LogFields {
  connection?: string;
  session?: string;
  method?: string;
  code?: number;
  durationMs?: number;
}

export interface ServeLogger {
  readonly format: LogFormat;
  /** Always written (start, stop, what is served where). */
  write(level: LogLevel, msg: string, fields?: LogFields): void;
  /** Diagnostics, written with `--verbose` only: a free-form line of the server, its fields read from it. */
  line(text: string): void;
  /** The built-in agent's logger: `text` as given (today's lines), json lines through this logger otherwise. */
  agent(text: AgentLogger): AgentLogger;
  /** One answered request (with `--verbose` and `--log-format json` only). */
  request(fields: LogFields & { method: string }): void;
}

const CONNECTION = /\bconnection ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b/i;
const SESSION = /\bsession (?:\/new )?([^\s:,()]+)/;

/** The level and fields a server diagnostic line carries in its words (`warning: …`, `connection <id> …`). */
function readLine(text: string): { level: LogLevel; fields: LogFields } {
  const level: LogLevel = /^(error|request failed)\b/.test(text) ? 'error' : /^warning\b/.test(text) ? 'warn' : 'debug';
  const fields: LogFields = {};
  const c = CONNECTION.exec(text)?.[1];
  if (c !== undefined) fields.connection = c;
  const s = SESSION.exec(text)?.[1];
  if (s !== undefined) fields.session = s;
  return { level, fields };
}

export function serveLogger(
  format: LogFormat,
  verbose: boolean,
  tokens: readonly string[],
  out: (line: string) => void = (l) => process.stderr.write(l),
): ServeLogger {
  // the longest first: a token that contains another is masked whole
  const secrets = [...tokens].filter((t) => t.length > 0).sort((a, b) => b.length - a.length);
  const mask = (s: string): string => secrets.reduce((acc, t) => acc.split(t).join('***'), s);
  const write = (level: LogLevel, msg: string, fields: LogFields = {}): void => {
    if (format === 'json') {
      out(mask(JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })) + '\n');
      return;
    }
    const extra = Object.entries(fields)
      .map(([k, v]) => ` ${k}=${String(v)}`)
      .join('');
    out(mask(`acp-kit serve: ${msg}${extra}`) + '\n');
  };
  return {
    format,
    write,
    line(text) {
      if (!verbose) return;
      if (format === 'text') return out(mask(`acp-kit serve: ${text}`) + '\n');
      const { level, fields } = readLine(text);
      write(level, text, fields);
    },
    agent(text) {
      if (format === 'text') return text;
      return {
        debug: (m) => (process.env.ACP_KIT_DEBUG ? write('debug', m) : undefined),
        info: (m) => write('info', m),
        warn: (m) => write('warn', m),
        error: (m) => write('error', m),
      };
    },
    request(fields) {
      // text keeps today's lines: the access log is for machines
      if (!verbose || format === 'text') return;
      write(fields.code === undefined ? 'info' : 'warn', fields.method, fields);
    },
  };
}
