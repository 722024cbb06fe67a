// A raw JSON-RPC test client for the agent runtime tests: serves a fixture agent in this process
// (the real runtime from src/ over in-memory streams) or, with `process: true`, spawns it as a real
// process over real pipes; records every message in wire order.
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import {
  InMemorySessionStore,
  JsonlSessionStore,
  defaultSessionDir,
  serveAgent,
  type AgentConnection,
  type AgentLogger,
} from '../../packages/agent/src/index.js';
import type { AgentDefinition } from '../../packages/agent/src/types.js';
import { AcpError } from '../../packages/protocol/src/index.js';
import {
  JsonRpcPeer,
  spawnAgent,
  StreamTransport,
  type AgentProcess,
  type RequestContext,
  type Transport,
} from '../../packages/protocol/src/rpc/index.js';
// @ts-expect-error plain ESM fixture without type declarations
import { createScriptedAgent } from '../fixtures/agent-scripted-definition.mjs';
// @ts-expect-error plain ESM fixture without type declarations
import { createE2EAgent } from '../fixtures/e2e-agent-definition.mjs';
import { createSchemaTap } from './schema-tap.js';
import { tempDir } from './temp.js';
import { afterEach } from 'vitest';

export const fixturePath = (name: string): string => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));

export type Msg = {
  jsonrpc: '2.0';
  id?: number | string | null;
  method?: string;
  params?: any;
  result?: any;
  error?: any;
};

export interface Harness {
  peer: JsonRpcPeer;
  /** The agent process (only with `process: true`; throws for an in-process agent). */
  agent: AgentProcess;
  /** Every message received from the agent, in wire order. */
  received: Msg[];
  /** Every message sent to the agent. */
  sent: Msg[];
  /** Both directions, in order. */
  wire: Array<{ from: 'agent' | 'client'; m: unknown }>;
  /**
   * Checks every message the agent sent against the official schema of the negotiated version
   * (the last successful `initialize`); throws listing the failures.
   */
  assertAgentMessagesValid(): void;
  /** Answers `session/request_permission` (default: waits until cancelled, then `cancelled`). */
  onPermission: (params: any, ctx: RequestContext) => unknown;
  stderr(): string;
  updates(sessionId?: string): any[];
  /** Resolves once a received message matches. */
  waitFor(pred: (m: Msg) => boolean, timeoutMs?: number): Promise<Msg>;
  request(method: string, params?: unknown): Promise<any>;
  close(): Promise<void>;
}

/** A private data dir for an agent; removed after the test file. */
export function tempDataDir(): string {
  return tempDir('acp-kit-agent-test-');
}

export interface StartAgentOptions {
  /** `agent-scripted.mjs` (default) or `e2e-agent.mjs`; other fixtures need `process: true`. */
  fixture?: string;
  /** The agent's environment (the fixture's switches, e.g. AGENT_AUTH, E2E_STORE_DIR). */
  env?: Record<string, string>;
  dataDir?: string;
  tap?: { sent?(m: object): void; received?(m: unknown): void };
  /** Spawn the fixture as a real process on stdio (for behaviour about processes and pipes). */
  process?: boolean;
}

/** An in-process agent: the fixture's definition served by `serveAgent` as its stdio wrapper would. */
function serveInProcess(
  fixture: string,
  env: Record<string, string | undefined>,
  dataDir: string,
  log: (t: string) => void,
) {
  const c2a = new PassThrough();
  const a2c = new PassThrough();
  const logger: AgentLogger = {
    debug: () => undefined,
    info: (m) => log(`${m}\n`),
    warn: (m) => log(`${m}\n`),
    error: (m) => log(`${m}\n`),
  };
  let connection: AgentConnection | undefined;
  let definition: AgentDefinition;
  let store;
  let cancelTimeoutMs: number;
  let validateOutgoing = false;
  if (fixture === 'agent-scripted.mjs') {
    definition = createScriptedAgent({ env, log });
    // as agent-scripted.mjs under runAgentOnStdio: the agent's own JSONL folder in $ACP_KIT_DATA_DIR unless AGENT_STORE=memory
    store =
      env.AGENT_STORE === 'memory'
        ? new InMemorySessionStore()
        : new JsonlSessionStore({ dir: defaultSessionDir({ ACP_KIT_DATA_DIR: dataDir }, definition.info.name) });
    validateOutgoing = env.AGENT_VALIDATE === '1';
    cancelTimeoutMs = Number(env.AGENT_CANCEL_TIMEOUT ?? 5000);
  } else if (fixture === 'e2e-agent.mjs') {
    definition = createE2EAgent({ AcpError, peer: () => connection!.peer, log, env });
    store = env.E2E_STORE_DIR ? new JsonlSessionStore({ dir: env.E2E_STORE_DIR }) : new InMemorySessionStore();
    cancelTimeoutMs = Number(env.E2E_CANCEL_TIMEOUT ?? 3000);
  } else {
    throw new Error(`startAgent: ${fixture} has no in-process form; pass process: true`);
  }
  connection = serveAgent(definition, new StreamTransport(c2a, a2c), {
    logger,
    store,
    validateOutgoing,
    cancelTimeoutMs,
  });
  if (store instanceof JsonlSessionStore) void connection.closed.then(() => store.close());
  const transport: Transport = new StreamTransport(a2c, c2a);
  return { transport, connection };
}

