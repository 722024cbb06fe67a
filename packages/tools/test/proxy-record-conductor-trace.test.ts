// Reading the Rust SDK conductor's `.jsons` traces as captures, with the traces of the rust-sdk's own snapshot tests
// (test/fixtures/rust-conductor, see its README): a real client, proxy chain and test agent, events as the
// conductor's EventWriter writes them.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { captureStats, readCapture } from '../src/proxy/index.js';

const BIN = fileURLToPath(new URL('../../../bin/acp-kit.js', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/rust-conductor/', import.meta.url));
const TRACE = join(FIXTURES, 'trace_snapshot.jsons');
const MCP_TRACE = join(FIXTURES, 'trace_mcp_tool_call.jsons');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('Rust conductor traces (.jsons)', () => {
  it('maps events to frames: direction by position in the chain, _proxy/initialize as initialize, results; a torn last line is skipped', async () => {
    const d = mkdtempSync(join(tmpdir(), 'acp-conductor-'));
    dirs.push(d);
    const torn = join(d, 'torn.jsons');
    const text = readFileSync(TRACE, 'utf8');
    // a conductor killed while writing its last event
    writeFileSync(torn, text + text.split('\n')[0]!.slice(0, 60));
    const c = await readCapture(torn);
    expect(c.header).toMatchObject({ format: 'acp-kit-capture', source: 'rust-conductor', agent: [] });
    expect(c.frames.map((f) => [f.seq, f.t, f.dir, f.kind, f.method ?? null, f.id ?? null])).toEqual([
      [1, 0, 'editor->agent', 'request', 'initialize', 'id:0'],
      [2, 0, 'agent->editor', 'response', null, 'id:0'],
      [3, 0, 'editor->agent', 'request', 'session/new', 'id:1'],
      [4, 0, 'agent->editor', 'response', null, 'id:1'],
      [5, 0, 'editor->agent', 'request', 'session/prompt', 'id:2'],
      // Proxy(1) -> Proxy(0) travels towards the client
      [6, 0, 'agent->editor', 'notification', 'session/update', null],
      [7, 0, 'agent->editor', 'response', null, 'id:2'],
    ]);
    expect(JSON.parse(c.frames[0]!.raw)).toEqual({
      jsonrpc: '2.0',
      id: 'id:0',
      method: 'initialize',
      params: {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      },
    });
    expect(JSON.parse(c.frames[6]!.raw)).toEqual({ jsonrpc: '2.0', id: 'id:2', result: { stopReason: 'end_turn' } });
    expect(c.skipped).toEqual([{ line: 8, reason: 'not JSON (torn line)' }]);
    const s = await captureStats(c.frames);
    expect(s.protocolVersion).toBe(1);
    expect(s.turns).toEqual([
      {
        sessionId: 'session:0',
        promptSeq: 5,
        t: 0,
        timeToFirstChunkMs: 0,
        durationMs: 0,
        endSeq: 7,
        stopReason: 'end_turn',
      },
    ]);
  });

  it('MCP-over-ACP events and their answers are skipped with the reason, the ACP ones of every hop are frames', async () => {
    const c = await readCapture(MCP_TRACE);
    expect(c.skipped).toEqual([
      { line: 13, reason: 'MCP-over-ACP request initialize' },
      { line: 14, reason: 'MCP-over-ACP response' },
      { line: 15, reason: 'MCP-over-ACP notification notifications/initialized' },
      { line: 16, reason: 'MCP-over-ACP request tools/call' },
      { line: 17, reason: 'MCP-over-ACP response' },
    ]);
    expect(c.frames).toHaveLength(readFileSync(MCP_TRACE, 'utf8').trim().split('\n').length - 5);
    // the proxy's mcp/connect (an ACP request from Proxy(1) to Proxy(0)) and its answer
    expect(c.frames.filter((f) => f.id === 'id:4').map((f) => [f.dir, f.kind, f.method ?? null])).toEqual([
      ['agent->editor', 'request', 'mcp/connect'],
      ['editor->agent', 'response', null],
    ]);
  });

  it('diff compares hop by hop: the same trace with its hops interleaved otherwise is equal, a changed answer on one hop is named with its hop', () => {
    const d = mkdtempSync(join(tmpdir(), 'acp-conductor-'));
    dirs.push(d);
    const lines = readFileSync(MCP_TRACE, 'utf8').trim().split('\n');
    // the first hop's events first, then the rest: each hop keeps its own order
    const first = lines.filter((l) => /"(from|to)":"Client"/.test(l));
    const moved = join(d, 'moved.jsons');
    writeFileSync(moved, [...first, ...lines.filter((l) => !first.includes(l))].join('\n') + '\n');
    const same = spawnSync(process.execPath, [BIN, 'diff', MCP_TRACE, moved, '--json'], { encoding: 'utf8' });
    expect(
      same.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .filter((x) => x.type === 'diff')
        .map((x) => [x.hop, x.equal]),
    ).toEqual([
      ['Client-Proxy(0)', true],
      ['Proxy(0)-Proxy(1)', true],
      ['Proxy(1)-Proxy(2)', true],
    ]);
    expect(same.status).toBe(0);
    const changed = join(d, 'changed.jsons');
    writeFileSync(
      changed,
      lines.map((l, i) => (i === lines.length - 1 ? l.replace('end_turn', 'cancelled') : l)).join('\n') + '\n',
    );
    const diff = spawnSync(process.execPath, [BIN, 'diff', MCP_TRACE, changed, '--json'], { encoding: 'utf8' });
    expect(
      diff.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .filter((x) => x.type === 'diff')
        .map((x) => [x.hop, x.equal]),
    ).toEqual([
      ['Client-Proxy(0)', false],
      ['Proxy(0)-Proxy(1)', true],
      ['Proxy(1)-Proxy(2)', true],
    ]);
    expect(diff.status).toBe(1);
  });

  it('older component names (client, proxy:0, agent) read the same; unknown components are skipped with the reason', async () => {
    const d = mkdtempSync(join(tmpdir(), 'acp-conductor-'));
    dirs.push(d);
    const p = join(d, 'old.jsons');
    writeFileSync(
      p,
      [
        {
          type: 'notification',
          ts: 1.5,
          protocol: 'acp',
          from: 'client',
          to: 'proxy:0',
          method: 'session/cancel',
          params: { sessionId: 's' },
        },
        {
          type: 'notification',
          ts: 2,
          protocol: 'acp',
          from: 'agent',
          to: 'proxy:3',
          method: 'session/update',
          params: { sessionId: 's', update: { sessionUpdate: 'plan', entries: [] } },
        },
        { type: 'notification', ts: 3, protocol: 'acp', from: 'editor', to: 'agent', method: 'x', params: null },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n') + '\n',
    );
    const c = await readCapture(p);
    expect(c.frames.map((f) => [f.t, f.dir, f.method])).toEqual([
      [1500, 'editor->agent', 'session/cancel'],
      [2000, 'agent->editor', 'session/update'],
    ]);
    expect(c.skipped).toEqual([{ line: 3, reason: 'unknown components "editor" -> "agent"' }]);
  });

  it('acp-kit captures show, stats and validate read a .jsons trace', () => {
    const validate = spawnSync(process.execPath, [BIN, 'validate', TRACE], { encoding: 'utf8' });
    expect(validate.stdout).toBe('7 frames, protocol v1: no violations\n');
    expect(validate.status).toBe(0);
    const show = spawnSync(process.execPath, [BIN, 'captures', 'show', TRACE], { encoding: 'utf8' });
    expect(show.status).toBe(0);
    expect(show.stdout).toMatch(/from rust-conductor/);
    expect(show.stdout).toMatch(
      /6 +0\.000s +\[hop Proxy\(0\)-Proxy\(1\)\] agent -> editor +notification session\/update agent_message_chunk/,
    );
    const stats = spawnSync(process.execPath, [BIN, 'stats', TRACE, '--json'], { encoding: 'utf8' });
    expect(stats.status).toBe(0);
    // one stats line per hop: the client's hop holds the turn, the next one the update the conductor traced there
    const hops = stats.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((l) => l.type === 'stats');
    expect(hops.map((h) => [h.hop, h.frames])).toEqual([
      ['Client-Proxy(0)', 6],
      ['Proxy(0)-Proxy(1)', 1],
    ]);
    expect(hops[0]).toMatchObject({ protocolVersion: 1, stopReasons: { end_turn: 1 } });
  });

  it("a message traced once per hop (new ids each hop) is judged hop by hop: no false ACP-V1-PROMPT-03 on the rust-sdk's own traces, nothing counted twice", () => {
    const violations = (file: string): string[] => {
      const r = spawnSync(process.execPath, [BIN, 'validate', join(FIXTURES, file), '--json'], { encoding: 'utf8' });
      return r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .filter((l) => l.type === 'violation')
        .map((v) => `${v.hop ?? ''} ${v.requirement} ${v.message}`);
    };
    expect(violations('trace_snapshot.jsons')).toEqual([]);
    // an MCP server of type "acp" (MCP-over-ACP, which these traces carry) exists only in the unstable
    // schema; the validator judges such an entry by the unstable McpServer, as it judges newer update
    // kinds, so the rust-sdk's MCP traces draw no violation either
    expect(violations('trace_mcp_tool_call.jsons')).toEqual([]);
    expect(violations('trace_client_mcp_server.jsons')).toEqual([]);
    const stats = spawnSync(process.execPath, [BIN, 'stats', MCP_TRACE, '--json'], { encoding: 'utf8' });
    expect(stats.status).toBe(0);
    const perHop = stats.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((l) => l.type === 'stats');
    const count = (
      h: { methods: Array<{ method: string; requests: number; notifications: number }> },
      m: string,
    ): number => h.methods.filter((x) => x.method === m).reduce((a, x) => a + x.requests + x.notifications, 0);
    expect(
      perHop.map((h) => [h.hop, count(h, 'session/prompt'), count(h, 'session/update'), count(h, 'initialize')]),
    ).toEqual([
      ['Client-Proxy(0)', 1, 0, 1],
      ['Proxy(0)-Proxy(1)', 1, 1, 1],
      ['Proxy(1)-Proxy(2)', 0, 1, 0],
    ]);
  });
});
