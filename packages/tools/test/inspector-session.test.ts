/**
 * The inspector's session view: frames decoded through the v1/v2 codecs into the neutral model,
 * with the frames that built each item; replay to any frame; latency; schema marks. Real captures
 * of the built-in agent recorded by `acp-kit proxy --record` (needs `npm run build`).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClientConnection } from '../../client/src/index.js';
import { loadCapture, type SessionView } from '../src/inspector/index.js';
import { recordTurn } from '../../../test/support/inspector.js';
import { tempDir } from '../../../test/support/temp.js';

const conns: ClientConnection[] = [];
afterEach(async () => {
  for (const c of conns.splice(0)) await c.close().catch(() => undefined);
});

const PROMPT = 'create notes.txt containing hello inspector';
const dirs: string[] = [];
/** The agent's text names its working directory: one per capture. */
const anon = (s: string) => dirs.reduce((acc, d) => acc.split(d).join('<cwd>'), s);

const recordings = new Map<1 | 2, Promise<string>>();
/**
 * The capture of one turn per protocol version for the whole file (a proxy and an agent process each):
 * the tests only read it.
 */
function record(protocol: 1 | 2): Promise<string> {
  let r = recordings.get(protocol);
  if (!r) {
    const dir = tempDir('acp-inspector-session-');
    dirs.push(dir);
    recordings.set(protocol, (r = recordTurn(dir, protocol, PROMPT, conns)));
  }
  return r;
}

type Item = SessionView['items'][number] & Record<string, unknown>;
const text = (it: Item) =>
  ((it.content as Array<{ type: string; text?: string }>) ?? []).map((b) => b.text ?? `[${b.type}]`).join('');

/** What the editor should show, without ids (v1 has none, the decoder mints them). */
function shown(v: SessionView): unknown[] {
  return v.items.map((it0) => {
    const it = it0 as Item;
    if (it.kind === 'message') return { message: it.role, text: anon(text(it)) };
    if (it.kind === 'tool_call') {
      // v1 carries a whole-text diff, v2 a structured change list with a patch: the same edit
      const content = (it.content as Array<Record<string, unknown>>).map((c) =>
        c.type === 'diff'
          ? { edit: String(c.path).split('/').pop() }
          : c.type === 'file_changes'
            ? {
                edit: String((c.changes as Array<{ path: string }>)[0]!.path)
                  .split('/')
                  .pop(),
              }
            : c.type,
      );
      return { tool: it.title, status: it.status, toolKind: it.toolKind, content };
    }
    if (it.kind === 'permission')
      return {
        permission: it.outcome,
        chosen: (it.options as Array<{ optionId: string; name: string }>).find((o) => o.optionId === it.optionId)?.name,
      };
    if (it.kind === 'plan') return { plan: (it.plan as { entries: unknown[] }).entries.length };
    return { other: it.kind };
  });
}

