/**
 * Issue 26 item 1, the checker column: which stable methods and update kinds `acp-kit check agent`
 * really exercises. Each entry of the table runs one case of the checker, at one protocol version,
 * against acp-kit's coding agent (demo model) in process, with the wire between them recorded;
 * it asserts that the case ran without a failed check and that on the wire the checker
 * - sent the method (`sends`),
 * - answered the agent's request of that method (`answers`),
 * - received the update kind and passed the requirement that judges it (`judges`).
 * `authenticate` needs an agent that offers a login: the scripted agent with AGENT_AUTH=1.
 * The update kinds no case judges on its own are judged by the schema check every received line
 * gets: the scripted e2e agent sends each in the prompt case's turn, which passes as sent and fails,
 * pointing at that line, when the update of that one kind is broken on its way to the checker.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { InMemorySessionStore } from '../../agent/src/session-store.js';
import { serveAgentOnStreams } from '../../agent/src/stdio.js';
import { ALL_CASES } from '../src/checker/cases/index.js';
import type { InProcessAgent } from '../src/checker/launch.js';
import { runChecks, type CaseResult } from '../src/checker/runner.js';
import { acpKitAgent } from '../../../test/support/checker-agents.js';
// @ts-expect-error plain ESM fixture without type declarations
import { createScriptedAgent } from '../../../test/fixtures/agent-scripted-definition.mjs';
// @ts-expect-error plain ESM fixture without type declarations
import { createE2EAgent } from '../../../test/fixtures/e2e-agent-definition.mjs';
import { AcpError } from '../../protocol/src/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const scratch = (): string => {
  const d = realpathSync(mkdtempSync(join(tmpdir(), 'acp-kit-checker-rows-')));
  dirs.push(d);
  return d;
};

type Msg = { id?: unknown; method?: string; params?: { update?: { sessionUpdate?: unknown } } };
/** One line of the wire: `out` from the checker to the agent, `in` from the agent. */
interface Line {
  dir: 'in' | 'out';
  msg: Msg;
}

/** Appends every JSON line of `stream` to `log` with direction `dir` (lines may span chunks). */
function record(stream: Readable, dir: Line['dir'], log: Line[]): void {
  let rest = '';
  stream.on('data', (b: Buffer) => {
    const lines = (rest + b.toString('utf8')).split('\n');
    rest = lines.pop() ?? '';
    for (const l of lines) if (l.trim().startsWith('{')) log.push({ dir, msg: JSON.parse(l) as Msg });
  });
}

/** `agent` with the wire of every instance recorded into `log`. */
function tapped(agent: InProcessAgent, log: Line[]): InProcessAgent {
  return (io) => {
    const input = new PassThrough();
    const output = new PassThrough();
    record(input, 'out', log);
    record(output, 'in', log);
    io.input.pipe(input);
    output.pipe(io.output);
    return agent({ input, output, stderr: io.stderr });
  };
}

/** The scripted agent (test/fixtures/agent-scripted-definition.mjs) offering auth methods, in process. */
const scriptedWithAuth: InProcessAgent = (io) => {
  const log = (text: string): void => void io.stderr.write(text);
  const connection = serveAgentOnStreams(createScriptedAgent({ env: { AGENT_AUTH: '1' }, log }), io.input, io.output, {
    store: new InMemorySessionStore(),
  });
  return { closed: connection.closed, close: () => connection.close() };
};

/** Runs case `name` at version `v` against `agent` with the wire recorded; its result and the wire. */
async function runCase(
  name: string,
  v: 1 | 2,
  agent: 'coding' | 'scripted-auth',
): Promise<{ result: CaseResult; wire: Line[] }> {
  const c = ALL_CASES.find((x) => x.name === name);
  if (!c) throw new Error(`no checker case ${name}`);
  const dir = scratch();
  const wire: Line[] = [];
  const inner = agent === 'coding' ? acpKitAgent(dir).agent : scriptedWithAuth;
  const run = await runChecks(
    {
      inProcess: tapped(inner, wire),
      cwd: dir,
      timeoutMs: 8000,
      prompt: 'run sleep 3',
      clientVersion: 'test',
      ...(agent === 'scripted-auth' ? { auth: 'token' } : {}),
    },
    { protocols: [v], cases: [c] },
  );
  const result = run.cases[0];
  if (!result) throw new Error(`case ${name} did not run`);
  return { result, wire };
}

interface Entry {
  case: string;
  v: 1 | 2;
  agent?: 'coding' | 'scripted-auth';
  /** methods the checker sends */
  sends?: string[];
  /** agent requests the checker answers */
  answers?: string[];
  /** [update kind, the requirement the case passes on it] */
  judges?: Array<[string, string]>;
}

