// Shared set-up of the end-to-end tests: acp-kit's client connected to the scripted e2e agent
// (test/fixtures/e2e-agent.mjs) over real stdio pipes, every wire message recorded and checked
// against the official schema of the negotiated version.
import { fileURLToPath } from 'node:url';
import { connect, type ClientConnection, type ClientProblem } from '../../src/client/index.js';
import { createSchemaTap } from './schema-tap.js';

export const E2E_AGENT = fileURLToPath(new URL('../fixtures/e2e-agent.mjs', import.meta.url));

/** One message as this client saw it: `out` = sent to the agent, `in` = received. */
export interface Wire {
  dir: 'in' | 'out';
  msg: Record<string, unknown> & { id?: unknown; method?: string; params?: Record<string, unknown>; result?: unknown; error?: unknown };
  at: number;
}

/**
 * Connects to a fresh e2e agent process speaking version `v`. The connection is pushed onto
 * `open` so the caller's `afterEach` can close it.
 */
export async function startE2E(v: 1 | 2, open: ClientConnection[], opts: Record<string, unknown> = {}, env: Record<string, string> = {}) {
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
  /** Sends a request as is (no client-side checks), for the agent's error paths. */
  const raw = (method: string, params: unknown) => (conn.extRequest as (m: string, p: unknown) => Promise<unknown>)(method, params);
  return { conn, tap, wire, problems, stderr, raw };
}
