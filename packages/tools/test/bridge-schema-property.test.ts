// Issue 23 item 4: "for any v1 message generated from the v1 schema the bridge's v2 output validates,
// and vice versa". Messages are generated from the official schema of the side that sends them
// (test/support/schema-arbitrary.ts; each is checked with Ajv against that schema first, so a
// generator bug fails here instead of weakening the property), pushed through the bridge's real
// translator (the codecs' decode -> encode path that `proxy --bridge` runs), and everything that comes
// out is validated against the other side's official schema. A message the bridge cannot translate
// may be dropped only with a reported problem: a logged line for a notification, an error answer for
// a request. Both directions, updates, the agent's requests and the editor's answers to them, the
// editor's requests and the agent's answers. Fixed seed: a failure prints the counterexample and
// reproduces.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { agentRoundTrip, bridgePair, editorRoundTrip, type BridgePair } from '../../../test/support/bridge-harness.js';
import { SchemaArbitraries } from '../../../test/support/schema-arbitrary.js';
import { stableSchemaAjv } from '../../../test/support/schema-tap.js';
import { stableUpdateKinds } from '../../../test/support/schema-lists.js';

type Msg = Record<string, unknown>;
type Version = 1 | 2;

const SEED = Number(process.env.BRIDGE_PROPERTY_SEED ?? 20231);
const RUNS = Number(process.env.BRIDGE_PROPERTY_RUNS ?? 40);

interface Versioned {
  schema: Record<string, unknown> & { $defs: Record<string, Record<string, unknown>> };
  gen: SchemaArbitraries;
  ajv: Ajv2020;
  /** The root schema's `$id` in `ajv`. */
  id: string;
  /** x-method -> its params def and result def. */
  methods: Map<string, { side: string; params?: string; result?: string }>;
}

const loaded = new Map<Version, Versioned>();
function V(v: Version): Versioned {
  const hit = loaded.get(v);
  if (hit) return hit;
  const file = join(
    import.meta.dirname,
    '../../..',
    'node_modules',
    '@agentclientprotocol',
    'sdk',
    'schema',
    `v${v}`,
    'schema.json',
  );
  const schema = JSON.parse(readFileSync(file, 'utf8')) as Versioned['schema'];
  // the same schema file and Ajv options as the bridge pair's schema taps: their instance, so each def
  // is compiled once for both (a second instance compiled them again: ~1.2 s of CPU for all defs of both)
  const { ajv, id } = stableSchemaAjv(v);
  const methods = new Map<string, { side: string; params?: string; result?: string }>();
  for (const [name, def] of Object.entries(schema.$defs)) {
    const method = def['x-method'];
    if (typeof method !== 'string') continue;
    const info = methods.get(method) ?? { side: String(def['x-side']) };
    if (name.endsWith('Response')) info.result = name;
    else info.params = name;
    methods.set(method, info);
  }
  const out = { schema, gen: new SchemaArbitraries(schema), ajv, id, methods };
  loaded.set(v, out);
  return out;
}

function defValidator(v: Version, def: string): ValidateFunction {
  const fn = V(v).ajv.getSchema(`${V(v).id}#/$defs/${def}`);
  if (!fn) throw new Error(`no $defs/${def} in v${v}`);
  return fn;
}

/** The generator's promise, checked: a generated value that is invalid at its source is a generator bug. */
function assertGenerated(v: Version, def: string, value: unknown): void {
  const fn = defValidator(v, def);
  if (!fn(value))
    throw new Error(
      `generator bug: a v${v} ${def} that the v${v} schema rejects: ${V(v).ajv.errorsText(fn.errors)}\n${JSON.stringify(value)}`,
    );
}

function assertTapsValid(p: BridgePair): void {
  p.editorTap.assertAllValid();
  p.agentTap.assertAllValid();
}

