// Corrupt session stores say what is wrong (file and line), and a replay never puts an invalid
// stored update on the wire nor stops half-way.
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JsonlSessionStore, type AgentDefinition, type AgentLogger } from '../src/index.js';
import type { StoreProblem } from '../src/jsonl-session-store.js';
import { initParams, tempDataDir } from '../../../test/support/agent-harness.js';
import { serveRawPeer } from '../../../test/support/in-process.js';

const agent: AgentDefinition = { info: { name: 'quiet', version: '0' }, prompt: async () => 'end_turn' };

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function setup(version: 1 | 2) {
  const root = tempDataDir();
  const dir = join(root, 'sessions');
  mkdirSync(dir, { recursive: true });
  const problems: StoreProblem[] = [];
  const warnings: string[] = [];
  const logger: AgentLogger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (m) => warnings.push(m),
    error: (m) => warnings.push(m),
  };
  const store = new JsonlSessionStore({ dir, onProblem: (p) => problems.push(p) });
  const pair = serveRawPeer(agent, version, { store, logger });
  cleanups.push(async () => {
    await pair.close();
    store.close();
    rmSync(root, { recursive: true, force: true });
  });
  return { dir, store, problems, warnings, client: pair.client, updates: pair.updates, tap: pair.tap };
}

const header = (sessionId: string) =>
  JSON.stringify({
    acpKitSession: 1,
    sessionId,
    cwd: '/tmp',
    additionalDirectories: [],
    createdAt: '2026-01-01T00:00:00.000Z',
    title: 'T',
  });
const chunk = (id: string, text: string) =>
  JSON.stringify({ sessionUpdate: 'agent_message_chunk', messageId: id, content: { type: 'text', text } });

describe.each([1, 2] as const)('corrupt stores (v%i)', (version) => {
  it('a broken header: restore says the file and line is corrupt (not "not found"); list leaves it out and reports it once', async () => {
    const t = setup(version);
    const file = join(t.dir, 'sess_broken.jsonl');
    writeFileSync(file, '{"acpKitSession":1,"sessionId":"sess_broken","cwd":\n' + chunk('m1', 'x') + '\n');
    writeFileSync(join(t.dir, 'sess_good.jsonl'), header('sess_good') + '\n');
    await t.client.request('initialize', initParams(version));
    const e = await t.client
      .request(version === 1 ? 'session/load' : 'session/resume', {
        sessionId: 'sess_broken',
        cwd: '/tmp',
        mcpServers: [],
      })
      .catch((x) => x);
    expect(e.code).toBe(-32603);
    expect(e.message).toContain(`session sess_broken is stored corrupt: ${file}:1: the header line is not valid JSON`);
    expect(e.data).toMatchObject({ sessionId: 'sess_broken', file, line: 1 });
    for (let i = 0; i < 2; i++) {
      const list = await t.client.request<any>('session/list', {});
      expect(list.sessions.map((s: any) => s.sessionId)).toEqual(['sess_good']);
    }
    expect(t.problems).toEqual([
      {
        file,
        line: 1,
        message: expect.stringMatching(/^the header line is not valid JSON .*; the session is not listed/),
      },
    ]);
    t.tap.assertAllValid();
  });

  it('stored updates with an invalid body, a non-JSON line and a line nested too deep are dropped with a report naming file:line; the rest replays', async () => {
    const t = setup(version);
    const file = join(t.dir, 'sess_mixed.jsonl');
    const deep = 100_000;
    const deepLine = `{"sessionUpdate":"agent_message_chunk","messageId":"m4","content":{"type":"text","text":"deep"},"_meta":${'{"a":'.repeat(deep)}1${'}'.repeat(deep)}}`;
    writeFileSync(file, header('sess_mixed') + '\n');
    appendFileSync(file, chunk('m1', 'one') + '\n'); // line 2
    appendFileSync(file, JSON.stringify({ sessionUpdate: 'agent_message_chunk', messageId: 'm2', content: 42 }) + '\n'); // line 3: invalid body
    appendFileSync(file, '{"sessionUpdate": nope\n'); // line 4: not JSON
    appendFileSync(file, deepLine + '\n'); // line 5: too deep to send
    appendFileSync(file, chunk('m3', 'three') + '\n'); // line 6
    await t.client.request('initialize', initParams(version));
    if (version === 1) await t.client.request('session/load', { sessionId: 'sess_mixed', cwd: '/tmp', mcpServers: [] });
    else
      await t.client.request('session/resume', { sessionId: 'sess_mixed', cwd: '/tmp', replayFrom: { type: 'start' } });
    const texts = t.updates.filter((u) => u.sessionUpdate === 'agent_message_chunk').map((u) => u.content.text);
    expect(texts).toEqual(['one', 'three']);
    expect(t.warnings.filter((w) => w.includes(`${file}:3 dropped from the replay`))).toEqual([
      expect.stringMatching(/invalid agent_message_chunk|cannot be encoded/),
    ]);
    expect(t.warnings.some((w) => w.includes(`${file}:5 dropped from the replay`))).toBe(true);
    expect(t.problems).toContainEqual({ file, line: 4, message: expect.stringMatching(/^not valid JSON/) });
    t.tap.assertAllValid();
  });
});
