// Issue 10's round trip, as real processes: record a run of the built-in agent through `acp-kit proxy
// --record A`, replay it both ways (`replay A --as client --record B -- acp-kit agent`, and a client
// recorded through a proxy in front of `replay A --as agent`, capture C), and `acp-kit diff` finds no
// differences but timing. Every run uses the same, emptied workspace, so the sessions are the same
// sessions; a run in another workspace is a real difference, and diff reports it.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cliEnv, tempDir, type CliResult } from './fixtures/cli-helpers.js';
import { useCli } from './support/cli.js';

const node = process.execPath;
const PROMPT = 'create notes.txt containing hello';
const runCliWith = useCli();
const cli = (args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> => runCliWith(args, { env });

describe.each([1, 2] as const)('record, replay both ways, diff: protocol v%s', (version) => {
  it('diff A B (replay --as client) and diff A C (replay --as agent behind a recording proxy) exit 0: no differences but timing', async () => {
    const dir = tempDir(`rrd-v${version}`);
    const ws = join(dir, 'ws');
    /** The workspace as it was before the recorded run: empty. */
    const freshWorkspace = () => {
      rmSync(ws, { recursive: true, force: true });
      mkdirSync(ws);
    };
    const env = cliEnv({ ACP_KIT_DATA_DIR: join(dir, 'data') });
    const [A, B, C] = ['A', 'B', 'C'].map((n) => join(dir, `${n}.ndjson`));
    const agent = `${node} ${BIN} agent --model demo`;
    const runThrough = (agentCommand: string, cwd: string) => cli(['run', '--json', '--protocol', String(version), '--approve-all', '--cwd', cwd, '--agent', agentCommand, PROMPT], env);

    freshWorkspace();
    const a = await runThrough(`${node} ${BIN} proxy --record ${A} -- ${agent}`, ws);
    expect(a.code).toBe(0);

    freshWorkspace();
    const b = await cli(['replay', A, '--as', 'client', '--record', B, '--', node, BIN, 'agent', '--model', 'demo'], env);
    expect(b.code).toBe(0);
    const ab = await cli(['diff', A, B], env);
    expect(ab.stdout).toContain('no differences (timing aside)');
    expect(ab.code).toBe(0);

    freshWorkspace();
    // recorded timing (the default), as a client would see the recorded agent
    const c = await runThrough(`${node} ${BIN} proxy --record ${C} -- ${node} ${BIN} replay ${A} --as agent`, ws);
    expect(c.code).toBe(0);
    const ac = await cli(['diff', A, C], env);
    expect(ac.stdout).toContain('no differences (timing aside)');
    expect(ac.code).toBe(0);

    // the same replay in another workspace: the paths differ, and diff says where
    const ws2 = join(dir, 'ws2');
    mkdirSync(ws2);
    const D = join(dir, 'D.ndjson');
    expect((await cli(['replay', A, '--as', 'client', '--cwd', ws2, '--record', D, '--', node, BIN, 'agent', '--model', 'demo'], env)).code).toBe(0);
    const ad = await cli(['diff', A, D], env);
    expect(ad.code).toBe(1);
    expect(ad.stdout).toContain(`params.cwd: ${JSON.stringify(ws)} -> ${JSON.stringify(ws2)}`);
  }, 90_000);
});
