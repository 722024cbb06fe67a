// proxy/initialize and proxy/successor (Proxy Chains RFD) checked against schema.unstable.json of each version:
// good envelopes pass, a bad one is -32602 naming the field.
import { describe, expect, it } from 'vitest';
import { AcpError, ErrorCode } from '../src/index.js';
import { checkProxyParams, ProxyMethods, readProxySuccessor } from '../src/codec/index.js';

const failure = (f: () => unknown): { code: number; message: string } => {
  try {
    f();
  } catch (e) {
    if (e instanceof AcpError) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error('no error');
};

it("the wire names are the RFD's, the same in v1 and v2", () => {
  expect(ProxyMethods).toEqual({ initialize: 'proxy/initialize', successor: 'proxy/successor' });
});

describe.each([1, 2] as const)('proxy-chain methods, v%i', (v) => {
  it('a proxy/successor envelope reads back its method, params and hop-local _meta', () => {
    const env = { method: 'session/prompt', params: { sessionId: 's', prompt: [] }, _meta: { hop: 1 } };
    expect(readProxySuccessor(v, 'request', env)).toEqual(env);
    expect(readProxySuccessor(v, 'notification', { method: 'session/cancel', params: null })).toEqual({
      method: 'session/cancel',
    });
  });

  it('a malformed proxy/successor is -32602 naming the field', () => {
    expect(failure(() => readProxySuccessor(v, 'request', { params: {} }))).toEqual({
      code: ErrorCode.InvalidParams,
      message: "Invalid params: proxy/successor: params: must have required property 'method'",
    });
    expect(failure(() => readProxySuccessor(v, 'notification', { method: 7 })).message).toBe(
      'Invalid params: proxy/successor: params.method: must be string',
    );
    expect(failure(() => readProxySuccessor(v, 'request', { method: 'x', params: 'text' })).message).toBe(
      'Invalid params: proxy/successor: params.params: must be an object or an array (JSON-RPC params)',
    );
    expect(failure(() => readProxySuccessor(v, 'request', [1])).code).toBe(ErrorCode.InvalidParams);
  });

  it('proxy/initialize takes initialize params: a missing protocolVersion is named', () => {
    expect(() =>
      checkProxyParams(v, ProxyMethods.initialize, 'request', {
        protocolVersion: v,
        clientCapabilities: {},
        // v2 requires the client's info
        ...(v === 2 ? { info: { name: 'editor', version: '1' } } : {}),
      }),
    ).not.toThrow();
    expect(failure(() => checkProxyParams(v, ProxyMethods.initialize, 'request', { clientCapabilities: {} }))).toEqual({
      code: ErrorCode.InvalidParams,
      message: "Invalid params: proxy/initialize: params: must have required property 'protocolVersion'",
    });
  });
});
