import { authMethodsFromV1, authMethodsFromV2, isObj } from '@acp-kit/protocol/internal';
import type { AuthMethod } from '@acp-kit/protocol';

/** A command that logs the user in interactively (run it with the terminal attached). */
export interface TerminalLoginCommand {
  /** The executable. */
  command: string;
  args: string[];
  /** Extra environment variables for the login process. */
  env: Record<string, string>;
  /** What the agent calls this login, when it says. */
  label?: string;
}

/**
 * The terminal login command of an auth method, or `undefined` when it has none. Two forms:
 *
 * - `_meta["terminal-auth"]: {command, args?, env?, label?}` — the explicit command that real
 *   agents (amp, copilot, kimi, claude-agent-acp) put on their methods, in either version;
 * - `type: "terminal"` (v1 unstable, v2) — the agent's own command run with the method's `args`
 *   and `env` (ACP-ALL-AUTH-02); needs `agent`, how the agent was started.
 */
export function terminalLoginCommand(
  method: AuthMethod,
  agent?: { command: string; args?: readonly string[] },
): TerminalLoginCommand | undefined {
  const meta = method._meta?.['terminal-auth'];
  if (isObj(meta)) {
    const m = meta;
    if (typeof m.command === 'string' && m.command.length > 0) {
      const out: TerminalLoginCommand = { command: m.command, args: stringList(m.args), env: stringMap(m.env) };
      if (typeof m.label === 'string') out.label = m.label;
      return out;
    }
  }
  if (method.type === 'terminal' && agent) {
    return {
      command: agent.command,
      args: [...(agent.args ?? []), ...stringList(method.args)],
      env: stringMap(method.env),
    };
  }
  return undefined;
}

/**
 * The auth methods an agent repeats in the `data.authMethods` of its `-32000 Authentication
 * required` error (kimi), decoded leniently: v1 (`id`) and v2 (`methodId`) entries both read.
 * Anything else yields `[]`.
 */
export function authMethodsFromError(error: unknown): AuthMethod[] {
  const data = isObj(error) ? error.data : undefined;
  const list = isObj(data) ? data.authMethods : undefined;
  if (!Array.isArray(list)) return [];
  const out: AuthMethod[] = [];
  for (const m of list) {
    if (!isObj(m)) continue;
    const decoded = typeof m.methodId === 'string' ? authMethodsFromV2([m]) : authMethodsFromV1([m]);
    for (const d of decoded) if (typeof d.methodId === 'string' && typeof d.name === 'string') out.push(d);
  }
  return out;
}

/** `known` plus the methods of `more` whose id is not in `known` yet. */
export function mergeAuthMethods(known: readonly AuthMethod[], more: readonly AuthMethod[]): AuthMethod[] {
  const ids = new Set(known.map((m) => m.methodId));
  return [...known, ...more.filter((m) => !ids.has(m.methodId))];
}

/** Quotes a command line for a POSIX shell, so a user can paste it. */
export function shellCommandLine(cmd: TerminalLoginCommand): string {
  const q = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  const env = Object.entries(cmd.env).map(([k, v]) => `${k}=${q(v)}`);
  return [...env, q(cmd.command), ...cmd.args.map(q)].join(' ');
}

function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function stringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x;
  } else if (Array.isArray(v)) {
    // v2 wire form `[{name, value}]`, in case it was not decoded
    for (const e of v) if (isObj(e) && typeof e.name === 'string' && typeof e.value === 'string') out[e.name] = e.value;
  }
  return out;
}
