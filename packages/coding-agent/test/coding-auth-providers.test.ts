// The built-in agent's model providers through the unstable `providers/list`, `providers/set`,
// `providers/disable`, `auth/status` and `auth/status_update` (custom LLM endpoint RFD), with acp-kit's client in process, v1 and v2: on the demo model auth
// is not required; providers/set with a loopback base URL and a key makes the next turn go to
// that endpoint with that header, and the status turns `authenticated` (an auth/status_update);
// providers/disable sends turns back to the demo. An agent started on a provider reports whether
// its key is configured, and with every provider disabled a turn fails with a message naming
// providers/set.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuthStatus } from '../../protocol/src/index.js';
import { createCodingAgent, createDemoModel, ModelProviders, type LanguageModel } from '../src/index.js';
import { openai, startFakeLlm, type FakeLlm } from '../../../test/fixtures/coding-fake-llm.js';
import { connectInProcess, type InProcessPair } from '../../../test/support/in-process.js';
import { tempDir } from '../../../test/support/temp.js';

let llm: FakeLlm;
const pairs: InProcessPair[] = [];
beforeEach(async () => {
  llm = await startFakeLlm();
});
afterEach(async () => {
  await Promise.all(pairs.splice(0).map((p) => p.close()));
  await llm.close();
});

const answer = (text: string) => ({
  steps: [openai.role(), openai.text(text), openai.finish('stop'), openai.usage(10, 2), openai.done()],
});

function agentText(p: InProcessPair, sessionId: string): string {
  const s = p.conn.session(sessionId);
  return [...(s?.state.messages.values() ?? [])]
    .filter((m) => m.role === 'agent')
    .map((m) => m.text)
    .join('|');
}

describe.each([1, 2] as const)('coding agent providers over v%i', (v) => {
  it('providers/set routes new turns to the endpoint with its key; disable goes back to the demo', async () => {
    const demo = createDemoModel({ delayMs: 0 });
    const agent = createCodingAgent({ providers: new ModelProviders({ model: demo }) });
    const p = await connectInProcess(agent, { version: v, schema: 'unstable' });
    pairs.push(p);
    const events: AuthStatus[] = [];
    p.conn.on('authStatus', (s) => events.push(s));
    expect(await p.conn.authStatus()).toEqual({ state: 'not_required' });
    expect((await p.conn.listProviders()).map((x) => [x.providerId, x.supported, x.required, x.current])).toEqual([
      ['openai', ['openai'], false, null],
      ['anthropic', ['anthropic'], false, null],
    ]);
    const s = await p.conn.newSession({ cwd: tempDir('coding-providers-') });
    await s.prompt('list files');
    expect(llm.requests).toHaveLength(0);

    await p.conn.setProvider({
      providerId: 'openai',
      apiType: 'openai',
      baseUrl: `${llm.url}/v1`,
      headers: { Authorization: 'Bearer sk-from-client', 'X-Route': 'editor' },
    });
    expect(events).toEqual([{ state: 'authenticated', accounts: [{ label: 'OpenAI API key', active: true }] }]);
    expect((await p.conn.listProviders())[0]?.current).toEqual({ apiType: 'openai', baseUrl: `${llm.url}/v1` });
    llm.push(answer('from the endpoint'));
    expect((await s.prompt('hello')).stopReason).toBe('end_turn');
    expect(llm.requests).toHaveLength(1);
    expect(llm.requests[0]?.url).toBe('/v1/chat/completions');
    expect(llm.requests[0]?.headers.authorization).toBe('Bearer sk-from-client');
    expect(llm.requests[0]?.headers['x-route']).toBe('editor');
    expect(agentText(p, s.sessionId)).toContain('from the endpoint');

    await p.conn.disableProvider('openai');
    expect(events.map((e) => e.state)).toEqual(['authenticated', 'not_required']);
    await s.prompt('list files');
    expect(llm.requests).toHaveLength(1);
    p.tap.assertAllValid();
    // each was on the wire and checked against schema.unstable.json
    for (const m of ['auth/status', 'auth/status_update', 'providers/list', 'providers/set', 'providers/disable'])
      expect(p.tap.knownMethods.has(m), m).toBe(true);
  });

  it('a providers/set while a turn runs leaves that turn on its model; the next turn uses the new endpoint', async () => {
    // a starting model whose first step waits until released (the set lands while the turn runs)
    // and calls a tool, so the turn needs a second model request after the set
    let steps = 0;
    let started!: () => void;
    const inTurn = new Promise<void>((r) => (started = r));
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const gated: LanguageModel = {
      id: 'gated',
      async *stream() {
        if (++steps === 1) {
          started();
          await released;
          yield { type: 'tool_call', toolCallId: 'c1', toolName: 'list_files', input: {} };
          yield { type: 'finish', reason: 'tool_calls' };
          return;
        }
        yield { type: 'text_delta', text: 'from the starting model' };
        yield { type: 'finish', reason: 'stop' };
      },
    };
    const p = await connectInProcess(createCodingAgent({ providers: new ModelProviders({ model: gated }) }), {
      version: v,
      schema: 'unstable',
    });
    pairs.push(p);
    const s = await p.conn.newSession({ cwd: tempDir('coding-providers-') });
    const first = s.prompt('hello');
    await inTurn;
    await p.conn.setProvider({ providerId: 'openai', apiType: 'openai', baseUrl: `${llm.url}/v1` });
    release();
    expect((await first).stopReason).toBe('end_turn');
    // both requests of the running turn went to the model it started with
    expect(steps).toBe(2);
    expect(llm.requests).toHaveLength(0);
    expect(agentText(p, s.sessionId)).toContain('from the starting model');
    llm.push(answer('from the endpoint'));
    await s.prompt('again');
    expect(llm.requests).toHaveLength(1);
    // no key in the headers: the endpoint is used, and the status says no key is configured
    expect(await p.conn.authStatus()).toEqual({ state: 'unauthenticated' });
  });

  it('started on a provider without a key: unauthenticated; all disabled: the turn fails naming providers/set', async () => {
    const started = createDemoModel({ delayMs: 0 });
    const providers = new ModelProviders({
      model: started,
      startedOn: { providerId: 'anthropic', route: { baseUrl: `${llm.url}/anthropic` } },
    });
    const p = await connectInProcess(createCodingAgent({ providers }), { version: v, schema: 'unstable' });
    pairs.push(p);
    expect(await p.conn.authStatus()).toEqual({ state: 'unauthenticated' });
    expect((await p.conn.listProviders())[1]?.current).toEqual({
      apiType: 'anthropic',
      baseUrl: `${llm.url}/anthropic`,
    });
    await p.conn.disableProvider('anthropic');
    const s = await p.conn.newSession({ cwd: tempDir('coding-providers-') });
    const r = await s.prompt('hello').then(
      (res) => res.error?.message ?? `no error: ${res.stopReason}`,
      (e: Error) => e.message,
    );
    expect(r).toContain('providers/set');
    expect(llm.requests).toHaveLength(0);
  });
});
