import { isObj } from '@acp-kit/protocol/internal';
import {
  serveAgent,
  type ServeAgentOptions,
  InMemorySessionStore,
  type SessionStore,
  SharedSessions,
  type AgentDefinition,
} from '@acp-kit/agent';
import { spawnAgent, type SpawnAgentOptions, requestIdKey, type Transport } from '@acp-kit/protocol/rpc';
import type { AgentHost, AgentHostContext, AgentHostFactory } from './server.js';

/** Options of {@link inProcessAgent}. */
export interface InProcessAgentOptions extends Omit<ServeAgentOptions, 'store'> {
  /**
   * The session store of a token owner (called once per owner and kept): sessions are shared by
   * the connections of one token, so a reconnecting client can resume them, and invisible to
   * other tokens. Default: one in-memory store per owner.
   */
  storeFor?: (owner: string) => SessionStore | null;
  /**
   * Whether the v2 connections of one token share open sessions (default `true`): a client that
   * resumes a session another client of the same token is using attaches to it (same history,
   * same live updates in the same order, one prompt queue, permission questions to all: see
   * docs/remote.md). `false`: each connection opens its own runtime of the session.
   */
  shareSessions?: boolean;
}

/**
 * Serves an acp-kit agent in this process for every connection (`definition` may be a factory
 * called per connection, e.g. when the definition holds per-connection state).
 */
export function inProcessAgent(
  definition: AgentDefinition | ((ctx: AgentHostContext) => AgentDefinition),
  options: InProcessAgentOptions = {},
): AgentHostFactory {
  const stores = new Map<string, SessionStore | null>();
  const shared = new Map<string, SharedSessions>();
  const { storeFor, shareSessions = true, ...serveOptions } = options;
  return (transport: Transport, ctx: AgentHostContext): AgentHost => {
    // the runtime's default store is per connection; ours is per owner so resumes work across connections
    if (!stores.has(ctx.owner)) stores.set(ctx.owner, storeFor ? storeFor(ctx.owner) : new InMemorySessionStore());
    const def = typeof definition === 'function' ? definition(ctx) : definition;
    let sharedSessions: SharedSessions | undefined;
    if (shareSessions && !shared.has(ctx.owner)) shared.set(ctx.owner, new SharedSessions());
    if (shareSessions) sharedSessions = shared.get(ctx.owner);
    const conn = serveAgent(def, transport, { ...serveOptions, store: stores.get(ctx.owner), sharedSessions });
    return {
      async shutdown(graceMs) {
        await conn.drain(graceMs);
        await transport.flush();
        conn.close();
        await conn.closed;
      },
      close() {
        conn.close();
      },
    };
  };
}

/**
 * Runs `command` as a stdio agent per connection, in its own process group, killed when the
 * connection ends. Messages are relayed unchanged in both directions.
 */
export function stdioAgent(
  command: string,
  args: readonly string[] = [],
  options: SpawnAgentOptions & { log?: (line: string) => void } = {},
): AgentHostFactory {
  return (remote: Transport, ctx: AgentHostContext): AgentHost => {
    const agent = spawnAgent(command, args, {
      ...options,
      onStderr: options.onStderr ?? ((t) => options.log?.(`[agent ${ctx.connectionId.slice(0, 8)}] ${t.trimEnd()}`)),
    });
    /** open prompt requests (id key -> sessionId), to cancel them on shutdown */
    const prompts = new Map<string, string>();
    /** v2 sessions whose last `state_update` was not `idle` (a v2 prompt may be answered before its turn ends) */
    const running = new Set<string>();
    let promptsDone: (() => void) | undefined;
    const settled = (): void => {
      if (prompts.size === 0 && running.size === 0) promptsDone?.();
    };
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      void agent.kill();
    };
    agent.transport.start({
      onMessage: (m) => {
        if (isObj(m)) {
          if (!('method' in m)) {
            if (prompts.delete(requestIdKey(m.id))) settled();
          } else if (m.method === 'session/update' && isObj(m.params)) {
            const { sessionId, update } = m.params;
            if (isObj(update) && update.sessionUpdate === 'state_update' && typeof sessionId === 'string') {
              if (update.state === 'idle') {
                running.delete(sessionId);
                settled();
              } else running.add(sessionId);
            }
          }
        }
        // a relay: any JSON value goes on as it came (send only serializes it; the peer judges it)
        remote.send(m as object);
      },
      onInvalidLine: (i) => options.log?.(`agent ${ctx.connectionId.slice(0, 8)} wrote a non-JSON line: ${i.line}`),
      onClose: (info) => {
        remote.close({ reason: `agent ended: ${info.reason}` });
        end();
      },
    });
    remote.start({
      onMessage: (m) => {
        if (isObj(m) && m.method === 'session/prompt' && 'id' in m) {
          const sessionId = isObj(m.params) ? m.params.sessionId : undefined;
          prompts.set(requestIdKey(m.id), typeof sessionId === 'string' ? sessionId : '');
        }
        // relayed as it came, as above
        agent.transport.send(m as object);
      },
      onInvalidLine: (i) =>
        remote.send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: `Parse error: ${i.error.message}` } }),
      onClose: () => end(),
    });
    return {
      async shutdown(graceMs) {
        if (prompts.size > 0 || running.size > 0) {
          const done = new Promise<void>((resolve) => (promptsDone = resolve));
          for (const sessionId of new Set([...prompts.values(), ...running]))
            agent.transport.send({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId } });
          let timer: NodeJS.Timeout | undefined;
          await Promise.race([done, new Promise<void>((r) => (timer = setTimeout(r, graceMs)))]);
          clearTimeout(timer);
        }
        await remote.flush();
        remote.close({ reason: 'the server shut down' });
        end();
        await agent.exited;
      },
      close: end,
    };
  };
}
