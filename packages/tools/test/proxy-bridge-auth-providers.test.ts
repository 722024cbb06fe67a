// The bridge carries the unstable auth/status, auth/status_update and providers/list|set|disable
// between versions (the same shapes in v1 and v2): acp-kit's client on one version, the built-in
// agent spawned for real on the other. The editor sees the agent's `auth.status` and `providers`
// markers in its own version, its providers/set routes the agent's next turn to a loopback fake
// LLM, and the agent's auth/status_update reaches the editor (before, the bridge dropped it as a
// notification "with no counterpart"). Every message on both legs matches the version's
// schema.unstable.json and the bridge's capture validator reports none.
import { afterEach, describe, expect, it } from 'vitest';
import type { AuthStatus } from '../../protocol/src/index.js';
import { startBridgedAgent, type BridgedAgent } from '../../../test/support/bridged-agent.js';
import { openai, startFakeLlm, type FakeLlm } from '../../../test/fixtures/coding-fake-llm.js';
import { tempDir } from '../../../test/support/temp.js';

const started: BridgedAgent[] = [];
const llms: FakeLlm[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((b) => b.stop()));
  await Promise.all(llms.splice(0).map((l) => l.close()));
});

describe.each([1, 2] as const)('bridge, v%i editor: auth status and providers', (editorVersion) => {
  it('auth/status, providers/list|set|disable and auth/status_update cross the bridge', async () => {
    const llm = await startFakeLlm();
    llms.push(llm);
    const b = await startBridgedAgent(editorVersion, { name: 'bridge-auth' });
    started.push(b);
    const { conn, bridge, agentVersion, editorTap, agentTap, violations } = b;
    expect(await bridge.route).toEqual({ kind: 'translate', editorVersion, agentVersion });
    expect(conn.agentCapabilities).toMatchObject({ authStatus: true, providers: true });
    const events: AuthStatus[] = [];
    conn.on('authStatus', (s) => events.push(s));

    expect(await conn.authStatus()).toEqual({ state: 'not_required' });
    expect((await conn.listProviders()).map((p) => p.providerId)).toEqual(['openai', 'anthropic']);
    await conn.setProvider({
      providerId: 'openai',
      apiType: 'openai',
      baseUrl: `${llm.url}/v1`,
      headers: { Authorization: 'Bearer sk-bridged' },
    });
    // the agent pushed the update before answering providers/set; the bridge kept the order
    expect(events).toEqual([{ state: 'authenticated', accounts: [{ label: 'OpenAI API key', active: true }] }]);
    llm.push({ steps: [openai.role(), openai.text('bridged answer'), openai.finish('stop'), openai.done()] });
    const s = await conn.newSession({ cwd: tempDir('bridge-auth-cwd-') });
    expect((await s.prompt('hello')).stopReason).toBe('end_turn');
    expect(llm.requests.map((r) => r.headers.authorization)).toEqual(['Bearer sk-bridged']);
    await conn.disableProvider('openai');
    expect(events.map((e) => e.state)).toEqual(['authenticated', 'not_required']);

    editorTap.assertAllValid();
    agentTap.assertAllValid();
    const carried = ['auth/status', 'auth/status_update', 'providers/list', 'providers/set', 'providers/disable'];
    expect(carried.filter((m) => !editorTap.knownMethods.has(m) || !agentTap.knownMethods.has(m))).toEqual([]);
    expect(violations).toEqual([]);
  }, 60_000);
});
