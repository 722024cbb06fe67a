// Shared set-up of the end-to-end tests: acp-kit's client connected to the scripted e2e agent
// (test/fixtures/e2e-agent-definition.mjs), in process (startE2E: the real agent and client runtimes
// over in-memory streams, see in-process.ts) or as a real process over stdio pipes (startE2EProcess),
// every wire message recorded and checked against the official schema of the version spoken.
import { fileURLToPath } from 'node:url';
import type { AgentConnection } from '../../packages/agent/src/index.js';
import { InMemorySessionStore, JsonlSessionStore } from '../../packages/agent/src/index.js';
import {
  connect,
  type ClientConnection,
  type ClientProblem,
  type ClientSession,
} from '../../packages/client/src/index.js';
import { AcpError } from '../../packages/protocol/src/index.js';
// @ts-expect-error plain ESM fixture without type declarations
import { createE2EAgent } from '../fixtures/e2e-agent-definition.mjs';
import { connectInProcess } from './in-process.js';
import { createSchemaTap } from './schema-tap.js';

export const E2E_AGENT = fileURLToPath(new URL('../fixtures/e2e-agent.mjs', import.meta.url));

/** One message as this client saw it: `out` = sent to the agent, `in` = received. */
export interface Wire {
  dir: 'in' | 'out';
  msg: Record<string, unknown> & {
    id?: unknown;
    method?: string;
    params?: Record<string, unknown>;
    result?: unknown;
    error?: unknown;
  };
  at: number;
}

/**
 * Connects to a fresh e2e agent served in this process, speaking version `v`. `env` stands for the
 * agent process's environment (E2E_STORE_DIR, E2E_CANCEL_TIMEOUT, E2E_EARLY: see e2e-agent.mjs); what
 * the agent writes to stderr (its log and the fixture's markers) lands in `stderr`. The connection is
 * pushed onto `open` so the caller's `afterEach` can close it (which also ends the agent side).
 */
export async function startE2E(
  v: 1 | 2,
  open: ClientConnection[],
  opts: Record<string, unknown> = {},
  env: Record<string, string> = {},
) {
  const stderr: string[] = [];
  let agent: AgentConnection | undefined;
  const definition = createE2EAgent({ AcpError, peer: () => agent!.peer, log: (t: string) => stderr.push(t), env });
  const store = env.E2E_STORE_DIR ? new JsonlSessionStore({ dir: env.E2E_STORE_DIR }) : new InMemorySessionStore();
  const pair = await connectInProcess(definition, {
    version: v,
    client: opts,
    serve: {
      store,
      cancelTimeoutMs: Number(env.E2E_CANCEL_TIMEOUT ?? 3000),
      logger: {
        debug: () => undefined,
        info: (m) => stderr.push(`${m}\n`),
        warn: (m) => stderr.push(`${m}\n`),
        error: (m) => stderr.push(`${m}\n`),
      },
    },
  });
  agent = pair.agent;
  // as the stdio agent does when its connection ends
  if (store instanceof JsonlSessionStore) void agent.closed.then(() => store.close());
  open.push(pair.conn);
  return withHelpers({ conn: pair.conn, tap: pair.tap, wire: pair.wire as Wire[], problems: pair.problems, stderr });
}

/** {@link startE2E} with the agent as a real process on stdio (test/fixtures/e2e-agent.mjs, from dist/). */
export async function startE2EProcess(
  v: 1 | 2,
  open: ClientConnection[],
  opts: Record<string, unknown> = {},
  env: Record<string, string> = {},
) {
  const tap = createSchemaTap(v);
  const wire: Wire[] = [];
  const problems: ClientProblem[] = [];
  const stderr: string[] = [];
  const conn = await connect({
    command: process.execPath,
    args: [E2E_AGENT],
    protocol: v,
    env: { ...process.env, ...env },
    onProblem: (p) => problems.push(p),
    onStderr: (t) => stderr.push(t),
    tap: {
      sent: (m) => (wire.push({ dir: 'out', msg: m as Wire['msg'], at: Date.now() }), tap.clientSide.sent(m)),
      received: (m) => (wire.push({ dir: 'in', msg: m as Wire['msg'], at: Date.now() }), tap.clientSide.received(m)),
    },
    ...opts,
  });
  open.push(conn);
  return withHelpers({ conn, tap, wire, problems, stderr });
}

function withHelpers<T extends { conn: ClientConnection; stderr: string[] }>(base: T) {
  const { conn, stderr } = base;
  /** Sends a request as is (no client-side checks), for the agent's error paths. */
  const raw = (method: string, params: unknown) =>
    (conn.extRequest as (m: string, p: unknown) => Promise<unknown>)(method, params);
  /**
   * A round trip through the agent (`_e2e/echo`): everything the agent wrote before handling it has
   * arrived once this resolves. Proves "nothing more came" without sleeping.
   */
  const roundTrip = async (): Promise<void> => {
    await raw('_e2e/echo', { probe: true });
  };
  /** Resolves once the agent wrote a stderr line matching `re` (the fixture's progress markers). */
  const stderrLine = (re: RegExp, ms = 10_000): Promise<void> =>
    new Promise((resolve, reject) => {
      const end = Date.now() + ms;
      const check = (): void => {
        if (re.test(stderr.join(''))) return resolve();
        if (Date.now() > end)
          return reject(new Error(`agent wrote no stderr line matching ${re} within ${ms} ms:\n${stderr.join('')}`));
        setTimeout(check, 10);
      };
      check();
    });
  return { ...base, raw, roundTrip, stderrLine };
}

// ---- the e2e agent's script language (see test/fixtures/e2e-agent.mjs) ----

/** A prompt the e2e agent runs as a script of actions, ending with `stop` (default end_turn). */
export const script = (actions: unknown[], stop?: unknown): string =>
  JSON.stringify(stop === undefined ? { actions } : { actions, stop });
export const text = (t: string) => ({ type: 'text', text: t });
export const chunk = (id: string, t: string) => ({
  send: { sessionUpdate: 'agent_message_chunk', messageId: id, content: text(t) },
});

// ---- reading the recorded wire ----

export const isUpdate = (w: Wire) => w.dir === 'in' && w.msg.method === 'session/update';
export const updateOf = (w: Wire) => (w.msg.params as { update: Record<string, unknown> }).update;

/** Index of the response to the client's request `method` (the last one sent). */
export function responseIndex(wire: Wire[], method: string): number {
  const req = [...wire].reverse().find((w) => w.dir === 'out' && w.msg.method === method);
  return wire.findIndex((w) => w.dir === 'in' && req !== undefined && w.msg.id === req.msg.id && !('method' in w.msg));
}

/** Resolves at the first update of `s` matching `pred`. */
export function waitFor(s: ClientSession, pred: (u: Record<string, unknown>) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const off = s.onUpdate((u) => {
      if (pred(u as Record<string, unknown>)) {
        off();
        resolve();
      }
    });
  });
}

/** A permission question about a pending edit, with allow/reject options. */
export const QUESTION = {
  title: 'Write /tmp/x?',
  subject: { type: 'tool_call', toolCall: { toolCallId: 'w1', title: 'Write file', kind: 'edit', status: 'pending' } },
  options: [
    { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
    { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
  ],
};