const TABLE: Entry[] = [
  { case: 'initialize/basic', v: 1, agent: 'scripted-auth', sends: ['authenticate'] },
  { case: 'initialize/basic', v: 2, agent: 'scripted-auth', sends: ['auth/login'] },
  { case: 'sessions/list', v: 1, sends: ['session/list'] },
  { case: 'sessions/list', v: 2, sends: ['session/list'] },
  { case: 'sessions/close', v: 1, sends: ['session/close'] },
  { case: 'sessions/close', v: 2, sends: ['session/close'] },
  { case: 'sessions/delete', v: 1, sends: ['session/delete'] },
  { case: 'sessions/delete', v: 2, sends: ['session/delete'] },
  { case: 'sessions/set-config-option', v: 1, sends: ['session/set_config_option'] },
  { case: 'sessions/set-config-option', v: 2, sends: ['session/set_config_option'] },
  {
    case: 'sessions/load-v1',
    v: 1,
    sends: ['session/load'],
    judges: [['user_message_chunk', 'ACP-V1-LOAD-02']],
  },
  {
    case: 'sessions/resume-v2',
    v: 2,
    sends: ['session/resume'],
    judges: [
      ['user_message', 'ACP-V2-RESUME-04'],
      ['agent_message', 'ACP-V2-RESUME-04'],
      ['state_update', 'ACP-V2-RESUME-08'],
    ],
  },
  { case: 'cancel/turn', v: 1, sends: ['session/cancel'] },
  { case: 'cancel/turn', v: 2, sends: ['session/cancel'] },
  {
    case: 'prompt-v1/turn',
    v: 1,
    sends: ['session/prompt'],
    answers: ['session/request_permission'],
    judges: [
      ['plan', 'ACP-V1-PLAN-01'],
      ['tool_call', 'ACP-V1-TOOL-01'],
    ],
  },
  {
    case: 'lifecycle-v2/prompt',
    v: 2,
    sends: ['session/prompt'],
    answers: ['session/request_permission'],
    judges: [
      ['user_message', 'ACP-V2-LIFE-04'],
      ['state_update', 'ACP-V2-LIFE-05'],
      ['plan_update', 'ACP-V2-PLAN-01'],
      ['tool_call_update', 'ACP-V2-TOOL-02'],
      ['agent_thought_chunk', 'ACP-V2-MSG-01'],
    ],
  },
];

const kindOf = (m: Msg): unknown => m.params?.update?.sessionUpdate;

describe('checker: the stable rows each case exercises', () => {
  it.each(TABLE.map((e) => [`${e.case} v${e.v}`, e] as const))('%s', async (_title, e) => {
    const { result, wire } = await runCase(e.case, e.v, e.agent ?? 'coding');
    expect(result.status, result.reason).toBe('ran');
    expect(result.checks.filter((c) => !c.ok)).toEqual([]);
    for (const method of e.sends ?? [])
      expect(
        wire.some((l) => l.dir === 'out' && l.msg.method === method),
        `the checker sent ${method}`,
      ).toBe(true);
    for (const method of e.answers ?? []) {
      const asked = wire.filter((l) => l.dir === 'in' && l.msg.method === method && l.msg.id !== undefined);
      expect(asked.length, `the agent sent ${method}`).toBeGreaterThan(0);
      for (const q of asked)
        expect(
          wire.some(
            (l) =>
              l.dir === 'out' && l.msg.method === undefined && JSON.stringify(l.msg.id) === JSON.stringify(q.msg.id),
          ),
          `the checker answered ${method} ${JSON.stringify(q.msg.id)}`,
        ).toBe(true);
    }
    for (const [kind, id] of e.judges ?? []) {
      const updates = wire.filter((l) => l.dir === 'in' && l.msg.method === 'session/update' && kindOf(l.msg) === kind);
      expect(updates.length, `the agent sent ${kind}`).toBeGreaterThan(0);
      expect(result.checks, `${id} judged on ${kind}`).toContainEqual(expect.objectContaining({ id, ok: true }));
    }
  });
});

/** The scripted e2e agent (test/fixtures/e2e-agent-definition.mjs) in process; its turns are the prompt's script. */
const e2eAgent: InProcessAgent = (io) => {
  const connection = serveAgentOnStreams(
    createE2EAgent({ AcpError, peer: () => connection.peer, log: (t: string) => void io.stderr.write(t), env: {} }),
    io.input,
    io.output,
    { store: new InMemorySessionStore() },
  );
  return { closed: connection.closed, close: () => connection.close() };
};

/**
 * `agent` with every field but `sessionUpdate` of each update of kind `kind` replaced by a value of
 * another type (a number for strings, objects and arrays, a string for numbers): a line no schema
 * branch of that kind accepts. Other lines pass unchanged.
 */
