/**
 * A streamed thought's style (dim italic) opens once per line and closes once, whatever the
 * number of chunks: before, each chunk (a word, as models stream) was wrapped on its own, so a
 * 30-word thought carried 120 escape sequences. Checked on the bytes `run` writes (real process,
 * built-in agent, colour forced on) and in-process on a multi-line thought cut by other output.
 */
import { describe, expect, it } from 'vitest';
import { SessionState } from '../packages/protocol/src/state/session-state.js';
import type { AnySessionUpdate } from '../packages/protocol/src/model/update.js';
import { TextRunReporter } from '../src/cli/render/run-reporter.js';
import { CliError } from '../src/cli/errors.js';
import { createStyle, stripAnsi } from '../src/cli/style.js';
import { cliEnv, ndjson, runCli, tempDir } from './fixtures/cli-helpers.js';

const ESC = /\u001b\[[0-9;]*m/g;
const escapes = (s: string) => s.match(ESC) ?? [];
const DIM_ITALIC = '\u001b[2m\u001b[3m';
const END = '\u001b[23m\u001b[22m';

describe('thought styling', () => {
  it('run: a thought streamed word by word is one dim-italic run (real process, FORCE_COLOR=1)', async () => {
    const cwd = tempDir('thought-style');
    const prompt = 'create notes.txt containing hello';
    // how the built-in agent streams its thought: many chunks
    const json = await runCli(['run', '--json', '--deny-all', prompt], { cwd, env: cliEnv() });
    const chunks = ndjson(json.stdout).filter(
      (e) => e.type === 'update' && e.update?.sessionUpdate === 'agent_thought_chunk',
    );
    expect(chunks.length).toBeGreaterThan(10);
    const thought = chunks.map((e) => e.update.content.text).join('');

    const r = await runCli(['run', '--deny-all', prompt], {
      cwd,
      env: cliEnv({ NO_COLOR: undefined, FORCE_COLOR: '1' }),
    });
    const line = r.stdout.split('\n').find((l) => stripAnsi(l).startsWith('thinking: '));
    expect(line, r.stdout).toBeDefined();
    expect(stripAnsi(line!)).toBe(`thinking: ${thought}`);
    // the label's dim pair, then one dim-italic pair around the whole text
    expect(line).toBe(`\u001b[2mthinking: \u001b[22m${DIM_ITALIC}${thought}${END}`);
    expect(escapes(line!)).toHaveLength(6);
  });

  it('a multi-line thought opens its style once per line and closes it before other output and stderr', () => {
    const out: string[] = [];
    const err: string[] = [];
    const style = createStyle(true);
    const rep = new TextRunReporter({
      stdout: (s) => void out.push(s),
      stderr: (s) => void err.push(s),
      style,
      errStyle: style,
    });
    rep.connected({
      protocolVersion: 2,
      agentCapabilities: {},
      authMethods: [],
      agent: ['a'],
      agentDisplay: 'a',
      cwd: '/p',
    });
    const state = new SessionState('s1');
    const words = 'one two three\nfour five six\n\nseven eight'.split(/(?<=[ \n])/);
    const send = (u: AnySessionUpdate) => {
      state.apply(u);
      rep.update('s1', u, state);
    };
    for (const w of words)
      send({ sessionUpdate: 'agent_thought_chunk', messageId: 't1', content: { type: 'text', text: w } });
    // mid-line: a note on stderr must not inherit the open style
    rep.cancelling();
    const beforeCancel = out.join('');
    expect(beforeCancel).toBe(
      `\u001b[2mthinking: \u001b[22m${DIM_ITALIC}one two three${END}\n${DIM_ITALIC}four five six${END}\n\n${DIM_ITALIC}seven eight${END}`,
    );
    send({ sessionUpdate: 'agent_message_chunk', messageId: 'a1', content: { type: 'text', text: 'answer' } });
    rep.failed(new CliError('interrupted', 130, 'stop'));
    expect(out.join('').slice(beforeCancel.length)).toBe('\nanswer');
  });
});
