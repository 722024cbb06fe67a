// Reading the Rust SDK conductor's `.jsons` traces as captures. The fixture is written by hand after the
// format of agentclientprotocol/rust-sdk src/agent-client-protocol-conductor/src/trace.rs (TraceEvent:
// {type, ts (seconds), protocol, from, to, id, method, session?, params} / {type: "response", ts, from, to, id,
// is_error, payload}) and the component names of its tests/trace_snapshot.rs ("Client", "Proxy(0)", "Agent").
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { captureStats, readCapture } from '../src/proxy/index.js';

const BIN = fileURLToPath(new URL('../bin/acp-kit.js', import.meta.url));
const TRACE = fileURLToPath(new URL('./fixtures/proxy-conductor-trace.jsons', import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('Rust conductor traces (.jsons)', () => {
  it('maps events to frames: direction by position in the chain, seconds to ms, results and errors; MCP events and a torn last line are skipped', async () => {
    const c = await readCapture(TRACE);
    expect(c.header).toMatchObject({ format: 'acp-kit-capture', source: 'rust-conductor', agent: [] });
    expect(c.frames.map((f) => [f.seq, f.t, f.dir, f.kind, f.method ?? null, f.id ?? null])).toEqual([
      [1, 0, 'editor->agent', 'request', 'initialize', 'a1'],
      [2, 12.5, 'agent->editor', 'response', null, 'a1'],
      [3, 20, 'editor->agent', 'request', 'session/new', 'a2'],
      [4, 35, 'agent->editor', 'response', null, 'a2'],
      [5, 100, 'editor->agent', 'request', 'session/prompt', 'a3'],
      // Proxy(1) -> Proxy(0) travels towards the client
      [6, 150, 'agent->editor', 'notification', 'session/update', null],
      [7, 200, 'editor->agent', 'request', 'session/set_mode', 'a4'],
      [8, 210, 'agent->editor', 'error', null, 'a4'],
      [9, 400, 'agent->editor', 'response', null, 'a3'],
    ]);
    expect(JSON.parse(c.frames[0]!.raw)).toEqual({ jsonrpc: '2.0', id: 'a1', method: 'initialize', params: { clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false }, protocolVersion: 1 } });
    expect(JSON.parse(c.frames[7]!.raw)).toEqual({ jsonrpc: '2.0', id: 'a4', error: { code: -32601, message: 'Method not found' } });
    expect(JSON.parse(c.frames[8]!.raw)).toEqual({ jsonrpc: '2.0', id: 'a3', result: { stopReason: 'end_turn' } });
    expect(c.skipped).toEqual([
      { line: 6, reason: 'MCP-over-ACP request tools/call' },
      { line: 7, reason: 'MCP-over-ACP response' },
      { line: 12, reason: 'not JSON (torn line)' },
    ]);
    const s = await captureStats(c.frames);
    expect(s.protocolVersion).toBe(1);
    expect(s.turns).toEqual([{ sessionId: 's-1', promptSeq: 5, t: 100, timeToFirstChunkMs: 50, durationMs: 300, endSeq: 9, stopReason: 'end_turn' }]);
    expect(s.errors).toEqual([{ code: -32601, count: 1, message: 'Method not found', methods: ['session/set_mode'] }]);
  });

  it('older component names (client, proxy:0, agent) read the same; unknown components are skipped with the reason', async () => {
    const d = mkdtempSync(join(tmpdir(), 'acp-conductor-'));
    dirs.push(d);
    const p = join(d, 'old.jsons');
    writeFileSync(p, [
      { type: 'notification', ts: 1.5, protocol: 'acp', from: 'client', to: 'proxy:0', method: 'session/cancel', params: { sessionId: 's' } },
      { type: 'notification', ts: 2, protocol: 'acp', from: 'agent', to: 'proxy:3', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'plan', entries: [] } } },
      { type: 'notification', ts: 3, protocol: 'acp', from: 'editor', to: 'agent', method: 'x', params: null },
    ].map((l) => JSON.stringify(l)).join('\n') + '\n');
    const c = await readCapture(p);
    expect(c.frames.map((f) => [f.t, f.dir, f.method])).toEqual([[1500, 'editor->agent', 'session/cancel'], [2000, 'agent->editor', 'session/update']]);
    expect(c.skipped).toEqual([{ line: 3, reason: 'unknown components "editor" -> "agent"' }]);
  });

  it('acp-kit captures show and stats read a .jsons trace', () => {
    const show = spawnSync(process.execPath, [BIN, 'captures', 'show', TRACE], { encoding: 'utf8' });
    expect(show.status).toBe(0);
    expect(show.stdout).toMatch(/from rust-conductor/);
    expect(show.stdout).toMatch(/6 +0\.150s +agent -> editor +notification session\/update agent_message_chunk/);
    const stats = spawnSync(process.execPath, [BIN, 'stats', TRACE, '--json'], { encoding: 'utf8' });
    expect(stats.status).toBe(0);
    expect(JSON.parse(stats.stdout.split('\n')[0]!)).toMatchObject({ frames: 9, protocolVersion: 1, stopReasons: { end_turn: 1 } });
  });
});