function breaking(agent: InProcessAgent, kind: string): InProcessAgent {
  return (io) => {
    const output = new PassThrough();
    let rest = '';
    output.on('data', (b: Buffer) => {
      const lines = (rest + b.toString('utf8')).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) {
        const msg = line.trim().startsWith('{') ? (JSON.parse(line) as Msg) : undefined;
        const update = msg?.params?.update as Record<string, unknown> | undefined;
        if (msg?.method === 'session/update' && update?.sessionUpdate === kind)
          for (const key of Object.keys(update))
            if (key !== 'sessionUpdate') update[key] = typeof update[key] === 'number' ? 'x' : 12345;
        io.output.write(`${update ? JSON.stringify(msg) : line}\n`);
      }
    });
    return agent({ input: io.input, output, stderr: io.stderr });
  };
}

const text = (t: string) => ({ type: 'text', text: t });
/** One update of each kind the checker has no case of its own for, sent in the turn of the prompt case. */
const SCHEMA_JUDGED: Array<{ kind: string; versions: Array<1 | 2>; update: Record<string, unknown> }> = [
  { kind: 'agent_thought', versions: [2], update: { messageId: 't', content: [text('whole')] } },
  {
    kind: 'available_commands_update',
    versions: [1, 2],
    update: { availableCommands: [{ name: 'c', description: 'd' }] },
  },
  { kind: 'compaction_update', versions: [2], update: { compactionId: 'c', status: 'in_progress' } },
  { kind: 'compaction_summary_chunk', versions: [2], update: { compactionId: 'c', content: text('sum') } },
  { kind: 'current_mode_update', versions: [1], update: { currentModeId: 'code' } },
  { kind: 'notice', versions: [2], update: { severity: 'warning', title: 'T', description: 'D' } },
  { kind: 'session_info_update', versions: [1, 2], update: { title: 'T' } },
  { kind: 'usage_update', versions: [1, 2], update: { used: 1, size: 10 } },
  {
    kind: 'tool_call_content_chunk',
    versions: [2],
    update: { toolCallId: 'tc', content: { type: 'content', content: text('x') } },
  },
  { kind: 'terminal_update', versions: [2], update: { terminalId: 'term', command: 'ls', cwd: '/tmp' } },
  { kind: 'terminal_output_chunk', versions: [2], update: { terminalId: 'term', data: 'QQ==' } },
];
/** v2 sends the mode as a config option; v1's config_option_update needs no agent setup either. */
const CONFIG = { sessionUpdate: 'config_option_update', configOptions: [] };

describe('checker: every update the agent sends is judged against the schema of its kind', () => {
  for (const v of [1, 2] as const) {
    const caseName = v === 1 ? 'prompt-v1/turn' : 'lifecycle-v2/prompt';
    const rows = SCHEMA_JUDGED.filter((r) => r.versions.includes(v));
    const actions = [
      ...(v === 2
        ? [{ send: { sessionUpdate: 'tool_call_update', toolCallId: 'tc', title: 'T', status: 'in_progress' } }]
        : []),
      ...rows.map((r) => ({ send: { sessionUpdate: r.kind, ...r.update } })),
      { send: CONFIG },
    ];
    const check = (agent: InProcessAgent, wire: Line[]) =>
      runChecks(
        {
          inProcess: tapped(agent, wire),
          cwd: scratch(),
          timeoutMs: 8000,
          prompt: JSON.stringify({ actions }),
          clientVersion: 'test',
        },
        { protocols: [v], cases: ALL_CASES.filter((c) => c.name === caseName) },
      );

    it(`v${v} ${caseName}: the turn with every kind passes as sent`, async () => {
      const wire: Line[] = [];
      const run = await check(e2eAgent, wire);
      expect(run.cases[0]?.status, run.cases[0]?.reason).toBe('ran');
      expect(run.cases[0]?.checks.filter((c) => !c.ok)).toEqual([]);
      const got = new Set(wire.filter((l) => l.dir === 'in').map((l) => kindOf(l.msg)));
      for (const r of rows) expect(got.has(r.kind), r.kind).toBe(true);
      expect(got.has('config_option_update')).toBe(true);
    });

    it.each([...rows.map((r) => r.kind), 'config_option_update'])(
      `v${v} ${caseName}: a broken %s fails the case`,
      async (kind) => {
        const wire: Line[] = [];
        const run = await check(breaking(e2eAgent, kind), wire);
        const failed = run.cases[0]?.checks.filter((c) => !c.ok) ?? [];
        expect(failed.length, kind).toBeGreaterThan(0);
        // the failure points at that update: the excerpt line marked <== is it
        const pointed = failed.some((c) =>
          (c.excerpt ?? []).some((l) => l.includes('<==') && l.includes(`"sessionUpdate":"${kind}"`)),
        );
        expect(pointed, JSON.stringify(failed)).toBe(true);
      },
    );
  }
});
