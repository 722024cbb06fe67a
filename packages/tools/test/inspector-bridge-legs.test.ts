// A bridge capture (acp-kit proxy --bridge --record) holds both legs: the inspector shows each as
// a source of its own, decoded and validated with that leg's protocol version.
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startInspector, type InspectorHandle, type SessionView } from '../src/inspector/index.js';
import type { CaptureFrame } from '../src/proxy/index.js';
import { A2E, E2A, frames, rpc, writeCaptureFile } from '../../../test/support/capture-builder.js';
import { httpGet } from '../../../test/support/http.js';
import { tempDir } from '../../../test/support/temp.js';

const handles: InspectorHandle[] = [];
afterEach(async () => {
  for (const h of handles.splice(0)) await h.close();
});

const get = async (port: number, path: string): Promise<string> => (await httpGet(port, path)).body;

/** A v2 editor in front of a v1 agent: the same turn on both legs, interleaved as the bridge records it. */
function bridgeCapture(): CaptureFrame[] {
  const editor = frames([
    [0, E2A, rpc.req(0, 'initialize', { protocolVersion: 2, info: { name: 'ed', version: '1' }, capabilities: {} })],
    [
      2,
      A2E,
      rpc.ok(0, { protocolVersion: 2, info: { name: 'bridge', version: '1' }, capabilities: {}, authMethods: [] }),
    ],
    [3, E2A, rpc.req(1, 'session/new', { cwd: '/w', mcpServers: [] })],
    [5, A2E, rpc.ok(1, { sessionId: 's1' })],
    [6, E2A, rpc.req(2, 'session/prompt', { sessionId: 's1', prompt: [{ type: 'text', text: 'go' }] })],
    [7, A2E, rpc.ok(2, { messageId: 'u1' })],
    [
      9,
      A2E,
      rpc.update('s1', {
        sessionUpdate: 'agent_message_chunk',
        messageId: 'm1',
        content: { type: 'text', text: 'hi from v2' },
      }),
    ],
  ]).map((f): CaptureFrame => ({ ...f, side: 'editor' }));
  const agent = frames([
    [1, E2A, rpc.req(0, 'initialize', { protocolVersion: 1, clientCapabilities: {} })],
    [1.5, A2E, rpc.ok(0, { protocolVersion: 1, agentCapabilities: {}, authMethods: [] })],
    [4, E2A, rpc.req(1, 'session/new', { cwd: '/w', mcpServers: [] })],
    [4.5, A2E, rpc.ok(1, { sessionId: 's1' })],
    [6.5, E2A, rpc.req(2, 'session/prompt', { sessionId: 's1', prompt: [{ type: 'text', text: 'go' }] })],
    // v1: no messageId (a v2 reading would call it a violation)
    [8, A2E, rpc.update('s1', { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi from v1' } })],
    [10, A2E, rpc.ok(2, { stopReason: 'end_turn' })],
  ]).map((f): CaptureFrame => ({ ...f, side: 'agent' }));
  return [...editor, ...agent].sort((a, b) => a.t - b.t).map((f, i) => ({ ...f, seq: i + 1 }));
}

it('a bridge capture is two sources, the editor leg (v2) and the agent leg (v1), each decoded and validated with its own version', async () => {
  const dir = tempDir('acp-inspector-bridge-');
  const cap = join(dir, 'bridge.ndjson');
  writeCaptureFile(cap, bridgeCapture());
  const h = await startInspector({ captures: [cap], listLive: false });
  handles.push(h);
  const base = `/${h.token}/`;
  let sources: Array<{ id: string; name: string; frames: number; finished: boolean }> = [];
  // the agent leg is registered once the file is read: ask until it is listed (a hang guard of 20 s)
  const until = Date.now() + 20_000;
  while (
    (sources = (JSON.parse(await get(h.port, `${base}api/sources`)) as { sources: typeof sources }).sources).filter(
      (x) => x.finished,
    ).length < 2 &&
    Date.now() < until
  ) {
    await new Promise((r) => setTimeout(r, 20));
  }
  expect(sources.map((s) => [s.id, s.frames])).toEqual([
    ['c0', 7],
    ['c0-agent', 7],
  ]);
  expect(sources[1]!.name).toMatch(/agent leg/);

  // the session view of each leg holds that leg's agent message only
  const items = async (id: string): Promise<string> => {
    const { sessions } = JSON.parse(await get(h.port, `${base}api/s/${id}/sessions`)) as { sessions: SessionView[] };
    expect(sessions.map((s) => s.sessionId)).toEqual(['s1']);
    return JSON.stringify(sessions[0]!.items);
  };
  const editorItems = await items('c0');
  const agentItems = await items('c0-agent');
  expect([editorItems.includes('hi from v2'), editorItems.includes('hi from v1')]).toEqual([true, false]);
  expect([agentItems.includes('hi from v1'), agentItems.includes('hi from v2')]).toEqual([true, false]);
  for (const id of ['c0', 'c0-agent']) {
    const { violations } = JSON.parse(await get(h.port, `${base}api/s/${id}/violations`)) as { violations: unknown[] };
    expect(violations, id).toEqual([]);
  }
});
