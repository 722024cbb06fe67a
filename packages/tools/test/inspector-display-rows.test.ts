/**
 * The timeline's rows in the page (src/inspector/ui/display.ts, row-store.ts): kept in typed arrays
 * and extended as pages of frames arrive, they must be what one pass over every frame gives. The
 * reference below is the page's former one-pass build over row tuples, kept here as the spec.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ROW, type RowTuple } from '../src/inspector/api-types.js';
import type { Data } from '../src/inspector/ui/data.js';
import { displayRows, type RowFilter } from '../src/inspector/ui/display.js';
import { RowStore } from '../src/inspector/ui/row-store.js';
import { CaptureModel } from '../src/inspector/model.js';
import type { CaptureFrame } from '../src/proxy/index.js';
import { proxyComponentFrames, unstableSessionFrames } from '../../../test/support/unstable-frames.js';
import { A2E, E2A, frames, rpc } from '../../../test/support/capture-builder.js';

const STRINGS = [
  'request',
  'notification',
  'response',
  'error',
  'invalid',
  'session/update',
  'session/prompt',
  's1',
  's2',
  'g1',
  'g2',
];
const KIND_COUNT = 5;

/** The former build: frames the filter keeps, consecutive frames of one group collapsed unless expanded. */
function reference(rows: RowTuple[], strings: string[], f: RowFilter): number[][] {
  const out: number[][] = [];
  const methodIdx = f.method === '' ? -2 : strings.indexOf(f.method);
  const sessionIdx = f.session === '' ? -2 : strings.indexOf(f.session);
  let runGroup = -1;
  let run: number[] | undefined;
  rows.forEach((r, i) => {
    if (f.kinds.size !== KIND_COUNT && !f.kinds.has(strings[r[ROW.kind]] ?? '')) return;
    if (methodIdx !== -2 && r[ROW.method] !== methodIdx) return;
    if (sessionIdx !== -2 && r[ROW.session] !== sessionIdx) return;
    if (f.onlyViolations && r[ROW.violations] === 0) return;
    if (f.matches && !f.matches.has(r[ROW.seq])) return;
    const g = r[ROW.group];
    const first = run?.[0];
    if (g >= 0 && g === runGroup && run && first !== undefined && !f.expanded.has(rows[first]?.[ROW.seq] ?? -1)) {
      run.push(i);
      return;
    }
    run = [i];
    runGroup = g;
    out.push(run);
  });
  return out;
}

const rowArb = fc.record({
  kind: fc.integer({ min: 0, max: 4 }),
  method: fc.constantFrom(-1, 5, 6),
  session: fc.constantFrom(-1, 7, 8),
  // mostly grouped: long runs are what collapsing is about
  group: fc.constantFrom(-1, 9, 9, 9, 10, 10),
  violations: fc.constantFrom(0, 0, 0, 1),
});

const filterArb = fc.record({
  kinds: fc.subarray(['request', 'notification', 'response', 'error', 'invalid'], { minLength: 1 }),
  method: fc.constantFrom('', 'session/update', 'session/prompt'),
  session: fc.constantFrom('', 's1', 's2'),
  onlyViolations: fc.boolean(),
  matchEvery: fc.option(fc.integer({ min: 1, max: 3 })),
  expandEvery: fc.integer({ min: 0, max: 4 }),
});

function tuples(
  specs: Array<{ kind: number; method: number; session: number; group: number; violations: number }>,
): RowTuple[] {
  return specs.map((s, i) => [
    i + 1,
    i * 10,
    i % 2 === 0 ? 0 : 1,
    s.kind,
    s.method,
    -1,
    100,
    s.session,
    -1,
    s.group,
    -1,
    -1,
    s.violations,
  ]);
}

function shown(d: ReturnType<typeof displayRows>): number[][] {
  const out: number[][] = [];
  for (let k = 0; k < d.count; k++) out.push([...(d.row(k)?.members ?? [])]);
  return out;
}