export function startAgent(options: StartAgentOptions = {}): Harness {
  const dataDir = options.dataDir ?? tempDataDir();
  let stderr = '';
  const fixture = options.fixture ?? 'agent-scripted.mjs';
  let agent: AgentProcess | undefined;
  let served: ReturnType<typeof serveInProcess> | undefined;
  if (options.process) {
    agent = spawnAgent(process.execPath, [fixturePath(fixture)], {
      env: { ...process.env, ACP_KIT_DATA_DIR: dataDir, ...options.env },
      onStderr: (t) => (stderr += t),
      killTimeoutMs: 500,
    });
  } else {
    served = serveInProcess(fixture, { ...options.env }, dataDir, (t) => (stderr += t));
  }
  const transport = agent ? agent.transport : served!.transport;
  const received: Msg[] = [];
  const sent: Msg[] = [];
  const wire: Harness['wire'] = [];
  const waiters: Array<{ pred: (m: Msg) => boolean; resolve(m: Msg): void }> = [];
  const peer = new JsonRpcPeer(transport, {
    answerParseErrors: false,
    tap: {
      sent: (m) => {
        sent.push(m as Msg);
        wire.push({ from: 'client', m: structuredClone(m) });
        options.tap?.sent?.(m);
      },
      received: (m) => {
        received.push(m as Msg);
        wire.push({ from: 'agent', m });
        options.tap?.received?.(m);
        for (const w of [...waiters]) {
          if (w.pred(m as Msg)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(m as Msg);
          }
        }
      },
    },
  });
  let closed = false;
  const h: Harness = {
    peer,
    get agent(): AgentProcess {
      if (!agent) throw new Error('this agent runs in process: start it with { process: true } to get its process');
      return agent;
    },
    received,
    sent,
    wire,
    assertAgentMessagesValid() {
      const inits = new Set(sent.filter((m) => m.method === 'initialize').map((m) => m.id));
      const ok = received.filter((m) => inits.has(m.id as number) && m.result);
      if (ok.length === 0) return;
      const version = ok.at(-1)!.result.protocolVersion as 1 | 2;
      const tap = createSchemaTap(version);
      for (const { from, m } of wire) {
        // before the last initialize the connection may have spoken another version
        if (from === 'agent') tap.fromAgent(m);
        else tap.fromClient(m);
      }
      const lastInit = ok.at(-1)!.id;
      const bad = tap.failures.filter((f) => {
        const id = (f.message as Msg).id as number;
        return f.from === 'agent' && !(inits.has(id) && id !== lastInit);
      });
      if (bad.length > 0) {
        throw new Error(
          `agent sent ${bad.length} schema-invalid message(s) (v${version}):\n${bad.map((f) => `${f.against}: ${f.text}\n  ${JSON.stringify(f.message).slice(0, 500)}`).join('\n')}`,
        );
      }
      if (tap.checked === 0) throw new Error('schema tap checked nothing');
    },
    onPermission: (_p, ctx) =>
      new Promise((resolve) => {
        ctx.signal.addEventListener('abort', () => resolve({ outcome: { outcome: 'cancelled' } }), { once: true });
      }),
    stderr: () => stderr,
    updates: (sessionId) =>
      received
        .filter((m) => m.method === 'session/update' && (!sessionId || m.params?.sessionId === sessionId))
        .map((m) => m.params.update),
    waitFor(pred, timeoutMs = 10_000) {
      const hit = received.find(pred);
      if (hit) return Promise.resolve(hit);
      return new Promise((resolve, reject) => {
        const w = { pred, resolve: (m: Msg) => (clearTimeout(t), resolve(m)) };
        const t = setTimeout(() => {
          waiters.splice(waiters.indexOf(w), 1);
          reject(new Error(`timed out waiting for a message; stderr:\n${stderr}`));
        }, timeoutMs);
        waiters.push(w);
      });
    },
    request: (method, params) => peer.request(method, params),
    async close() {
      if (closed) return;
      closed = true;
      peer.close();
      if (agent) await agent.kill();
      else {
        served!.connection.close();
        await served!.connection.closed;
      }
    },
  };
  peer.onRequest('session/request_permission', (params, ctx) => h.onPermission(params, ctx));
  return h;
}