let ids = 0;
/** Error answers seen, by direction and method (printed with BRIDGE_PROPERTY_STATS=1, to judge them). */
const errorsSeen = new Map<string, Map<string, number>>();
function noteError(key: string, message: string): void {
  const m = errorsSeen.get(key) ?? new Map<string, number>();
  const short = message
    .replace(/Session not found: .*/s, 'Session not found: <id>')
    .replace(/"[^"]*"/g, '"…"')
    .slice(0, 120);
  m.set(short, (m.get(short) ?? 0) + 1);
  errorsSeen.set(key, m);
}
afterAll(() => {
  if (process.env.BRIDGE_PROPERTY_STATS) for (const [k, m] of errorsSeen) console.log(k, Object.fromEntries(m));
});
const isResponseTo = (id: unknown) => (m: Msg) => m.id === id && m.method === undefined;

// ---------------------------------------------------------------- agent -> editor: session/update

/**
 * A v2 `state_update` is not dropped for a v1 editor: it is what ends the v1 prompt (the answer's
 * stop reason), so it has no update of its own. Every other update that produces nothing for the
 * editor must have been reported.
 */
const CONSUMED: Record<Version, ReadonlySet<string>> = { 1: new Set(['state_update']), 2: new Set() };

function updateArbitrary(agentVersion: Version): fc.Arbitrary<{ kind: string; params: Msg }> {
  const g = V(agentVersion).gen;
  const branches = g.unionBranches('SessionUpdate', 'sessionUpdate');
  const envelope = agentVersion === 1 ? 'SessionNotification' : 'UpdateSessionNotification';
  return fc
    .oneof(
      ...branches.map((b) =>
        fc.record({ kind: fc.constant(b.tag), update: b.arbitrary, sessionId: fc.constantFrom('s-1', 's-2') }),
      ),
    )
    .map(({ kind, update, sessionId }) => {
      const params = { sessionId, update } as Msg;
      assertGenerated(agentVersion, envelope, params);
      return { kind, params };
    });
}

async function pushUpdates(p: BridgePair, updates: Array<{ kind: string; params: Msg }>): Promise<void> {
  for (const u of updates) {
    const from = p.editor.sent.length;
    const logged = p.log.length;
    p.agent.deliver({ jsonrpc: '2.0', method: 'session/update', params: u.params });
    const out = await agentRoundTrip(p, from);
    assertTapsValid(p);
    const shown = out.filter((m) => m.method === 'session/update');
    if (shown.length === 0 && !CONSUMED[p.editorVersion].has(u.kind)) {
      // reported now, or earlier for the same kind in the same session (the bridge says it once)
      const once = `a ${u.kind} update of session ${String(u.params.sessionId)}:`;
      const reported = p.log.length > logged || p.log.some((l) => l.includes(once));
      expect(
        reported,
        `a ${u.kind} update produced nothing for the v${p.editorVersion} editor and no problem was reported:\n${JSON.stringify(u.params)}\nlog: ${p.log.join('\n')}`,
      ).toBe(true);
    }
  }
}

/**
 * The stable schemas' requests, by name, that the cases below must drive through the bridge (they
 * take them from the schema; the names let docs/coverage-claims.json point here, issue 26 item 1).
 * The update kinds come from test/support/schema-lists.ts, read from the schema.
 */
const AGENT_REQUESTS: Record<Version, string[]> = {
  1: [
    'fs/read_text_file',
    'fs/write_text_file',
    'session/request_permission',
    'terminal/create',
    'terminal/output',
    'terminal/release',
    'terminal/wait_for_exit',
    'terminal/kill',
    'elicitation/create',
  ],
  2: ['session/request_permission', 'elicitation/create'],
};
const EDITOR_REQUESTS: Record<Version, string[]> = {
  1: [
    'initialize',
    'authenticate',
    'logout',
    'session/new',
    'session/load',
    'session/list',
    'session/delete',
    'session/resume',
    'session/close',
    'session/set_mode',
    'session/set_config_option',
    'session/prompt',
  ],
  2: [
    'initialize',
    'auth/login',
    'auth/logout',
    'session/new',
    'session/list',
    'session/delete',
    'session/resume',
    'session/close',
    'tool_call/cancel',
    'terminal/cancel',
    'session/set_config_option',
    'session/prompt',
  ],
};

