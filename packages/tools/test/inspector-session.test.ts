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
import { unstableSessionFrames } from '../../../test/support/unstable-frames.js';
import { CaptureModel } from '../src/inspector/model.js';

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

/** A model of the hand-built unstable capture of `v` (every message checked against the unstable schema). */
function unstableModel(v: 1 | 2): CaptureModel {
  const m = new CaptureModel();
  for (const f of unstableSessionFrames(v)) m.push(f);
  // the capture's schema check (the validator judges the unstable shapes against the official schemas)
  expect(m.violations).toEqual([]);
  return m;
}

/** The seq of the first frame of `method` (for an update kind: of the `session/update` carrying it). */
function seqOf(m: CaptureModel, method: string, update?: string): number {
  const f = m.frames.find(
    (x) => x.method === method && (update === undefined || x.raw.includes(`"sessionUpdate":"${update}"`)),
  );
  if (!f) throw new Error(`no ${method} ${update ?? ''} frame`);
  return f.seq;
}

/** The answer to the request at `seq` (the row's pair). */
function answerOf(m: CaptureModel, seq: number): number {
  const pair = m.detail(seq)?.pair;
  if (pair === undefined) throw new Error(`frame ${seq} has no answer`);
  return pair;
}

/**
 * Issue 26 item 3, the inspector column: what the unstable session methods and update kinds change
 * in the session view (title, archived, status, forks, subagents nested with their own text,
 * session messages, a removed plan gone), from a capture whose every message the unstable schema
 * accepts (test/support/unstable-frames.ts).
 */
describe('inspector session view: the unstable session surface', () => {
  it.each([1, 2] as const)('v%i: title, status, archive and fork are session state, told by their answers', (v) => {
    const m = unstableModel(v);
    const views = m.sessionViews();
    const s1 = views.find((x) => x.sessionId === 's1');
    const fork = views.find((x) => x.sessionId === 's1-fork');
    // session/set_title: the answer's title is the session's
    expect(s1?.title).toBe('Refactor the parser');
    // session/status: the v2 answer also reports the foreground state
    expect(s1?.status).toEqual({
      value: { status: 'open', state: v === 2 ? 'idle' : undefined },
      seq: answerOf(m, seqOf(m, 'session/status')),
    });
    // session/archive then session/unarchive: the last answer wins
    expect(s1?.archived).toEqual({ value: false, seq: answerOf(m, seqOf(m, 'session/unarchive')) });
    const forkAnswer = answerOf(m, seqOf(m, 'session/fork'));
    expect(s1?.forks).toEqual([{ value: 's1-fork', seq: forkAnswer }]);
    expect(fork?.forkOf).toEqual({ value: 's1', seq: forkAnswer });
    // the first session/archive archived the fork
    expect(fork?.archived).toEqual({ value: true, seq: answerOf(m, seqOf(m, 'session/archive')) });
    // replay: before the unarchive's answer, s1 was archived; before the title's answer, untitled
    const unarchived = answerOf(m, seqOf(m, 'session/unarchive'));
    expect(m.sessionViews(unarchived - 1).find((x) => x.sessionId === 's1')?.archived?.value).toBe(true);
    const titled = answerOf(m, seqOf(m, 'session/set_title'));
    expect(m.sessionViews(titled - 1).find((x) => x.sessionId === 's1')?.title).toBeUndefined();
  });

  it.each([1, 2] as const)(
    'v%i: a removed plan disappears; a subagent nests with its own text; a session message is a message',
    (v) => {
      const m = unstableModel(v);
      const removed = seqOf(m, 'session/update', 'plan_removed');
      const kinds = (upto?: number) =>
        (m.sessionViews(upto).find((x) => x.sessionId === 's1')?.items ?? []).map((i) => i.kind);
      // plan_removed: the plan was shown until the frame that removed it
      expect(kinds(removed - 1)).toContain('plan');
      expect(kinds(removed)).not.toContain('plan');

      const views = m.sessionViews();
      // subagent_update: the child is not a session of its own at the top, it is nested in its parent
      expect(views.map((x) => x.sessionId).sort()).toEqual(['s1', 's1-fork']);
      const items = views.find((x) => x.sessionId === 's1')?.items ?? [];
      const sub = items.find((i) => i.kind === 'subagent');
      expect(sub).toMatchObject({
        sessionId: 'sub-1',
        title: 'Search the docs',
        state: 'idle',
        stopReason: 'end_turn',
        seqs: [seqOf(m, 'session/update', 'subagent_update'), seqOf(m, 'session/update', 'subagent_update') + 2],
      });
      const child = sub?.kind === 'subagent' ? sub.session : undefined;
      expect(child?.items).toEqual([
        expect.objectContaining({ kind: 'message', role: 'agent', content: [{ type: 'text', text: 'found 3 hits' }] }),
      ]);
      // session_message + session_message_chunk: one message, its content upserted then streamed
      const msg = items.find((i) => i.kind === 'session_message');
      expect(msg).toEqual({
        kind: 'session_message',
        key: 'session_message:msg-1',
        messageId: 'msg-1',
        senderSessionId: 'sub-1',
        recipientSessionId: 's1',
        content: [
          { type: 'text', text: 'Done: 3 hits' },
          { type: 'text', text: ' in docs/' },
        ],
        seqs: [seqOf(m, 'session/update', 'session_message'), seqOf(m, 'session/update', 'session_message_chunk')],
      });
      // slotted where they arrived: the subagent before the message it sent
      expect(items.map((i) => i.kind)).toEqual(['subagent', 'session_message']);
    },
  );

  it('a subagent announcing its own parent is shown once, not nested in a loop', () => {
    const m = new CaptureModel();
    const frames = unstableSessionFrames(2);
    for (const f of frames) m.push(f);
    const last = frames.at(-1)?.seq ?? 0;
    m.push({
      seq: last + 1,
      t: last + 1,
      dir: 'agent->editor',
      kind: 'notification',
      method: 'session/update',
      raw: JSON.stringify({
        jsonrpc: '2.0',
        method: 'session/update',
        params: { sessionId: 'sub-1', update: { sessionUpdate: 'subagent_update', sessionId: 's1' } },
      }),
    });
    const views = m.sessionViews();
    expect(views.map((x) => x.sessionId).sort()).toEqual(['s1', 's1-fork']);
    const child = views.find((x) => x.sessionId === 's1')?.items.find((i) => i.kind === 'subagent');
    const nested = child?.kind === 'subagent' ? child.session : undefined;
    // the child lists its announcement of s1, without s1's view inside it again
    expect(nested?.items.find((i) => i.kind === 'subagent')).toMatchObject({ sessionId: 's1', session: undefined });
  });
});
