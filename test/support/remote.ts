// Shared set-up of the remote tests: an in-process `acp-kit serve` (startAcpServer on 127.0.0.1,
// port 0) serving the scripted e2e agent (test/fixtures/e2e-agent-definition.mjs) per connection.
import { connect, type ClientConnection, type PermissionPolicy } from '../../packages/client/src/index.js';
import { AcpError } from '../../packages/protocol/src/index.js';
import {
  inProcessAgent,
  startAcpServer,
  type AcpServer,
  type AcpServerOptions,
} from '../../packages/server/src/index.js';
// @ts-expect-error plain ESM fixture without type declarations
import { createE2EAgent } from '../fixtures/e2e-agent-definition.mjs';

export const TOKEN = 'test-token-1';
export const OTHER_TOKEN = 'test-token-2';

/** Starts a server with the e2e agent; the caller closes it (afterEach). */
export async function startE2EServer(options: Partial<AcpServerOptions> = {}): Promise<AcpServer> {
  return startAcpServer({
    tokens: [TOKEN, OTHER_TOKEN],
    agent: inProcessAgent(
      () =>
        createE2EAgent({
          AcpError,
          peer: () => {
            throw new Error('no raw peer in remote tests');
          },
          log: () => undefined,
          env: {},
        }),
      { cancelTimeoutMs: 3000 },
    ),
    ...options,
  });
}

export const wsUrl = (s: AcpServer): string => s.url.replace(/^http/, 'ws');

/** A prompt for the e2e agent that streams `n` chunks (messageId `m`) then ends its turn. */
export function chunksPrompt(n: number, sleepEvery = 0, sleepMs = 0): string {
  const actions: unknown[] = [];
  for (let i = 0; i < n; i++) {
    actions.push({
      send: { sessionUpdate: 'agent_message_chunk', messageId: 'm', content: { type: 'text', text: `c${i} ` } },
    });
    if (sleepEvery && i % sleepEvery === sleepEvery - 1) actions.push({ sleep: sleepMs });
  }
  return JSON.stringify({ actions });
}

/** A client connection with what it received, in wire order. */
export interface TappedClient {
  conn: ClientConnection;
  /** every `session/update`'s `update` */
  updates: any[];
  /** every message received */
  received: any[];
}

/** Connects a client (v2 unless told) to `url` that records what it receives; the caller closes `conn`. */
export async function connectTapped(
  url: string,
  token: string,
  permissionPolicy?: PermissionPolicy,
  protocol: 1 | 2 = 2,
): Promise<TappedClient> {
  const updates: any[] = [];
  const received: any[] = [];
  const conn = await connect({
    url,
    token,
    protocol,
    ...(permissionPolicy ? { permissionPolicy } : {}),
    tap: {
      sent: () => undefined,
      received: (m: any) => {
        received.push(m);
        if (m?.method === 'session/update') updates.push(m.params.update);
      },
    },
  });
  return { conn, updates, received };
}
