// The agent runtime over real pipes: initialize and version negotiation.
import { afterEach, describe, expect, it } from 'vitest';
import { initParams, stderrLine, startAgent, type Harness } from '../../../test/support/agent-harness.js';

let h: Harness | undefined;
afterEach(async () => {
  const last = h;
  h = undefined;
  await last?.close();
  // every message the agent sent in the test is valid against the official schema
  last?.assertAgentMessagesValid();
});

describe('initialize (ACP-ALL-INIT-03, ACP-V2-INIT-05)', () => {
  it('negotiates 2 -> 2 with the v2 shape and fills session capabilities', async () => {
    h = startAgent();
    const r = await h.request('initialize', initParams(2));
    expect(r.protocolVersion).toBe(2);
    expect(r.info).toMatchObject({ name: 'scripted-agent', version: '1.0.0' });
    expect(r.capabilities.session).toBeTypeOf('object');
    expect(r.capabilities.session.delete).toBeTypeOf('object');
    expect(r.agentCapabilities).toBeUndefined();
  });

  it('negotiates 1 -> 1 with the v1 shape (loadSession from the store)', async () => {
    h = startAgent();
    const r = await h.request('initialize', initParams(1));
    expect(r.protocolVersion).toBe(1);
    expect(r.agentInfo).toMatchObject({ name: 'scripted-agent' });
    expect(r.agentCapabilities.loadSession).toBe(true);
    expect(r.agentCapabilities.sessionCapabilities).toMatchObject({ list: {}, resume: {}, close: {}, delete: {} });
  });

  it('answers a newer version with the newest it speaks (3 -> 2)', async () => {
    h = startAgent();
    const r = await h.request('initialize', initParams(3));
    expect(r.protocolVersion).toBe(2);
  });

  it('refuses version 0 with -32022 {requested, supported} and stays usable', async () => {
    h = startAgent();
    const e = await h.request('initialize', initParams(0)).catch((x) => x);
    expect(e.code).toBe(-32022);
    expect(e.data).toEqual({ requested: 0, supported: [1, 2] });
    const r = await h.request('initialize', initParams(1));
    expect(r.protocolVersion).toBe(1);
  });

  it('rejects requests before initialize with -32600 naming initialize', async () => {
    h = startAgent();
    const e = await h.request('session/new', { cwd: '/tmp', mcpServers: [] }).catch((x) => x);
    expect(e.code).toBe(-32600);
    expect(e.message).toMatch(/initialize/);
  });

  it('allows repeating initialize before other requests, not after', async () => {
    h = startAgent();
    expect((await h.request('initialize', initParams(1))).protocolVersion).toBe(1);
    expect((await h.request('initialize', initParams(2))).protocolVersion).toBe(2);
    await h.request('session/new', { cwd: '/tmp' });
    const e = await h.request('initialize', initParams(2)).catch((x) => x);
    expect(e.code).toBe(-32600);
  });
});

describe('authentication (ACP-V1-AUTH-*, ACP-V2-AUTH-*)', () => {
  it('v1: authenticate and logout; terminal methods only for clients with auth.terminal', async () => {
    h = startAgent({ env: { AGENT_AUTH: '1' } });
    const r = await h.request('initialize', initParams(1));
    expect(r.authMethods.map((m: any) => m.id)).toEqual(['token']);
    expect(r.agentCapabilities.auth?.logout).toEqual({});
    expect(await h.request('authenticate', { methodId: 'token' })).toEqual({});
    const bad = await h.request('authenticate', { methodId: 'nope' }).catch((x) => x);
    expect(bad.code).toBe(-32602);
    expect(bad.message).toContain('params.methodId');
    expect(await h.request('logout', {})).toEqual({});
    await stderrLine(h, /logged out/);
    expect(h.stderr()).toContain('authenticated with token');
    expect(h.stderr()).toContain('logged out');
    await h.close();
    h.assertAgentMessagesValid();
    h = startAgent({ env: { AGENT_AUTH: '1' } });
    const r2 = await h.request('initialize', initParams(1, { auth: { terminal: true } }));
    expect(r2.authMethods.map((m: any) => m.id)).toEqual(['token', 'tlogin']);
    const term = await h.request('authenticate', { methodId: 'tlogin' }).catch((x) => x);
    expect(term.code).toBe(-32602);
  });

  it('v2: auth/login and auth/logout; the v1 names are unknown', async () => {
    h = startAgent({ env: { AGENT_AUTH: '1' } });
    const r = await h.request('initialize', initParams(2));
    expect(r.authMethods.map((m: any) => m.methodId)).toEqual(['token']);
    expect(await h.request('auth/login', { methodId: 'token' })).toEqual({});
    expect(await h.request('auth/logout', {})).toEqual({});
    const e = await h.request('authenticate', { methodId: 'token' }).catch((x) => x);
    expect(e.code).toBe(-32601);
  });

  it('without authMethods there is nothing to call', async () => {
    h = startAgent();
    const r = await h.request('initialize', initParams(2));
    expect(r.authMethods ?? []).toEqual([]);
    const e = await h.request('auth/login', { methodId: 'token' }).catch((x) => x);
    expect(e.code).toBe(-32601);
  });
});
