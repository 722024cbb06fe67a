// The unstable auth/status, auth/status_update and providers/list|set|disable between acp-kit's
// agent and client runtimes in process, both versions, every wire message checked against the
// version's schema.unstable.json: advertised (and served) only when the definition has them, the
// runtime's checks before the author's set/disable, and status updates pushed by the agent's
// `watch` arriving as client events, deduplicated per connection.
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentDefinition } from '../src/types.js';
import type { AuthStatus, ProviderInfo, SetProviderRequest } from '../../protocol/src/index.js';
import { connectInProcess, type InProcessPair } from '../../../test/support/in-process.js';

const pairs: InProcessPair[] = [];
afterEach(async () => {
  await Promise.all(pairs.splice(0).map((p) => p.close()));
});

/** An agent with one optional provider (`openai`) and one required (`main`); the key decides the auth state. */
function routingAgent() {
  const calls: string[] = [];
  let openai: SetProviderRequest | undefined;
  const listeners = new Set<(s: AuthStatus) => void>();
  const status = (): AuthStatus =>
    openai?.headers?.authorization
      ? { state: 'authenticated', accounts: [{ label: 'OpenAI API key', active: true }] }
      : { state: 'unauthenticated' };
  const list = (): ProviderInfo[] => [
    {
      providerId: 'main',
      supported: ['anthropic'],
      required: true,
      current: { apiType: 'anthropic', baseUrl: 'http://127.0.0.1:1/' },
    },
    {
      providerId: 'openai',
      supported: ['openai'],
      required: false,
      current: openai ? { apiType: openai.apiType, baseUrl: openai.baseUrl } : null,
    },
  ];
  const def: AgentDefinition = {
    info: { name: 'routing', version: '1.0.0' },
    prompt: async () => 'end_turn',
    auth: {
      status,
      watch: (push) => {
        listeners.add(push);
        return () => listeners.delete(push);
      },
    },
    providers: {
      list,
      set: (req) => {
        calls.push(`set ${req.providerId}`);
        openai = req;
        for (const l of listeners) l(status());
      },
      disable: (id) => {
        calls.push(`disable ${id}`);
        openai = undefined;
        for (const l of listeners) l(status());
      },
    },
  };
  return { def, calls, listeners };
}

