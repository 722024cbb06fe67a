// runAgentOnStdio and the v1 client services, over real pipes.
import { afterEach, describe, expect, it } from 'vitest';
import { waitUntil } from '../../../test/support/process.js';
import {
  agentText,
  initParams,
  openSession,
  promptTurn,
  sleep,
  startAgent,
  text,
  type Harness,
} from '../../../test/support/agent-harness.js';

let h: Harness | undefined;
afterEach(async () => {
  const last = h;
  h = undefined;
  await last?.close();
  last?.assertAgentMessagesValid();
});

describe('runAgentOnStdio', () => {
  it('keeps stdout for protocol messages only: console output goes to stderr', async () => {
    h = startAgent({ process: true });
    const sessionId = await openSession(h, 2);
    await h.request('session/prompt', { sessionId, prompt: text('log') });
    await h.waitFor((m) => m.params?.update?.state === 'idle');
    // stderr is another pipe: what the agent wrote there before idle may be read after it (a hang guard, not a sleep)
    await waitUntil(() => h!.stderr().includes('console.info noise'), 20_000, 'the console output on stderr');
    expect(h.stderr()).toContain('console.log noise');
    expect(h.stderr()).toContain('console.info noise');
    // the client's peer reports non-JSON lines as problems; every received message parsed
    expect(JSON.stringify(h.received)).not.toContain('noise');
    expect(agentText(h.updates(sessionId))).toBe('logged');
  });

  it('exits 0 when stdin closes, even mid-turn', async () => {
    h = startAgent({ process: true });
    const sessionId = await openSession(h, 1);
    void h.request('session/prompt', { sessionId, prompt: text('stream 100000 5') }).catch(() => undefined);
    await h.waitFor((m) => m.method === 'session/update');
    h.agent.process.stdin!.end();
    const exit = await Promise.race([h.agent.exited, sleep(4000).then(() => 'timeout' as const)]);
    expect(exit).toEqual({ exitCode: 0, signal: null });
  });
});

describe('v1 client services (ACP-V1-FS-01, ACP-V1-TERM-01)', () => {
  it('uses fs/* and terminal/* only when the client advertised them', async () => {
    h = startAgent({ process: true });
    const files = new Map<string, string>();
    const calls: string[] = [];
    h.peer.onRequest('fs/write_text_file', (p: any) => (calls.push('write'), files.set(p.path, p.content), {}));
    h.peer.onRequest(
      'fs/read_text_file',
      (p: any) => (calls.push(`read ${p.line} ${p.limit}`), { content: files.get(p.path) ?? '' }),
    );
    h.peer.onRequest(
      'terminal/create',
      (p: any) => (calls.push(`create ${p.command} ${p.args.join(' ')} ${p.cwd}`), { terminalId: 'term-1' }),
    );
    h.peer.onRequest('terminal/wait_for_exit', () => (calls.push('wait'), { exitCode: 0, signal: null }));
    h.peer.onRequest(
      'terminal/output',
      () => (calls.push('output'), { output: 'hi\n', truncated: false, exitStatus: { exitCode: 0, signal: null } }),
    );
    h.peer.onRequest('terminal/release', () => (calls.push('release'), {}));
    await h.request('initialize', initParams(1, { fs: { readTextFile: true, writeTextFile: true }, terminal: true }));
    const { sessionId } = await h.request('session/new', { cwd: '/tmp', mcpServers: [] });
    await h.request('session/prompt', { sessionId, prompt: text('services') });
    expect(agentText(h.updates(sessionId))).toBe(
      'services: readTextFile,writeTextFile,createTerminal;read: written;terminal term-1: hi exit 0;',
    );
    expect(calls).toEqual(['write', 'read 1 5', 'create echo hi /tmp', 'wait', 'output', 'release']);
  });

  it('offers no services to a v1 client without the capabilities, nor to any v2 client', async () => {
    for (const v of [1, 2] as const) {
      const hh = startAgent({ process: true });
      const sessionId = await openSession(hh, v);
      await promptTurn(hh, sessionId, text('services'));
      expect(agentText(hh.updates(sessionId))).toBe('services: none;');
      expect(hh.received.some((m) => m.method?.startsWith('fs/') || m.method?.startsWith('terminal/'))).toBe(false);
      await hh.close();
      hh.assertAgentMessagesValid();
    }
  });
});
