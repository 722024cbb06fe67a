// Capture validation: hand-made captures each breaking exactly one rule, real captures of the built-in agent
// (v1 and v2) with none, and `--validate` on the live proxy reporting without altering traffic.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClientConnection } from '../../client/src/index.js';
import { CaptureValidator, openCapture, type Violation } from '../src/proxy/index.js';
import { connectRecording } from '../../../test/support/record-turn.js';

const BIN = fileURLToPath(new URL('../../../bin/acp-kit.js', import.meta.url));
const CAPTURES = fileURLToPath(new URL('../../../test/fixtures/proxy-captures/', import.meta.url));
const node = process.execPath;
const dirs: string[] = [];
const conns: ClientConnection[] = [];
const stops: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(conns.splice(0).map((c) => c.close()));
  await Promise.all(stops.splice(0).map((stop) => stop()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'acp-proxy-val-'));
  dirs.push(d);
  return d;
}
async function validate(path: string): Promise<Violation[]> {
  const v = new CaptureValidator();
  const out: Violation[] = [];
  for await (const f of openCapture(path)) out.push(...v.push(f));
  return [...out, ...v.finish()];
}

// each hand-made capture breaks exactly one rule: [file, rule, requirement, seqs]
const CASES: Array<[string, string, string, number[]]> = [
  ['v1-update-after-prompt-response', 'update-after-prompt-response', 'ACP-V1-PROMPT-03', [5, 7, 8]],
  ['v2-update-after-idle', 'update-after-idle', 'ACP-V2-LIFE-06', [9, 10]],
  ['unanswered-request', 'unanswered-request', 'ACP-ALL-RPC-01', [5]],
  ['response-to-unknown-id', 'response-to-unknown-id', 'ACP-ALL-RPC-03', [5]],
  ['duplicate-request-id', 'duplicate-request-id', 'ACP-ALL-RPC-03', [5, 6]],
  ['permission-pending-after-cancel', 'permission-pending-after-cancel', 'ACP-ALL-PERM-03', [6, 7, 8]],
  ['permission-unanswered-after-cancel', 'permission-pending-after-cancel', 'ACP-ALL-PERM-03', [6, 7]],
  ['v1-cancel-answered-with-error', 'cancel-answered-with-error', 'ACP-V1-CANCEL-06', [6, 7]],
  ['v2-cancel-ended-with-error', 'cancel-answered-with-error', 'ACP-V2-CANCEL-06', [8, 9]],
  ['v1-replay-after-load-response', 'replay-after-load-response', 'ACP-V1-LOAD-03', [5, 7, 8]],
  ['non-json-agent-stdout', 'non-json-agent-stdout', 'ACP-ALL-TRANS-05', [5]],
  ['non-json-editor-stdin', 'non-json-editor-stdin', 'ACP-ALL-TRANS-06', [5]],
  ['schema-prompt-response', 'schema', 'schema/v1', [6]],
];

describe('capture validation', () => {
  it.each(CASES)('%s: exactly one violation, %s (%s)', async (file, rule, requirement, seqs) => {
    const vs = await validate(join(CAPTURES, `${file}.ndjson`));
    expect(vs.map((v) => ({ rule: v.rule, requirement: v.requirement, seqs: v.seqs }))).toEqual([
      { rule, requirement, seqs },
    ]);
  });

  it('the clean v1 and v2 conversations (cancel with a cancelled permission, idle then a new message) pass', async () => {
    expect(await validate(join(CAPTURES, 'v1-clean.ndjson'))).toEqual([]);
    expect(await validate(join(CAPTURES, 'v2-clean.ndjson'))).toEqual([]);
  });

  it('acp-kit validate: exit 1 with the ID on violations, 0 when clean, 2 for a missing file; --json prints NDJSON', () => {
    const bad = spawnSync(node, [BIN, 'validate', join(CAPTURES, 'v1-cancel-answered-with-error.ndjson')], {
      encoding: 'utf8',
    });
    expect(bad.status).toBe(1);
    expect(bad.stdout).toMatch(/^ACP-V1-CANCEL-06 .*seq 6, 7/m);
    const json = spawnSync(node, [BIN, 'validate', '--json', join(CAPTURES, 'v2-update-after-idle.ndjson')], {
      encoding: 'utf8',
    });
    expect(json.status).toBe(1);
    const lines = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toEqual([
      expect.objectContaining({ type: 'violation', requirement: 'ACP-V2-LIFE-06', seqs: [9, 10] }),
      { type: 'result', frames: 10, protocolVersion: 2, violations: 1, exitCode: 1 },
    ]);
    expect(spawnSync(node, [BIN, 'validate', join(CAPTURES, 'v2-clean.ndjson')], { encoding: 'utf8' }).status).toBe(0);
    const missing = spawnSync(node, [BIN, 'validate', join(CAPTURES, 'nope.ndjson')], { encoding: 'utf8' });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('no such capture file');
  });

  it.each([1, 2] as const)(
    'a capture of the built-in agent over v%i has zero violations',
    async (version) => {
      const d = tmp();
      const cap = join(d, 'cap.ndjson');
      // the recording proxy runs in this process (as acp-kit proxy --record does it), the agent is a real process
      const { conn, finish } = await connectRecording(
        { capture: cap, dataDir: join(d, 'data'), protocol: version === 2 ? 'auto' : 1 },
        conns,
        stops,
      );
      expect(conn.protocolVersion).toBe(version);
      const s = await conn.newSession({ cwd: d });
      expect((await s.prompt('hello')).stopReason).toBe('end_turn');
      expect((await s.prompt('create notes.txt containing hello')).stopReason).toBe('end_turn');
      expect(readFileSync(join(d, 'notes.txt'), 'utf8')).toContain('hello');
      await finish();
      const frames: string[] = [];
      for await (const f of openCapture(cap)) frames.push(f.method ?? f.kind);
      expect(frames).toContain('session/request_permission');
      expect(await validate(cap)).toEqual([]);
    },
    30_000,
  );

  it('--validate on the live proxy logs a violation as it happens and forwards the bytes unchanged', () => {
    const d = tmp();
    const log = join(d, 'proxy.log');
    const input = '{"jsonrpc":"2.0","method":"_x/ping","params":{}}\n';
    const r = spawnSync(
      node,
      [
        BIN,
        'proxy',
        '--validate',
        '--log',
        log,
        '--',
        node,
        fileURLToPath(new URL('../../../test/fixtures/proxy-echo-agent.mjs', import.meta.url)),
      ],
      { input, encoding: 'utf8' },
    );
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`banner: not json\n{"jsonrpc":"2.0","method":"_x/hello"}\r\n${input}`);
    const logged = readFileSync(log, 'utf8');
    expect(logged.split('\n').filter((l) => l.includes(' violation '))).toEqual([
      expect.stringMatching(
        /violation ACP-ALL-TRANS-05 \[non-json-agent-stdout\] seq \d: agent wrote a line that is not JSON on stdout: "banner: not json"$/,
      ),
    ]);
    expect(readdirSync(d)).toEqual(['proxy.log']);
  });
});