describe.each([1, 2] as const)('auth status and providers over v%i', (v) => {
  it('advertises auth.status and providers only when the definition has them; -32601 otherwise', async () => {
    const on = await connectInProcess(routingAgent().def, { version: v, schema: 'unstable' });
    const off = await connectInProcess(
      { info: { name: 'plain', version: '1' }, prompt: async () => 'end_turn' },
      {
        version: v,
        schema: 'unstable',
      },
    );
    pairs.push(on, off);
    for (const m of ['auth/status', 'providers/list', 'providers/set', 'providers/disable'] as const) {
      expect(on.conn.supports(m), m).toBe(true);
      expect(off.conn.supports(m), m).toBe(false);
    }
    expect(on.conn.agentCapabilities).toMatchObject({ authStatus: true, providers: true });
    // the client refuses before sending, naming the capability
    await expect(off.conn.authStatus()).rejects.toThrow(/auth\.status capability/);
    await expect(off.conn.listProviders()).rejects.toThrow(/providers capability/);
    expect(off.wire.filter((e) => e.msg.method === 'auth/status')).toEqual([]);
    // the agent runtime answers -32601 to what it does not advertise
    const raw = off.conn.extRequest.bind(off.conn) as (m: string, p: unknown) => Promise<unknown>;
    await expect(raw('auth/status', {})).rejects.toMatchObject({ code: -32601 });
    await expect(raw('providers/list', {})).rejects.toMatchObject({ code: -32601 });
    on.tap.assertAllValid();
  });

  it('list, set and disable reach the definition; set pushes one auth/status_update, the client emits it', async () => {
    const agent = routingAgent();
    const p = await connectInProcess(agent.def, { version: v, schema: 'unstable' });
    pairs.push(p);
    const events: AuthStatus[] = [];
    p.conn.on('authStatus', (s) => events.push(s));
    expect(await p.conn.authStatus()).toEqual({ state: 'unauthenticated' });
    const before = await p.conn.listProviders();
    expect(before.map((x) => [x.providerId, x.required, x.current ?? null])).toEqual([
      ['main', true, { apiType: 'anthropic', baseUrl: 'http://127.0.0.1:1/' }],
      ['openai', false, null],
    ]);
    await p.conn.setProvider({
      providerId: 'openai',
      apiType: 'openai',
      baseUrl: 'http://127.0.0.1:2/v1',
      headers: { authorization: 'Bearer k' },
    });
    // the update was written before the set answer (the definition pushed it inside `set`)
    expect(events).toEqual([{ state: 'authenticated', accounts: [{ label: 'OpenAI API key', active: true }] }]);
    expect(p.conn.lastAuthStatus?.state).toBe('authenticated');
    expect((await p.conn.listProviders())[1]?.current).toEqual({ apiType: 'openai', baseUrl: 'http://127.0.0.1:2/v1' });
    // the same status again is not sent again on this connection
    for (const l of agent.listeners)
      l({ state: 'authenticated', accounts: [{ label: 'OpenAI API key', active: true }] });
    await p.conn.disableProvider('openai');
    expect(events.map((e) => e.state)).toEqual(['authenticated', 'unauthenticated']);
    expect(agent.calls).toEqual(['set openai', 'disable openai']);
    const updates = p.wire.filter((e) => e.msg.method === 'auth/status_update');
    expect(updates).toHaveLength(2);
    p.tap.assertAllValid();
    // checked against the unstable schema, not passed as unknown
    for (const m of ['auth/status', 'auth/status_update', 'providers/list', 'providers/set', 'providers/disable'])
      expect(p.tap.knownMethods.has(m), m).toBe(true);
  });

  it('the runtime refuses unknown providers, unsupported protocols and disabling a required one (-32602, the field named)', async () => {
    const agent = routingAgent();
    const p = await connectInProcess(agent.def, { version: v, schema: 'unstable' });
    pairs.push(p);
    const raw = p.conn.extRequest.bind(p.conn) as (m: string, q: unknown) => Promise<unknown>;
    await expect(
      raw('providers/set', { providerId: 'nope', apiType: 'openai', baseUrl: 'http://127.0.0.1:3/' }),
    ).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('params.providerId'),
    });
    await expect(
      raw('providers/set', { providerId: 'openai', apiType: 'bedrock', baseUrl: 'http://127.0.0.1:3/' }),
    ).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('params.apiType'),
    });
    await expect(raw('providers/disable', { providerId: 'main' })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('required'),
    });
    // malformed params: the codec names the field
    await expect(raw('providers/set', { providerId: 'openai', apiType: 'openai' })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('baseUrl'),
    });
    expect(agent.calls).toEqual([]);
    // the client refuses to disable a provider its last list said is required, before sending
    await p.conn.listProviders();
    await expect(p.conn.disableProvider('main')).rejects.toThrow(/required/);
    expect(
      p.wire.filter((e) => e.msg.method === 'providers/disable' && e.msg.params?.providerId === 'main'),
    ).toHaveLength(1);
  });

  it('sendAuthStatus pushes from the connection; the watch stops when the connection ends', async () => {
    const agent = routingAgent();
    const p = await connectInProcess(agent.def, { version: v, schema: 'unstable' });
    const seen = new Promise<AuthStatus>((resolve) => p.conn.on('authStatus', resolve));
    expect(p.agent.sendAuthStatus({ state: '_sso_pending' })).toBe(true);
    // a state the client does not know reads as `unknown`
    expect(await seen).toEqual({ state: 'unknown' });
    expect(p.agent.sendAuthStatus({ state: '_sso_pending' })).toBe(false);
    expect(agent.listeners.size).toBe(1);
    await p.close();
    expect(agent.listeners.size).toBe(0);
  });
});
