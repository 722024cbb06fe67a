import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { JsonRpcPeer, StreamTransport } from '../src/rpc/index.js';
import { createSchemaTap } from '../../../test/support/schema-tap.js';

const text = { type: 'text', text: 'hi' };

describe('schema tap (root schema + per-method defs, by sender)', () => {
  it('accepts a valid v1 conversation, including $/cancel_request and error responses', () => {
    const tap = createSchemaTap(1);
    tap.fromClient({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: 1, clientCapabilities: {} },
    });
    tap.fromAgent({ jsonrpc: '2.0', id: 0, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } });
    tap.fromClient({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/w', mcpServers: [] } });
    tap.fromAgent({ jsonrpc: '2.0', id: 1, result: { sessionId: 's1' } });
    tap.fromClient({ jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { sessionId: 's1', prompt: [text] } });
    tap.fromAgent({
      jsonrpc: '2.0',
      method: 'session/update',
      params: { sessionId: 's1', update: { sessionUpdate: 'agent_message_chunk', content: text } },
    });
    tap.fromAgent({
      jsonrpc: '2.0',
      id: 'p1',
      method: 'session/request_permission',
      params: {
        sessionId: 's1',
        toolCall: { toolCallId: 't' },
        options: [{ optionId: 'a', name: 'Allow', kind: 'allow_once' }],
      },
    });
    tap.fromClient({ jsonrpc: '2.0', id: 'p1', result: { outcome: { outcome: 'cancelled' } } });
    tap.fromClient({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 's1' } });
    tap.fromClient({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: 2 } });
    tap.fromAgent({ jsonrpc: '2.0', id: 2, result: { stopReason: 'cancelled' } });
    tap.fromClient({ jsonrpc: '2.0', id: 3, method: '_acme/ext', params: { any: 'thing' } });
    tap.fromAgent(JSON.stringify({ jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found' } }));
    expect(tap.failures).toEqual([]);
    expect(tap.checked).toBe(13);
    expect([...tap.unknownMethods]).toEqual(['_acme/ext']);
    expect(() => tap.assertAllValid()).not.toThrow();
  });

  it('catches an invalid session/update and lists it with the Ajv error', () => {
    const tap = createSchemaTap(1);
    const bad = {
      jsonrpc: '2.0',
      method: 'session/update',
      params: { sessionId: 's1', update: { sessionUpdate: 'tool_call', toolCallId: 't1' } },
    };
    tap.fromAgent(bad);
    expect(tap.failures).toHaveLength(1);
    expect(tap.failures[0]).toMatchObject({
      from: 'agent',
      against: 'session/update params (SessionNotification)',
      message: bad,
    });
    expect(
      tap.failures[0].errors.some(
        (e) => e.keyword === 'required' && (e.params as { missingProperty?: string }).missingProperty === 'title',
      ),
    ).toBe(true);
    expect(() => tap.assertAllValid()).toThrow(/1 of 1 messages invalid[\s\S]*session\/update params[\s\S]*title/);
  });

  it('types a response by the method of the request with that id, sent the other way', () => {
    const tap = createSchemaTap(1);
    tap.fromClient({ jsonrpc: '2.0', id: 7, method: 'session/prompt', params: { sessionId: 's', prompt: [text] } });
    tap.fromAgent({ jsonrpc: '2.0', id: 7, result: { sessionId: 's' } }); // a session/new result, not a prompt result
    expect(tap.failures.map((f) => f.against)).toEqual(['session/prompt result (PromptResponse)']);
    // a response to an id nobody asked for
    tap.fromClient({ jsonrpc: '2.0', id: 7, result: {} });
    expect(tap.failures.map((f) => f.against)).toEqual(['session/prompt result (PromptResponse)', 'response id']);
  });

  it('knows which side sends what: requests and notifications are typed by side', () => {
    const tap = createSchemaTap(1);
    tap.fromAgent({ jsonrpc: '2.0', id: 1, method: 'session/prompt', params: { sessionId: 's', prompt: [text] } });
    tap.fromClient({
      jsonrpc: '2.0',
      method: 'session/update',
      params: { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: text } },
    });
    expect(tap.failures.map((f) => f.against)).toEqual(['session/prompt side', 'session/update side']);
  });

  it('rejects envelope errors through the root schema', () => {
    const tap = createSchemaTap(2);
    tap.fromAgent({ jsonrpc: '1.0', method: 'session/update', params: {} });
    tap.fromClient({ jsonrpc: '2.0', id: 1, error: { code: 'bad', message: 1 } });
    tap.fromClient('{not json');
    expect(tap.failures.map((f) => f.against)).toEqual(['Agent', 'Client', 'JSON']);
  });

  it('v2: message chunks need messageId, prompt results a messageId, initialize an info', () => {
    const tap = createSchemaTap(2);
    tap.fromClient({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: 2, info: { name: 'ed', version: '1' } },
    });
    tap.fromAgent({ jsonrpc: '2.0', id: 0, result: { protocolVersion: 2, info: { name: 'ag', version: '1' } } });
    tap.fromClient({ jsonrpc: '2.0', id: 1, method: 'session/prompt', params: { sessionId: 's', prompt: [text] } });
    tap.fromAgent({
      jsonrpc: '2.0',
      method: 'session/update',
      params: { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', messageId: 'm', content: text } },
    });
    tap.fromAgent({ jsonrpc: '2.0', id: 1, result: { messageId: 'u1' } });
    expect(tap.failures).toEqual([]);
    tap.fromAgent({
      jsonrpc: '2.0',
      method: 'session/update',
      params: { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: text } },
    });
    tap.fromClient({ jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: 2 } });
    expect(tap.failures.map((f) => f.against)).toEqual([
      'session/update params (UpdateSessionNotification)',
      'initialize params (InitializeRequest)',
    ]);
  });

  it('plugs into JsonRpcPeer as its tap and sees both directions', async () => {
    const a2c = new PassThrough();
    const c2a = new PassThrough();
    const tap = createSchemaTap(1);
    const agent = new JsonRpcPeer(new StreamTransport(c2a, a2c), { tap: tap.agentSide });
    const client = new JsonRpcPeer(new StreamTransport(a2c, c2a));
    agent.onRequest('initialize', () => ({ protocolVersion: 1, agentCapabilities: {} }));
    // an agent bug: a prompt result without stopReason
    agent.onRequest('session/prompt', () => ({ done: true }));
    await client.request('initialize', { protocolVersion: 1 });
    expect(tap.failures).toEqual([]);
    await client.request('session/prompt', { sessionId: 's', prompt: [text] });
    expect(tap.checked).toBe(4);
    expect(tap.failures.map((f) => `${f.from}: ${f.against}`)).toEqual([
      'agent: session/prompt result (PromptResponse)',
    ]);
    expect(() => tap.assertAllValid()).toThrow(/stopReason/);
    agent.close();
    client.close();
  });
});
