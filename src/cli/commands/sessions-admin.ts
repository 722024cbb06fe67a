/**
 * `acp-kit sessions fork|rename|archive|unarchive|delete|status`: the session methods of the agent
 * (session/fork, session/set_title, session/archive, session/unarchive, session/delete, session/status), each only when the agent
 * advertises its capability (exit code "unsupported" otherwise, naming the capability).
 */
import type { AgentMethod } from '@acp-kit/protocol';
import { CliError, toCliError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import type { SessionsFlags } from '../flags.js';
import { resultLine } from '../render/ndjson-events.js';
import type { OpenAgent } from '../session-runner.js';
import { colorEnabled, createStyle, stripAnsi } from '../style.js';
import { withAgent } from './sessions.js';

/** The capability each method needs, as the two versions spell it. */
const CAPABILITY: Partial<Record<AgentMethod, string>> = {
  'session/fork': 'fork',
  'session/set_title': 'title',
  'session/archive': 'archive',
  'session/unarchive': 'archive',
  'session/delete': 'delete',
  'session/status': 'status',
};

function requireMethod(a: OpenAgent, method: AgentMethod, what: string): void {
  if (a.conn.supports(method)) return;
  const cap = CAPABILITY[method] ?? method;
  throw new CliError('unsupported', ExitCode.Unsupported, `the agent (${a.agent.display}) does not support ${what}`, {
    hint: `${what} needs an agent that advertises the ${method} capability (v1 sessionCapabilities.${cap}, v2 session.${cap}).`,
  });
}

/** Runs one request of an unstable method; prints `text` or, with --json, the result line with `fields`. */
async function adminCommand(
  flags: SessionsFlags,
  method: AgentMethod,
  what: string,
  call: (a: OpenAgent) => Promise<{ text: string; fields: Record<string, unknown> }>,
): Promise<number> {
  return withAgent(flags, async (a) => {
    requireMethod(a, method, what);
    let out: { text: string; fields: Record<string, unknown> };
    try {
      out = await call(a);
    } catch (e) {
      throw toCliError(e, a.ctx);
    }
    process.stdout.write(flags.json ? resultLine(ExitCode.Ok, out.fields) : `${out.text}\n`);
    return ExitCode.Ok;
  });
}

/** `acp-kit sessions fork <id>`: a new session with a copy of the history; prints the new id. */
export function sessionsForkCommand(sessionId: string, flags: SessionsFlags): Promise<number> {
  return adminCommand(flags, 'session/fork', 'forking sessions', async (a) => {
    const fork = await a.conn.forkSession(sessionId, { cwd: a.cwd });
    const style = createStyle(colorEnabled(process.stdout));
    return {
      text: `${style.bold(fork.sessionId)}  ${style.dim(`forked from ${sessionId}`)}`,
      fields: { sessionId: fork.sessionId, forkedFrom: sessionId },
    };
  });
}

/** `acp-kit sessions rename <id> <title>`: prints the title the agent stored (it may normalize it). */
export function sessionsRenameCommand(sessionId: string, title: string, flags: SessionsFlags): Promise<number> {
  return adminCommand(flags, 'session/set_title', 'renaming sessions', async (a) => {
    const stored = await a.conn.setSessionTitle(sessionId, title);
    return { text: `${sessionId}  ${stripAnsi(stored)}`, fields: { sessionId, title: stored } };
  });
}

/** `acp-kit sessions archive|unarchive <id>`. */
export function sessionsArchiveCommand(sessionId: string, archived: boolean, flags: SessionsFlags): Promise<number> {
  const method = archived ? 'session/archive' : 'session/unarchive';
  return adminCommand(flags, method, archived ? 'archiving sessions' : 'unarchiving sessions', async (a) => {
    if (archived) await a.conn.archiveSession(sessionId);
    else await a.conn.unarchiveSession(sessionId);
    return { text: `${sessionId}  ${archived ? 'archived' : 'unarchived'}`, fields: { sessionId, archived } };
  });
}

/**
 * `acp-kit sessions delete <id>`: session/delete (ACP-ALL-DEL-01: only when the agent advertises
 * it); an id the agent no longer has succeeds silently (ACP-ALL-DEL-03).
 */
export function sessionsDeleteCommand(sessionId: string, flags: SessionsFlags): Promise<number> {
  return adminCommand(flags, 'session/delete', 'deleting sessions', async (a) => {
    await a.conn.deleteSession(sessionId);
    return { text: `${sessionId}  deleted`, fields: { sessionId, deleted: true } };
  });
}

/**
 * `acp-kit sessions status <id>`: unstable session/status: `open` (loaded in the agent) or `saved`
 * (only stored); a v2 agent adds the foreground state (`idle`, `running`, `requires_action`).
 */
export function sessionsStatusCommand(sessionId: string, flags: SessionsFlags): Promise<number> {
  return adminCommand(flags, 'session/status', 'asking a session status', async (a) => {
    const res = await a.conn.sessionStatus(sessionId);
    const state = res.state ?? undefined;
    const fields: Record<string, unknown> = { sessionId, status: res.status };
    if (state) fields.state = state;
    const shown = state ? `${res.status}, ${stripAnsi(String(state.state))}` : res.status;
    return { text: `${sessionId}  ${stripAnsi(shown)}`, fields };
  });
}
