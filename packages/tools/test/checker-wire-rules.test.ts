/**
 * The checker's wire log runs the capture validator over its transcript (issue 25 item 5: one
 * rule engine): a rule the agent breaks is found on the agent's line, a line the checker sends on
 * purpose (malformed input) is never held against the agent, and the transcript judged as a
 * capture gives the same violations.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeFrame, type CaptureFrame } from '../src/captures/capture.js';
import { CaptureValidator } from '../src/captures/validate.js';
import { AgentDriver } from '../src/checker/driver.js';
import { at } from '../../protocol/src/json.js';
import { fixtureAgent } from '../../../test/support/checker-agents.js';

const dirs: string[] = [];
const drivers: AgentDriver[] = [];
afterEach(async () => {
  for (const d of drivers.splice(0)) await d.dispose();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('checker wire log: the capture validator judges the transcript', () => {
  it('an update after the v1 prompt response is the agent’s violation; the checker’s own junk line is not', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'acp-kit-wire-rules-')));
    dirs.push(dir);
    const d = new AgentDriver({
      inProcess: fixtureAgent({ BREAK: 'update-after-response', FIXTURE_STORE: dir }).agent,
    });
    drivers.push(d);
    await d.request(
      'initialize',
      {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      },
      5000,
    );
    const session = await d.request('session/new', { cwd: dir, mcpServers: [] }, 5000);
    const sessionId = at(session.result, 'sessionId');
    expect(typeof sessionId).toBe('string');
    const prompt = d.send('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    const response = await d.waitFor(
      (l) => l.dir === 'in' && l.msg?.id === prompt.id && l.msg.method === undefined,
      5000,
      'the prompt response',
    );
    // the round trip proves the late update (written right after the response) is in
    const ping = await d.roundTrip(5000);
    const junk = d.writeRaw('this line from the checker is not JSON');
    await d.roundTrip(5000);

    const late = d.violationsOf('update-after-prompt-response', response.seq, ping);
    expect(late.map((v) => v.seqs.slice(0, 2))).toEqual([[prompt.seq, response.seq]]);
    const lateLine = d.transcript.find((l) => l.seq === late[0]?.seqs[2]);
    expect([lateLine?.dir, at(lateLine?.msg, 'params', 'update', 'sessionUpdate')]).toEqual([
      'in',
      'agent_message_chunk',
    ]);

    // found, but on the checker's line: not the agent's
    expect(d.violations.filter((v) => v.rule === 'non-json-editor-stdin').map((v) => v.seqs)).toEqual([[junk]]);
    expect(d.violationsOf('non-json-editor-stdin', 0)).toEqual([]);

    // the transcript as a capture (the agent's lines agent->editor) is judged the same way
    const v = new CaptureValidator();
    const fromCapture = d.transcript
      .filter((l) => l.batch === undefined)
      .flatMap((l) => {
        const f = decodeFrame(l.raw);
        const frame: CaptureFrame = {
          seq: l.seq,
          t: 0,
          dir: l.dir === 'in' ? 'agent->editor' : 'editor->agent',
          raw: l.raw,
          kind: f.kind,
        };
        if (f.method !== undefined) frame.method = f.method;
        if (f.id !== undefined) frame.id = f.id;
        return v.push(frame);
      });
    expect(d.violations).toEqual(fromCapture);
  });

  it('an answer to no request of the checker is ACP-ALL-RPC-03, found by the validator', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'acp-kit-wire-rules-')));
    dirs.push(dir);
    const d = new AgentDriver({ inProcess: fixtureAgent({ BREAK: 'id-not-echoed', FIXTURE_STORE: dir }).agent });
    drivers.push(d);
    // the fixture answers a string id with "<id>-x"
    const sent = d.send('initialize', { protocolVersion: 1, clientCapabilities: {} }, 'wire-rules-1');
    const answer = await d.waitFor(
      (l) => l.dir === 'in' && l.msg?.id === 'wire-rules-1-x',
      5000,
      'the answer with the wrong id',
      sent.seq,
    );
    expect(d.violationsOf('response-to-unknown-id', 0).map((v) => v.seqs)).toEqual([[answer.seq]]);
    expect(d.findings.filter((f) => f.id === 'ACP-ALL-RPC-03').map((f) => f.seqs)).toEqual([[answer.seq]]);
  });
});