export const CLIENT_INFO = { name: 'agent-test-client', version: '0.0.1' };

/** `initialize` params in the shape of the given version. */
export function initParams(version: number, caps: Record<string, unknown> = {}): object {
  if (version >= 2) return { protocolVersion: version, info: CLIENT_INFO, capabilities: caps };
  return {
    protocolVersion: version,
    clientInfo: CLIENT_INFO,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false, ...caps },
  };
}

/** initialize + session/new; returns the session id. */
export async function openSession(h: Harness, version: 1 | 2, cwd = '/tmp'): Promise<string> {
  const init = await h.request('initialize', initParams(version));
  if (init.protocolVersion !== version) throw new Error(`negotiated ${init.protocolVersion}, wanted ${version}`);
  const res = await h.request('session/new', { cwd, mcpServers: [] });
  return res.sessionId;
}

export const text = (t: string) => [{ type: 'text', text: t }];

/** Text of the agent message chunks among `updates`. */
export function agentText(updates: any[]): string {
  return updates
    .filter((u) => u.sessionUpdate === 'agent_message_chunk' || u.sessionUpdate === 'agent_message')
    .map((u) => (Array.isArray(u.content) ? u.content.map((c: any) => c.text).join('') : (u.content?.text ?? '')))
    .join('');
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves once the agent's stderr matches `re` (the fixtures' progress markers). */
export async function stderrLine(h: Harness, re: RegExp, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!re.test(h.stderr())) {
    if (Date.now() > end)
      throw new Error(`agent wrote nothing matching ${re} on stderr within ${ms} ms:\n${h.stderr()}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * A round trip through the agent (an unknown `_` request, answered -32601): everything the agent
 * wrote before handling it has arrived once this resolves. Use it instead of sleeping before
 * asserting that nothing (more) came.
 */
export async function roundTrip(h: Harness): Promise<void> {
  const answer = await h.request('_acp_kit_test/probe', {}).catch((e: { code?: number }) => e);
  if (answer?.code !== -32601) throw new Error(`probe: expected -32601, got ${JSON.stringify(answer)}`);
}

/**
 * Sends a prompt and resolves at the end of its turn: the v1 response, or (v2) the response and
 * then the turn's `idle` state update. Returns the response and the idle update (v2).
 */
export async function promptTurn(
  h: Harness,
  sessionId: string,
  prompt: unknown,
): Promise<{ response: any; idle?: any }> {
  const idles = () =>
    h.received.filter(
      (m) => m.params?.sessionId === sessionId && m.params?.update?.state === 'idle' && 'stopReason' in m.params.update,
    );
  const before = idles().length;
  const response = await h.request('session/prompt', { sessionId, prompt });
  if (response && 'stopReason' in response) return { response };
  await h.waitFor(() => idles().length > before);
  return { response, idle: idles()[before].params.update };
}

/**
 * Starts agents that are closed after each test, and checks that every message each of them sent
 * was valid against the official schema.
 */
export function useAgents(): (opts?: Parameters<typeof startAgent>[0]) => Harness {
  const harnesses: Harness[] = [];
  afterEach(async () => {
    const all = harnesses.splice(0);
    await Promise.all(all.map((h) => h.close()));
    for (const h of all) h.assertAgentMessagesValid();
  });
  return (opts = {}) => {
    const h = startAgent(opts);
    harnesses.push(h);
    return h;
  };
}
