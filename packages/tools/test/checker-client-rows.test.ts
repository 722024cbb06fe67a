/**
 * Issue 26 item 1, the checker column for `acp-kit check client`: the client's file system and
 * terminal methods are exercised by its cases. Each entry runs one case against `acp-kit run` (a
 * real client process), whose agent command is the checker's scripted agent behind
 * `acp-kit proxy --record` (a real process), and asserts that the case ran with no failed check,
 * passed the requirement it judges on those methods, and that the capture shows the checker's
 * requests of each method and the client's answers of the kind the requirement wants (file access
 * outside the session's roots refused; a terminal created and released, its output refused
 * afterwards). Needs dist (the global setup builds it).
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { readCapture } from '../src/captures/capture.js';
import { CLIENT_CASES } from '../src/checker/client/cases.js';
import { runClientChecks } from '../src/checker/client/runner.js';

const BIN = fileURLToPath(new URL('../../../bin/acp-kit.js', import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

type Answer = 'response' | 'error';
/** [case, the requirement it judges, each method it sends with the answer every request of it gets] */
const TABLE: Array<{ case: string; judged: string; methods: Record<string, Answer>; notifications?: string[] }> = [
  {
    case: 'client/fs-roots',
    judged: 'ACP-V1-FS-05',
    methods: { 'fs/read_text_file': 'error', 'fs/write_text_file': 'error' },
  },
  {
    case: 'client/terminal-release',
    judged: 'ACP-V1-TERM-08',
    methods: { 'terminal/create': 'response', 'terminal/release': 'response', 'terminal/output': 'error' },
  },
  {
    case: 'client/terminal-kill-wait',
    judged: 'ACP-V1-TERM-06',
    methods: {
      'terminal/create': 'response',
      'terminal/kill': 'response',
      'terminal/wait_for_exit': 'response',
      'terminal/output': 'response',
      'terminal/release': 'response',
    },
  },
  {
    case: 'client/elicitation-complete',
    judged: 'ACP-ALL-ELIC-09',
    methods: { 'elicitation/create': 'response' },
    notifications: ['elicitation/complete'],
  },
];

describe('check client: the stable rows each case exercises (v1, acp-kit run)', () => {
  it.each(TABLE.map((e) => [e.case, e] as const))('%s', async (_name, e) => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'acp-kit-check-client-rows-')));
    dirs.push(dir);
    const capture = join(dir, 'cap.ndjson');
    const agent = `${process.execPath} ${BIN} proxy --record ${capture} -- {agent}`;
    const run = await runClientChecks(
      {
        command: process.execPath,
        args: [BIN, 'run', '--agent', agent, 'hello'],
        env: { ACP_KIT_DATA_DIR: join(dir, 'data'), NO_COLOR: '1' },
        timeoutMs: 8000,
        agentVersion: 'test',
      },
      { protocols: [1], cases: CLIENT_CASES.filter((c) => c.name === e.case) },
    );
    const result = run.cases[0];
    expect(result?.status, result?.reason).toBe('ran');
    expect(result?.checks.filter((c) => !c.ok)).toEqual([]);
    expect(result?.checks).toContainEqual(expect.objectContaining({ id: e.judged, ok: true }));
    const { frames } = await readCapture(capture);
    for (const [method, kind] of Object.entries(e.methods)) {
      const asked = frames.filter((f) => f.dir === 'agent->editor' && f.kind === 'request' && f.method === method);
      expect(asked.length, `the checker sent ${method}`).toBeGreaterThan(0);
      for (const q of asked) {
        const answer = frames.find(
          (f) => f.dir === 'editor->agent' && JSON.stringify(f.id) === JSON.stringify(q.id) && f.kind !== 'request',
        );
        expect(answer?.kind, `the client's answer to ${method} ${JSON.stringify(q.id)}`).toBe(kind);
      }
    }
    for (const method of e.notifications ?? []) {
      const told = frames.filter((f) => f.dir === 'agent->editor' && f.kind === 'notification' && f.method === method);
      expect(told.length, `the checker sent ${method}`).toBeGreaterThan(0);
    }
  });
});