describe('inspector session view', () => {
  it('a v1 and a v2 capture of the same turn show the same conversation, each item linked to the frames that built it', async () => {
    const [c1, c2] = await Promise.all([record(1), record(2)]);
    const m1 = await loadCapture(c1);
    const m2 = await loadCapture(c2);
    const [v1] = m1.sessionViews();
    const [v2] = m2.sessionViews();
    expect(v1!.protocolVersion).toBe(1);
    expect(v2!.protocolVersion).toBe(2);
    const s1 = shown(v1!);
    expect(s1).toEqual(shown(v2!));
    // what the turn was: the prompt, a tool call with its diff and the permission it needed, answered
    expect(s1).toContainEqual({ message: 'user', text: PROMPT });
    const tool = s1.find((x) => (x as { tool?: unknown }).tool !== undefined) as { status: string; content: unknown[] };
    expect(tool.status).toBe('completed');
    expect(tool.content).toEqual([{ edit: 'notes.txt' }]);
    const v1tool = v1!.items.find((i) => i.kind === 'tool_call') as Item;
    expect(v1tool.content).toEqual([
      expect.objectContaining({ type: 'diff', oldText: null, newText: 'hello inspector\n' }),
    ]);
    const v2tool = v2!.items.find((i) => i.kind === 'tool_call') as Item;
    expect(JSON.stringify(v2tool.content)).toContain('+hello inspector');
    expect(s1.find((x) => (x as { permission?: unknown }).permission !== undefined)).toMatchObject({
      permission: 'selected',
    });
    expect(s1.filter((x) => (x as { message?: string }).message === 'agent').length).toBeGreaterThan(0);
    for (const [m, v] of [
      [m1, v1!],
      [m2, v2!],
    ] as const) {
      // foreground over time: v1 derived from the prompt request/response; v2 as reported (waiting on the permission)
      expect(v.foreground.map((f) => f.state)).toEqual(
        v.protocolVersion === 1 ? ['running', 'idle'] : ['running', 'requires_action', 'running', 'idle'],
      );
      expect(v.foreground.at(-1)!.stopReason).toBe('end_turn');
      for (const it of v.items) {
        expect(it.seqs.length, it.key).toBeGreaterThan(0);
        for (const seq of it.seqs) {
          // every frame of an item belongs to this session (or answers a request of it)
          const f = m.frames.find((x) => x.seq === seq)!;
          const row = m.rows.find((r) => r[0] === seq)!;
          expect(m.strings[row[7]], `${it.key} seq ${seq}: ${f.raw.slice(0, 80)}`).toBe(v.sessionId);
        }
      }
      // the tool call's frames include its permission request and answer
      const tc = v.items.find((i) => i.kind === 'tool_call')!;
      const methods = tc.seqs.map((s) => m.frames.find((f) => f.seq === s)!.method);
      expect(methods).toContain('session/request_permission');
      expect(methods).toContain('session/update');
    }
  });

  it('replay: the session rebuilt up to a frame holds exactly what had arrived by then', async () => {
    const m = await loadCapture(await record(2));
    const prompt = m.frames.find((f) => f.method === 'session/prompt')!;
    const before = m.sessionViews(prompt.seq - 1)[0]!;
    expect(before.items.filter((i) => i.kind === 'tool_call')).toEqual([]);
    expect(before.foreground).toEqual([]);
    const firstTool = m.frames.find((f) => f.raw.includes('"tool_call'))!;
    const mid = m.sessionViews(firstTool.seq)[0]!;
    const midTool = mid.items.find((i) => i.kind === 'tool_call') as Item;
    expect(midTool).toBeDefined();
    expect(midTool.status).not.toBe('completed');
    expect(mid.foreground.at(-1)!.state).not.toBe('idle');
    const end = m.sessionViews(m.frames.at(-1)!.seq)[0]!;
    expect(end).toEqual(m.sessionViews()[0]);
  });

  it('latency: requests paired with their answers, per-method count/p50/p99/max', async () => {
    const m = await loadCapture(await record(2));
    const { spans, table } = m.latency();
    const prompt = spans.find((s) => s.method === 'session/prompt')!;
    const req = m.frames.find((f) => f.seq === prompt.seq)!;
    const ans = m.frames.find((f) => f.seq === prompt.answerSeq)!;
    expect(ans.id).toEqual(req.id);
    expect(prompt.latency).toBeCloseTo(ans.t - req.t, 3);
    const row = table.find((t) => t.method === 'session/prompt')!;
    expect(row).toMatchObject({ count: 1, open: 0, p50: prompt.latency, p99: prompt.latency, max: prompt.latency });
    // the agent's permission request was answered by the editor
    expect(spans.find((s) => s.method === 'session/request_permission')).toMatchObject({
      dir: 'agent->editor',
      error: false,
    });
    expect(table.map((t) => t.method)).toEqual([...table.map((t) => t.method)].sort());
  });

  it('frame detail: fields the schema does not declare and _meta are marked; violations carry their requirement ID', async () => {
    const dir = tempDir('acp-inspector-marks-');
    const cap = join(dir, 'c.ndjson');
    const lines = [
      {
        type: 'header',
        format: 'acp-kit-capture',
        formatVersion: 1,
        acpKit: '0.1.0',
        agent: ['x'],
        start: '2026-11-23T00:00:00.000Z',
      },
      {
        seq: 1,
        t: 0,
        dir: 'editor->agent',
        kind: 'request',
        method: 'initialize',
        id: 0,
        raw: JSON.stringify({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: { protocolVersion: 2, info: { name: 'ed', version: '1' }, capabilities: {} },
        }),
      },
      {
        seq: 2,
        t: 1,
        dir: 'agent->editor',
        kind: 'response',
        id: 0,
        raw: JSON.stringify({
          jsonrpc: '2.0',
          id: 0,
          result: { protocolVersion: 2, info: { name: 'a', version: '1' }, capabilities: {}, authMethods: [] },
        }),
      },
      {
        seq: 3,
        t: 2,
        dir: 'editor->agent',
        kind: 'request',
        method: 'session/new',
        id: 1,
        raw: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'session/new',
          params: { cwd: '/w', mcpServers: [], bogus: 1, _meta: { 'x.y/trace': 'abc' } },
        }),
      },
    ];
    writeFileSync(cap, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const m = await loadCapture(cap);
    const d = m.detail(3)!;
    expect(d.marks.undeclared).toEqual(['params.bogus']);
    expect(d.marks.meta).toEqual(['params._meta']);
    // never answered by the end of the capture
    expect(d.violations).toEqual([
      expect.objectContaining({ requirement: 'ACP-ALL-RPC-01', rule: 'unanswered-request', seqs: [3] }),
    ]);
    expect(m.detail(1)!.marks).toEqual({ undeclared: [], meta: [] });
    expect(m.detail(2)!.marks).toEqual({ undeclared: [], meta: [] });
    expect(m.rows.find((r) => r[0] === 3)![12]).toBe(1);
  });
});
