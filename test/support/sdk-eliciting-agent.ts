/**
 * Official SDK 2.4.0 agents (v1 and v2) that elicit, served in process for the client runtime's
 * interop tests (issue 26 item 2): each prompt puts a form (the answer said back), then a url
 * (the answer said back), then sends `elicitation/complete` for an id it never used followed by
 * the url's own id.
 */
import { PassThrough, Readable, Writable } from 'node:stream';
import * as sdk1 from '@agentclientprotocol/sdk';
import * as sdk2 from '@agentclientprotocol/sdk/experimental/v2';
import { StreamTransport } from '../../packages/protocol/src/rpc/stream-transport.js';
import type { Transport } from '../../packages/protocol/src/rpc/index.js';
import { NAME_SCHEMA } from './eliciting-agent.js';

type Client = { request(m: string, p: unknown): Promise<any>; notify(m: string, p: unknown): Promise<void> };

async function elicitAll(client: Client, sessionId: string, say: (t: string) => Promise<void>): Promise<void> {
  const form = await client.request('elicitation/create', {
    sessionId,
    mode: 'form',
    message: 'Who are you?',
    requestedSchema: NAME_SCHEMA,
  });
  await say(`form:${JSON.stringify(form)}\n`);
  const url = await client.request('elicitation/create', {
    sessionId,
    mode: 'url',
    message: 'Sign in',
    elicitationId: 'el-1',
    url: 'https://auth.example.com/consent',
  });
  await say(`url:${JSON.stringify(url)}\n`);
  await client.notify('elicitation/complete', { elicitationId: 'never-asked' });
  await client.notify('elicitation/complete', { elicitationId: 'el-1' });
}

function v1App() {
  return sdk1
    .agent({ name: 'sdk-v1-eliciting' })
    .onRequest('initialize', () => ({
      protocolVersion: 1,
      agentInfo: { name: 'sdk-v1-eliciting', version: '1.0.0' },
      agentCapabilities: {},
      authMethods: [],
    }))
    .onRequest('session/new', () => ({ sessionId: 'v1-s1' }))
    .onNotification('session/cancel', () => undefined)
    .onRequest('session/prompt', async ({ params, client }: any) => {
      const sessionId = params.sessionId;
      const say = (text: string) =>
        client.notify('session/update', {
          sessionId,
          update: { sessionUpdate: 'agent_message_chunk', messageId: 'a1', content: { type: 'text', text } },
        });
      await elicitAll(client, sessionId, say);
      return { stopReason: 'end_turn' };
    });
}

function v2App() {
  let m = 0;
  return sdk2
    .agent({ name: 'sdk-v2-eliciting' })
    .onRequest('initialize', () => ({
      protocolVersion: 2,
      info: { name: 'sdk-v2-eliciting', version: '2.0.0' },
      capabilities: {},
      authMethods: [],
    }))
    .onRequest('session/new', () => ({ sessionId: 'v2-s1' }))
    .onNotification('session/cancel', () => undefined)
    .onRequest('session/prompt', ({ params, client }: any) => {
      const sessionId = params.sessionId;
      const messageId = `u${++m}`;
      const up = (update: unknown) => client.notify('session/update', { sessionId, update });
      const say = (text: string) =>
        up({ sessionUpdate: 'agent_message_chunk', messageId: `a${m}`, content: { type: 'text', text } });
      // the work runs after the response (insertion) has gone out
      setImmediate(async () => {
        await up({ sessionUpdate: 'user_message', messageId, content: params.prompt });
        await up({ sessionUpdate: 'state_update', state: 'requires_action' });
        await elicitAll(client, sessionId, say);
        await up({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' });
      });
      return { messageId };
    });
}

/** A transport for the client whose other end is the SDK agent of `version`, in process. */
export function sdkElicitingAgent(version: 1 | 2): Transport {
  const c2a = new PassThrough();
  const a2c = new PassThrough();
  const stream = sdk1.ndJsonStream(
    Writable.toWeb(a2c) as WritableStream<Uint8Array>,
    Readable.toWeb(c2a) as ReadableStream<Uint8Array>,
  );
  const app: { connect(s: unknown): unknown } = version === 1 ? v1App() : v2App();
  app.connect(stream);
  return new StreamTransport(a2c, c2a);
}
