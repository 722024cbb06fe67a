/**
 * Issue 26 item 1, the checker column: which stable methods and update kinds `acp-kit check agent`
 * really exercises. Each entry of the table runs one case of the checker, at one protocol version,
 * against acp-kit's coding agent (demo model) in process, with the wire between them recorded;
 * it asserts that the case ran without a failed check and that on the wire the checker
 * - sent the method (`sends`),
 * - answered the agent's request of that method (`answers`),
 * - received the update kind and passed the requirement that judges it (`judges`).
 * `authenticate` needs an agent that offers a login: the scripted agent with AGENT_AUTH=1.
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
