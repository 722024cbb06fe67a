// A bridge capture holds both legs of the connection (docs/captures.md "Bridge captures"): the editor's in
// the editor's version and the agent's in the agent's, byte-exact where the bridge read the line, each leg
// validated against its own negotiated version; stats and diff pick a leg. Real processes: acp-kit run
// (v2) -> acp-kit proxy --bridge 2 --record -> tee -> the built-in agent (offered v1).
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { frameSide, readCapture, type CaptureFrame } from '../src/proxy/index.js';
import { BIN, FIXTURES, cliEnv, ndjson, tempDir, type CliResult } from '../../../test/fixtures/cli-helpers.js';
import { useCli } from '../../../test/support/cli.js';

const node = process.execPath;
const runCliWith = useCli();
const cli = (args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> => runCliWith(args, { env });
/** Bytes a leg carried one way: each frame's raw plus the newline it was split on. */
const joined = (frames: CaptureFrame[], dir: CaptureFrame['dir']) =>
  frames
    .filter((f) => f.dir === dir)
    .map((f) => `${f.raw}\n`)
    .join('');
const initVersion = (frames: CaptureFrame[]): unknown => {
  const req = frames.find((f) => f.method === 'initialize' && f.kind === 'request')!;
  const answers = frames
    .filter((f) => f.kind === 'response' && f.dir === 'agent->editor')
    .map((f) => JSON.parse(f.raw));
  return answers.find((m) => m.id === req.id)?.result?.protocolVersion;
};

describe('proxy --bridge --record: both legs in the capture', () => {
  it('editor leg v2 and agent leg v1, the agent leg byte-exact both ways; validate checks each leg against its version; stats and diff pick a leg', async () => {
    const dir = tempDir('bridge-legs');
    const ws = join(dir, 'ws');
    mkdirSync(ws);
    const cap = join(dir, 'cap.ndjson');
    const env = cliEnv({ ACP_KIT_DATA_DIR: join(dir, 'data') });
    const tee = `${node} ${join(FIXTURES, 'proxy-tee.mjs')} ${join(dir, 'agent-got')} ${join(dir, 'agent-sent')} -- ${node} ${BIN} agent --model demo`;
    const agent = `${node} ${BIN} proxy --bridge 2 --record ${cap} -- ${tee}`;
    const run = await cli(
      [
        'run',
        '--json',
        '--protocol',
        '2',
        '--approve-all',
        '--cwd',
        ws,
        '--agent',
        agent,
        'create notes.txt containing hello',
      ],
      env,
    );
    expect(run.stderr).not.toMatch(/error/i);
    expect(run.code).toBe(0);

    const { frames, metas } = await readCapture(cap);
    const editorLeg = frames.filter((f) => frameSide(f) === 'editor');
    const agentLeg = frames.filter((f) => frameSide(f) === 'agent');
    // every frame says its leg; one seq counter for both, in the order the bridge saw them
    expect(frames.every((f) => f.side === 'editor' || f.side === 'agent')).toBe(true);
    expect(frames.map((f) => f.seq)).toEqual(frames.map((_, i) => i + 1));
    expect(initVersion(editorLeg)).toBe(2);
    expect(initVersion(agentLeg)).toBe(1);
    expect(metas).toContainEqual(expect.objectContaining({ protocolVersion: 2, agentProtocolVersion: 1 }));
    // the agent leg is what the agent really read and wrote, byte for byte
    expect(joined(agentLeg, 'editor->agent')).toBe(readFileSync(join(dir, 'agent-got'), 'utf8'));
    expect(joined(agentLeg, 'agent->editor')).toBe(readFileSync(join(dir, 'agent-sent'), 'utf8'));
    // the v2-only state_update is on the editor leg only (the bridge derived it from the v1 turn)
    const stateUpdates = (leg: CaptureFrame[]) =>
      leg.filter(
        (f) => f.method === 'session/update' && JSON.parse(f.raw).params.update.sessionUpdate === 'state_update',
      ).length;
    expect(stateUpdates(editorLeg)).toBeGreaterThan(0);
    expect(stateUpdates(agentLeg)).toBe(0);

    const validate = await cli(['validate', cap, '--json'], env);
    const result = ndjson(validate.stdout).at(-1);
    expect({ code: validate.code, result }).toEqual({
      code: 0,
      result: {
        type: 'result',
        frames: frames.length,
        protocolVersion: 2,
        agentProtocolVersion: 1,
        violations: 0,
        exitCode: 0,
      },
    });
    const human = await cli(['validate', cap], env);
    expect(human.stdout).toContain(`${frames.length} frames, editor leg v2, agent leg v1: no violations`);

    const stats = async (...extra: string[]) => ndjson((await cli(['stats', cap, '--json', ...extra], env)).stdout)[0]!;
    const [ed, ag] = [await stats(), await stats('--side', 'agent')];
    expect([ed.protocolVersion, ed.frames, ag.protocolVersion, ag.frames]).toEqual([
      2,
      editorLeg.length,
      1,
      agentLeg.length,
    ]);

    // diff compares one leg: --side agent aligns the agent leg only
    const diffLegs = await cli(['diff', cap, cap, '--side', 'agent', '--json'], env);
    expect(diffLegs.code).toBe(0);
    expect(ndjson(diffLegs.stdout)[0]!.a.frames).toBe(agentLeg.length);
  }, 60_000);
});
