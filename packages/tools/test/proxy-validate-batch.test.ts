// JSON-RPC 2.0 batches in a capture (ACP-V2-TRANS-11: accepted, answered as one array). A real editor's
// batch through `acp-kit proxy --record` to `acp-kit agent` (which answers it): `validate` judges each
// entry as a frame of its own. Before, every batch line was "not a JSON-RPC object" (a schema violation
// for the batch and for its answer, and the requests in it counted as never answered).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cliEnv, ndjson, runCli } from '../../../test/fixtures/cli-helpers.js';
import { jsonLines } from '../../../test/support/json-lines.js';
import { tempDir } from '../../../test/support/temp.js';

async function recordBatch(lines: string[]): Promise<{ cap: string; answers: unknown[] }> {
  const cap = join(tempDir('acp-batch-validate-'), 'x.ndjson');
  const proxy = spawn(process.execPath, [BIN, 'proxy', '--record', cap, '--', process.execPath, BIN, 'agent'], {
    env: cliEnv(),
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const exited = new Promise<number | null>((res) => proxy.on('close', (code) => res(code)));
  const out = jsonLines(proxy.stdout);
  const answers: unknown[] = [];
  for (const line of lines) {
    proxy.stdin.write(`${line}\n`);
    answers.push(await out.next());
  }
  proxy.stdin.end();
  expect(await exited).toBe(0);
  return { cap, answers };
}

const init = (id: number): string =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: 2, clientCapabilities: {}, info: { name: 'batch-editor', version: '1.0.0' } },
  });

describe('validate on a capture with JSON-RPC batches (real proxy and agent)', () => {
  it('a batch and its array answer: every entry judged, 0 violations', async () => {
    const { cap, answers } = await recordBatch([
      `[${init(1)}]`,
      `[${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: tempDir('acp-batch-cwd-'), mcpServers: [] } })}]`,
    ]);
    expect(answers[0]).toEqual([
      expect.objectContaining({ id: 1, result: expect.objectContaining({ protocolVersion: 2 }) }),
    ]);
    expect(answers[1]).toEqual([
      expect.objectContaining({ id: 2, result: expect.objectContaining({ sessionId: expect.any(String) }) }),
    ]);
    const v = await runCli(['validate', cap, '--json']);
    expect(ndjson(v.stdout).at(-1)).toMatchObject({ type: 'result', protocolVersion: 2, violations: 0 });
    expect(v.code).toBe(0);
  }, 30_000);

  it('an invalid entry in a batch is the one violation (the entry, not the batch)', async () => {
    const { cap, answers } = await recordBatch([`[${init(1)},7]`]);
    // JSON-RPC 2.0 lets a batch's answers come in any order
    expect(answers[0]).toHaveLength(2);
    expect(answers[0]).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: 1, result: expect.anything() }),
        expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32600 }) }),
      ]),
    );
    const v = await runCli(['validate', cap, '--json']);
    const events = ndjson(v.stdout);
    const violations = events.filter((e) => (e as { type?: string }).type === 'violation');
    expect(violations).toHaveLength(1);
    expect(JSON.stringify(violations[0])).toMatch(/must be a JSON-RPC 2\.0 request, notification or response object/);
    expect(v.code).toBe(1);
  }, 30_000);
});