describe('inspector page: timeline rows built as frames arrive', () => {
  it('extending page by page gives the rows of one pass over every frame, for any filter', () => {
    fc.assert(
      fc.property(
        fc.array(rowArb, { maxLength: 120 }),
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 8 }),
        filterArb,
        (specs, pages, fa) => {
          const rows = tuples(specs);
          const filter: RowFilter = {
            kinds: new Set(fa.kinds),
            method: fa.method,
            session: fa.session,
            onlyViolations: fa.onlyViolations,
            matches:
              fa.matchEvery === null
                ? undefined
                : new Set(rows.map((r) => r[ROW.seq]).filter((s) => s % fa.matchEvery === 0)),
            expanded: new Set(
              fa.expandEvery === 0 ? [] : rows.map((r) => r[ROW.seq]).filter((s) => s % fa.expandEvery === 0),
            ),
          };
          const data: Data = {
            strings: [...STRINGS],
            store: new RowStore(),
            finished: false,
            analysisComplete: false,
            version: 0,
          };
          let d: ReturnType<typeof displayRows> | undefined;
          let at = 0;
          for (let p = 0; at < rows.length; p++) {
            const n = pages[p % pages.length] ?? 1;
            for (const r of rows.slice(at, at + n)) data.store.put(r);
            at += n;
            const next = displayRows(d, data, filter);
            // the same filter on a grown store is extended, never rebuilt
            if (d) expect(next).toBe(d);
            d = next;
          }
          d = displayRows(d, data, filter);
          expect(shown(d)).toEqual(reference(rows, STRINGS, filter));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a violation found in a row already shown rebuilds the "violations only" rows; a store of 100k rows is one buffer', () => {
    const rows = tuples(
      Array.from({ length: 6 }, () => ({ kind: 1, method: 5, session: 7, group: -1, violations: 0 })),
    );
    const data: Data = {
      strings: [...STRINGS],
      store: new RowStore(),
      finished: false,
      analysisComplete: false,
      version: 0,
    };
    for (const r of rows) data.store.put(r);
    const filter: RowFilter = {
      kinds: new Set(['request', 'notification', 'response', 'error', 'invalid']),
      method: '',
      session: '',
      onlyViolations: true,
      matches: undefined,
      expanded: new Set(),
    };
    const before = displayRows(undefined, data, filter);
    expect(before.count).toBe(0);
    const third = rows[2];
    if (!third) throw new Error('no third row');
    data.store.change([...third.slice(0, ROW.violations), 1] as RowTuple);
    const after = displayRows(before, data, filter);
    expect(after).not.toBe(before);
    expect(shown(after)).toEqual([[2]]);
    expect(data.store.signature(2)).not.toBe(data.store.signature(1));

    const big = new RowStore();
    for (let i = 0; i < 100_000; i++) big.put([i, i, 0, 0, -1, -1, 10, -1, -1, -1, -1, -1, 0]);
    expect(big.length).toBe(100_000);
    expect(big.get(99_999, ROW.seq)).toBe(99_999);
    expect(big.indexOf(54_321)).toBe(54_321);
  });
});

/** Every frame's timeline line as TimelineRow reads it from the page's store: method, update kind, summary. */
function lines(list: CaptureFrame[]): { model: CaptureModel; shown: string[] } {
  const model = new CaptureModel();
  for (const f of list) model.push(f);
  const data: Data = {
    strings: model.strings,
    store: new RowStore(),
    finished: true,
    analysisComplete: true,
    version: 0,
  };
  for (const r of model.rows) data.store.put(r);
  const d = displayRows(undefined, data, {
    kinds: new Set(['request', 'notification', 'response', 'error', 'invalid']),
    method: '',
    session: '',
    onlyViolations: false,
    matches: undefined,
    expanded: new Set(model.rows.map((r) => r[ROW.seq])),
  });
  const shown: string[] = [];
  for (let k = 0; k < d.count; k++) {
    const first = d.row(k)?.first;
    if (first === undefined) throw new Error(`no display row ${k}`);
    const str = (field: number): string | undefined => data.strings[data.store.get(first, field)];
    shown.push([str(ROW.method) ?? '(answer)', str(ROW.update), str(ROW.summary)].filter(Boolean).join(' | '));
  }
  return { model, shown };
}

/**
 * Issue 26 item 3, the inspector column: each unstable method and update kind has a one-line
 * summary in its timeline row (request and answer), from a capture whose every message the
 * unstable schema of its version accepts (test/support/unstable-frames.ts).
 */
describe('inspector page: the unstable methods and update kinds say what they are in one line', () => {
  it.each([1, 2] as const)('v%i: a session, auth, providers and MCP over ACP', (v) => {
    const { model, shown } = lines(unstableSessionFrames(v));
    // a conforming connection: nothing flagged (the agent advertised what the editor calls)
    expect(model.violations).toEqual([]);
    // per row of the coverage matrix: the lines its request/notification and its answer show
    const expected: Array<[string, string[]]> = [
      [
        'session/set_title',
        ['session/set_title | title: Refactor the parser', '(answer) | title: Refactor the parser'],
      ],
      [
        'session/status',
        ['session/status | status of s1?', v === 2 ? '(answer) | status: open (idle)' : '(answer) | status: open'],
      ],
      ['session/fork', ['session/fork | fork of s1', '(answer) | fork of s1 -> s1-fork']],
      ['session/archive', ['session/archive | archive s1-fork', '(answer) | archived s1-fork']],
      ['session/unarchive', ['session/unarchive | unarchive s1', '(answer) | unarchived s1']],
      ['auth/status', ['auth/status | auth status?', '(answer) | auth: authenticated (Claude Max*)']],
      ['auth/status_update', ['auth/status_update | auth: unauthenticated']],
      ['providers/list', ['providers/list | providers?', '(answer) | providers: main (anthropic), openai (disabled)']],
      [
        'providers/set',
        [
          'providers/set | provider openai: openai https://llm.example.test/v1 (1 header)',
          '(answer) | provider openai set',
        ],
      ],
      ['providers/disable', ['providers/disable | disable provider openai', '(answer) | provider openai disabled']],
      [
        'mcp/message',
        [
          'mcp/message | MCP tools/call #call-7 via srv-files',
          '(answer) | MCP #call-7 result',
          'mcp/message | MCP tools/list #list-1 via srv-files',
          '(answer) | MCP #list-1 error -32601: Method not found',
        ],
      ],
      ['plan_removed', ['session/update | plan_removed | plan removed: p1']],
      [
        'subagent_update',
        [
          'session/update | subagent_update | subagent sub-1 "Search the docs" [running]',
          'session/update | subagent_update | subagent sub-1 [idle]',
        ],
      ],
      ['session_message', ['session/update | session_message | message msg-1 sub-1 -> s1: Done: 3 hits']],
      ['session_message_chunk', ['session/update | session_message_chunk | message msg-1 += in docs/']],
    ];
    for (const [row, rowLines] of expected) for (const line of rowLines) expect(shown, row).toContain(line);
    // the frame detail carries the same line (the page shows it above the JSON)
    const forkAnswer = model.detail(model.frames.find((f) => f.method === 'session/fork')?.seq ?? -1)?.pair;
    expect(model.detail(forkAnswer ?? -1)?.summary).toBe('fork of s1 -> s1-fork');
    expect(model.detail(1)?.summary).toBeUndefined();
    // the header a provider is set with carries the authorization: never shown
    expect(model.strings.join('\n')).not.toContain('sk-secret-value');
    // the stable rows keep their plain lines (no summary where the method and kind say it all)
    expect(shown).toContain('session/new');
    expect(shown).toContain('session/update | plan_update');
  });

  it.each([1, 2] as const)('v%i: a proxy component and its conductor: the hop and the wrapped message', (v) => {
    const { model, shown } = lines(proxyComponentFrames(v));
    expect(model.violations).toEqual([]);
    const rows = ['proxy/initialize', 'proxy/successor'];
    expect(shown.filter((l) => rows.some((r) => l.startsWith(r)))).toHaveLength(3);
    expect(shown).toEqual([
      `proxy/initialize | proxy initialize, protocol v${v}`,
      `(answer) | proxy initialized, protocol v${v}`,
      // sent by the proxy (agent side): towards its successor; sent by the conductor: from it
      'proxy/successor | to successor: session/prompt',
      'proxy/successor | from successor: session/update agent_message_chunk',
      '(answer) | answer to the wrapped session/prompt',
    ]);
  });

  it('a failed answer says so; a hostile frame is a plain line: prototype names are not methods, fields of the wrong type are left out', () => {
    const { shown } = lines(
      frames([
        [0, E2A, rpc.req(5, 'session/fork', { sessionId: 'gone', cwd: '/w' })],
        [1, A2E, rpc.err(5, -32002, 'Resource not found')],
        [2, E2A, rpc.req(6, 'constructor', {})],
        [3, A2E, rpc.note('auth/status_update', { state: { x: 1 }, accounts: 'all' })],
        [4, A2E, rpc.req(7, 'mcp/message', { serverId: ['x'], requestId: { y: 1 }, method: 'tools/call' })],
      ]),
    );
    expect(shown).toEqual([
      'session/fork | fork of gone',
      '(answer) | session/fork failed: -32002 Resource not found',
      'constructor',
      'auth/status_update | auth: ?',
      'mcp/message | MCP tools/call #? via ?',
    ]);
  });
});
