/**
 * The capture validator's elicitation rules (issue 26 item 2) on captures recorded from real runs:
 * `acp-kit run` answering the built-in agent's question through `acp-kit proxy --record`, v1 and
 * v2, has no violation; the same capture edited to break one rule each (an unadvertised mode, two
 * scopes, an answer the schema does not allow, a reused url id, a completion of an id never sent)
 * has exactly that violation.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CaptureValidator, openCapture, type Violation } from '../src/proxy/index.js';
import { BIN, cliEnv, runCli, tempDir } from '../../../test/fixtures/cli-helpers.js';

const ASK = 'ask Which database? choices postgres, sqlite';
type Frame = { seq: number; t: number; dir: string; raw: string; kind: string; method?: string; id?: unknown };
type Msg = Record<string, any>;

async function validate(path: string): Promise<Violation[]> {
  const v = new CaptureValidator();
  const out: Violation[] = [];
  for await (const f of openCapture(path)) out.push(...v.push(f));
  return [...out, ...v.finish()];
}

/** Records `acp-kit run` (with `args`) answering the built-in agent through `acp-kit proxy --record`. */
async function record(protocol: '1' | '2', args: string[]): Promise<string> {
  const cwd = tempDir('validate-elicit');
  const cap = join(cwd, 'cap.ndjson');
  const agent = `${process.execPath} ${BIN} proxy --record ${cap} -- ${process.execPath} ${BIN} agent --model demo`;
  const r = await runCli(['run', '--protocol', protocol, '--agent', agent, ...args, ASK], { cwd, env: cliEnv() });
  expect(r.code, r.stderr).toBe(0);
  return cap;
}

/** The capture's lines: its header, then its frames with their messages parsed. */
function readCapture(path: string): { header: string; frames: Array<{ frame: Frame; msg: Msg }> } {
  const [header = '', ...rest] = readFileSync(path, 'utf8').trim().split('\n');
  const frames = rest
    .map((l) => JSON.parse(l) as Frame)
    .filter((f) => typeof f.raw === 'string')
    .map((frame) => ({ frame, msg: JSON.parse(frame.raw) as Msg }));
  return { header, frames };
}

/** Writes the frames (messages re-serialized, seqs renumbered) as a new capture. */
function writeCapture(path: string, header: string, frames: Array<{ frame: Frame; msg: Msg }>): string {
  const lines = frames.map(({ frame, msg }, i) => JSON.stringify({ ...frame, seq: i + 1, raw: JSON.stringify(msg) }));
  writeFileSync(path, `${header}\n${lines.join('\n')}\n`);
  return path;
}

const rules = (vs: Violation[]) => vs.map((v) => `${v.rule} ${v.requirement}`);

describe('capture validation: elicitation', () => {
  for (const protocol of ['1', '2'] as const) {
    it(`v${protocol}: real runs (answered, declined) have no violation`, async () => {
      const answered = await record(protocol, ['--answer', 'answer=sqlite']);
      const declined = await record(protocol, []);
      for (const cap of [answered, declined]) {
        const methods = readCapture(cap).frames.map((f) => f.frame.method);
        expect(methods).toContain('elicitation/create');
        expect(await validate(cap)).toEqual([]);
      }
    }, 60_000);
  }

  it('a real v2 capture edited to break one rule at a time has exactly that violation', async () => {
    const cap = await record('2', ['--answer', 'answer=sqlite']);
    const dir = tempDir('validate-elicit-broken');
    const broken = async (name: string, edit: (frames: Array<{ frame: Frame; msg: Msg }>) => void) => {
      const { header, frames } = readCapture(cap);
      edit(frames);
      return rules(await validate(writeCapture(join(dir, `${name}.ndjson`), header, frames)));
    };
    const find = (frames: Array<{ frame: Frame; msg: Msg }>, p: (m: Msg, f: Frame) => boolean) => {
      const i = frames.findIndex((x) => p(x.msg, x.frame));
      expect(i).toBeGreaterThanOrEqual(0);
      return i;
    };
    const create = (m: Msg) => m.method === 'elicitation/create';
    const createIndex = (frames: Array<{ frame: Frame; msg: Msg }>) => find(frames, create);
    const answerIndex = (frames: Array<{ frame: Frame; msg: Msg }>) => {
      const id = frames[createIndex(frames)]?.msg.id;
      return find(frames, (m, f) => f.dir === 'editor->agent' && m.id === id && 'result' in m);
    };

    // the client advertised only url mode: the form is asked all the same
    expect(
      await broken('unadvertised', (frames) => {
        const init = frames[find(frames, (m) => m.method === 'initialize')];
        if (init) init.msg.params.capabilities.elicitation = { url: {} };
      }),
    ).toEqual(['elicitation-mode-not-advertised ACP-ALL-ELIC-01']);

    // scoped to a session and a request at once
    const twoScopes = await broken('two-scopes', (frames) => {
      const f = frames[createIndex(frames)];
      if (f) f.msg.params.requestId = 7;
    });
    expect(twoScopes.filter((r) => !r.startsWith('schema'))).toEqual(['elicitation-scope ACP-ALL-ELIC-03']);

    // the client accepts a value the enum does not offer
    expect(
      await broken('off-schema', (frames) => {
        const f = frames[answerIndex(frames)];
        if (f) f.msg.result.content = { answer: 'mysql' };
      }),
    ).toEqual(['elicitation-answer-off-schema ACP-ALL-ELIC-07']);

    // url mode: an id reused while the first (accepted) is outstanding, then a completion of an id never sent
    expect(
      await broken('url-ids', (frames) => {
        const at = answerIndex(frames) + 1;
        const asked = frames[createIndex(frames)];
        if (!asked) return;
        const sessionId: unknown = asked.msg.params.sessionId;
        const url = (id: number): Msg => ({
          jsonrpc: '2.0',
          id,
          method: 'elicitation/create',
          params: { sessionId, mode: 'url', elicitationId: 'e1', url: 'https://x.example/a', message: 'Sign in' },
        });
        const fromAgent = (msg: Msg): { frame: Frame; msg: Msg } => ({
          frame: {
            seq: 0,
            t: 0,
            dir: 'agent->editor',
            raw: '',
            kind: 'id' in msg ? 'request' : 'notification',
            method: msg.method,
            ...('id' in msg ? { id: msg.id } : {}),
          },
          msg,
        });
        const answer = (id: number, action: string): { frame: Frame; msg: Msg } => ({
          frame: { seq: 0, t: 0, dir: 'editor->agent', raw: '', kind: 'response', id },
          msg: { jsonrpc: '2.0', id, result: { action } },
        });
        frames.splice(
          at,
          0,
          fromAgent(url(900)),
          answer(900, 'accept'),
          fromAgent(url(901)),
          answer(901, 'decline'),
          fromAgent({ jsonrpc: '2.0', method: 'elicitation/complete', params: { elicitationId: 'e1' } }),
          fromAgent({ jsonrpc: '2.0', method: 'elicitation/complete', params: { elicitationId: 'never-sent' } }),
        );
      }),
    ).toEqual(['elicitation-id-reused ACP-ALL-ELIC-09', 'elicitation-complete-unasked ACP-ALL-ELIC-09']);
  }, 60_000);
});