describe.each([
  { agentVersion: 1 as const, editorVersion: 2 as const },
  { agentVersion: 2 as const, editorVersion: 1 as const },
])('bridge property: a v$agentVersion agent, a v$editorVersion editor', ({ agentVersion, editorVersion }) => {
  it(`every session/update the v${agentVersion} schema allows reaches the editor valid under v${editorVersion} (or is reported)`, async () => {
    const kinds = V(agentVersion)
      .gen.unionBranches('SessionUpdate', 'sessionUpdate')
      .map((b) => b.tag);
    expect(kinds.length).toBeGreaterThanOrEqual(agentVersion === 1 ? 13 : 19);
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.array(updateArbitrary(agentVersion), { minLength: 1, maxLength: 5 }), async (updates) => {
        for (const u of updates) seen.add(u.kind);
        await pushUpdates(bridgePair(editorVersion), updates);
      }),
      { seed: SEED, numRuns: RUNS * 3, endOnFailure: true },
    );
    // every kind of the source schema was exercised
    expect([...kinds].filter((k) => !seen.has(k))).toEqual([]);
    for (const kind of stableUpdateKinds(agentVersion)) expect(seen.has(kind), kind).toBe(true);
  });

  it(`every request of the v${agentVersion} agent, and the editor's answers: valid on both sides (or refused where v${editorVersion} cannot carry it)`, async () => {
    const av = V(agentVersion);
    const requests = [...av.methods]
      .filter(([m, i]) => i.side === 'client' && i.result && i.params && m !== 'session/update')
      .map(([m, i]) => ({ method: m, def: i.params! }));
    expect(requests.map((r) => r.method)).toContain('session/request_permission');
    expect(requests.map((r) => r.method)).toEqual(expect.arrayContaining(AGENT_REQUESTS[agentVersion]));
    for (const { method, def } of requests) {
      await fc.assert(
        fc.asyncProperty(av.gen.forDef(def), fc.nat(), async (params, answerSeed) => {
          assertGenerated(agentVersion, def, params);
          await agentRequest(bridgePair(editorVersion), method, params as Msg, answerSeed);
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
    }
  });

  it(`every request of the v${editorVersion} editor, and the agent's answers: valid on both sides (or refused where v${agentVersion} cannot carry it)`, async () => {
    const ev = V(editorVersion);
    const requests = [...ev.methods]
      .filter(([, i]) => i.side === 'agent' && i.result && i.params)
      .map(([m, i]) => ({ method: m, def: i.params! }));
    expect(requests.map((r) => r.method)).toEqual(expect.arrayContaining(EDITOR_REQUESTS[editorVersion]));
    const blocks = new Set<string>();
    for (const { method, def } of requests) {
      await fc.assert(
        fc.asyncProperty(ev.gen.forDef(def), fc.nat(), async (params, answerSeed) => {
          assertGenerated(editorVersion, def, params);
          if (method === 'session/prompt')
            for (const b of (params as { prompt: Msg[] }).prompt) blocks.add(String(b.type));
          await editorRequest(bridgePair(editorVersion), method, params as Msg, answerSeed);
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
    }
    // prompts carried every content block type of the editor's schema
    expect([...blocks].sort()).toEqual(expect.arrayContaining(['audio', 'image', 'resource', 'resource_link', 'text']));
  });

  it(`every notification of the v${editorVersion} editor (session/cancel) reaches the agent valid under v${agentVersion}`, async () => {
    const ev = V(editorVersion);
    const notes = [...ev.methods].filter(
      ([m, i]) => i.side === 'agent' && !i.result && i.params && !m.startsWith('$/'),
    );
    expect(notes.map(([m]) => m)).toContain('session/cancel');
    for (const [method, info] of notes) {
      await fc.assert(
        fc.asyncProperty(ev.gen.forDef(info.params!), async (params) => {
          assertGenerated(editorVersion, info.params!, params);
          const p = bridgePair(editorVersion);
          const sessionId = await openSession(p);
          const from = p.agent.sent.length;
          p.editor.deliver({ jsonrpc: '2.0', method, params: { ...(params as Msg), sessionId } });
          const got = await editorRoundTrip(p, from);
          assertTapsValid(p);
          // a session/cancel has a counterpart in both versions: it must arrive
          expect(got.filter((m) => m.method === method)).toHaveLength(1);
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
    }
  });
});

// ---------------------------------------------------------------- requests

/**
 * The error answers the bridge may give instead of a translation: each names what the other
 * version cannot carry (docs/bridge.md), a method it lacks, or (fs/*, terminal/* the bridge serves
 * itself for a v1 agent) a session the generated request made up. Any other error fails.
 */
function isExpectedRefusal(method: string, error: Msg): boolean {
  const message = String(error.message);
  if (error.code === -32601) return /has no counterpart/.test(message);
  if (/^(fs|terminal)\//.test(method)) return /^Session not found/.test(message);
  if (error.code !== -32602) return false;
  return [
    /params\.options: a v2 permission request needs at least one option/,
    /params\.prompt: a v2 prompt needs at least one content block/,
    /params: a v2 elicitation needs a sessionId or a requestId/,
    /params\.requestedSchema\.properties\..*: offers no value to choose/,
  ].some((r) => r.test(message));
}

/** A value of `def` in version `v`, drawn from the generator with `seed` (reproducible). */
function generated(v: Version, def: string, seed: number): Msg {
  const [value] = fc.sample(V(v).gen.forDef(def), { seed, numRuns: 1 });
  assertGenerated(v, def, value);
  return value as Msg;
}

/** The agent asks; whatever reaches the editor is answered with a generated answer of its version. */
async function agentRequest(p: BridgePair, method: string, params: Msg, seed: number): Promise<void> {
  const id = `a-${++ids}`;
  const from = p.editor.sent.length;
  p.agent.deliver({ jsonrpc: '2.0', id, method, params });
  const answered = p.agent.next(isResponseTo(id), 0, `answer to ${method}`);
  const forwarded = p.editor.next(
    (m) => typeof m.method === 'string' && m.id !== undefined,
    from,
    `${method} at the editor`,
  );
  const first = await Promise.race([answered.then((a) => ({ a })), forwarded.then((f) => ({ f }))]);
  if ('f' in first) {
    const f = first.f;
    const result = V(p.editorVersion).methods.get(String(f.method))?.result;
    expect(
      result,
      `the editor got ${String(f.method)}, which its v${p.editorVersion} schema has no answer for`,
    ).toBeDefined();
    p.editor.deliver({
      jsonrpc: '2.0',
      id: f.id as string | number,
      result: generated(p.editorVersion, result!, seed),
    });
  }
  const answer = await answered;
  assertTapsValid(p);
  if ('error' in answer) {
    noteError(`v${p.agentVersion} agent asks ${method}`, String((answer.error as Msg).message));
    // the bridge refused: that is the reported problem, allowed only where the translation is impossible
    expect(
      isExpectedRefusal(method, answer.error as Msg),
      `unexpected error answer to ${method}: ${JSON.stringify(answer.error)}\n${JSON.stringify(params)}`,
    ).toBe(true);
  }
}

/**
 * The editor asks (in a session the agent opened, when the request names one); every request the
 * bridge sends the agent for it is answered with a generated answer of the agent's version.
 */
async function editorRequest(p: BridgePair, method: string, params: Msg, seed: number): Promise<void> {
  const sessionId = await openSession(p);
  const sent = 'sessionId' in params ? { ...params, sessionId } : params;
  const id = `e-${++ids}`;
  let next = p.agent.sent.length;
  p.editor.deliver({ jsonrpc: '2.0', id, method, params: sent });
  const answered = p.editor.next(isResponseTo(id), 0, `answer to ${method}`);
  let done = false;
  void answered.then(
    () => (done = true),
    () => (done = true),
  );
  let served = 0;
  // serve the agent's requests until the editor has its answer (a v1 prompt is sent after the v2 one is answered)
  while (!done || (p.agentVersion === 1 && method === 'session/prompt' && served === 0)) {
    const req = await Promise.race([
      answered.then(() => undefined),
      p.agent.next(
        (m) => typeof m.method === 'string' && m.id !== undefined && !String(m.method).startsWith('_'),
        next,
        `request at the agent for ${method}`,
      ),
    ]);
    if (req === undefined && !(p.agentVersion === 1 && method === 'session/prompt' && served === 0)) break;
    if (req === undefined) {
      const r = await p.agent.next(
        (m) => m.method === 'session/prompt' && m.id !== undefined,
        next,
        'the v1 session/prompt',
      );
      await answerAgentRequest(p, r, seed, ++served);
      next = p.agent.sent.indexOf(r) + 1;
      continue;
    }
    next = p.agent.sent.indexOf(req) + 1;
    await answerAgentRequest(p, req, seed, ++served);
  }
  const answer = await answered;
  if (p.editorVersion === 2 && method === 'session/prompt' && 'result' in answer) {
    // the v1 turn ends: the editor's idle state follows
    await p.editor.next(
      (m) =>
        m.method === 'session/update' &&
        (m.params as Msg).update !== undefined &&
        ((m.params as Msg).update as Msg).state === 'idle',
      0,
      'idle',
    );
  }
  assertTapsValid(p);
  if ('error' in answer) {
    noteError(`v${p.editorVersion} editor asks ${method}`, String((answer.error as Msg).message));
    expect(
      isExpectedRefusal(method, answer.error as Msg),
      `unexpected error answer to ${method}: ${JSON.stringify(answer.error)}\n${JSON.stringify(params)}`,
    ).toBe(true);
  }
}

async function answerAgentRequest(p: BridgePair, req: Msg, seed: number, n: number): Promise<void> {
  const method = String(req.method);
  const result = V(p.agentVersion).methods.get(method)?.result;
  expect(result, `the agent got ${method}, which its v${p.agentVersion} schema has no answer for`).toBeDefined();
  let answer = generated(p.agentVersion, result!, seed + n);
  if (p.agentVersion === 2 && method === 'session/prompt') {
    // a v2 prompt is answered at insertion; the turn ends with the idle state the v1 editor waits for
    p.agent.deliver({ jsonrpc: '2.0', id: req.id as string, result: answer });
    const { sessionId, prompt } = req.params as Msg;
    const update = (u: Msg): void =>
      p.agent.deliver({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update: u } });
    if (typeof answer.messageId === 'string')
      update({ sessionUpdate: 'user_message', messageId: answer.messageId, content: prompt });
    update({ sessionUpdate: 'state_update', state: 'running' });
    update({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' });
    return;
  }
  if (method === 'session/new' && typeof answer.sessionId !== 'string') answer = { ...answer, sessionId: 'sx' };
  p.agent.deliver({ jsonrpc: '2.0', id: req.id as string, result: answer });
}

/** `session/new` through the bridge, answered by the agent with a fixed session (and a mode option). */
async function openSession(p: BridgePair): Promise<string> {
  const id = `new-${++ids}`;
  const sessionId = `sess-${ids}`;
  p.editor.deliver({ jsonrpc: '2.0', id, method: 'session/new', params: { cwd: '/tmp', mcpServers: [] } });
  const req = await p.agent.next((m) => m.method === 'session/new', 0, 'session/new at the agent');
  const modes =
    p.agentVersion === 1
      ? {
          modes: {
            currentModeId: 'ask',
            availableModes: [
              { id: 'ask', name: 'Ask' },
              { id: 'code', name: 'Code' },
            ],
          },
        }
      : {
          configOptions: [
            {
              type: 'select',
              configId: 'mode',
              name: 'Mode',
              category: 'mode',
              currentValue: 'ask',
              options: [
                { value: 'ask', name: 'Ask' },
                { value: 'code', name: 'Code' },
              ],
            },
          ],
        };
  p.agent.deliver({ jsonrpc: '2.0', id: req.id as string, result: { sessionId, ...modes } });
  await p.editor.next(isResponseTo(id), 0, 'session/new answer');
  return sessionId;
}
