/**
 * Terminal output in `run`'s transcript: chunks end anywhere (pipe reads, 64 KiB writes), and a
 * chunk that continues the line printed last goes on on that line. Before, every chunk started a
 * new "    │ " line, so one command line was shown as two; a UTF-8 character split across two
 * v2 `terminal_output_chunk`s was shown as two U+FFFD; with colour on, a chunk ending in a newline
 * was followed by an empty line.
 */
import { describe, expect, it } from 'vitest';
import { SessionState } from '../packages/protocol/src/state/session-state.js';
import type { AnySessionUpdate } from '../packages/protocol/src/model/update.js';
import { TextRunReporter, type ConnectedReport } from '../src/cli/render/run-reporter.js';
import { createStyle, stripAnsi, type Style } from '../src/cli/style.js';

const connected: ConnectedReport = {
  protocolVersion: 2,
  agentCapabilities: {},
  authMethods: [],
  agent: ['a'],
  agentDisplay: 'a',
  cwd: '/p',
};

function reporter(style: Style) {
  const out: string[] = [];
  const rep = new TextRunReporter({ stdout: (s) => void out.push(s), stderr: () => {}, style, errStyle: style });
  rep.connected(connected);
  const state = new SessionState('s1');
  const send = (u: AnySessionUpdate) => {
    state.apply(u);
    rep.update('s1', u, state);
  };
  return { rep, send, state, text: () => out.join('') };
}

const t1 = { sessionId: 's1', terminalId: 't1', command: { command: 'sh', args: ['-c', 'make'] } };
const b64 = (b: Uint8Array | string) => Buffer.from(b).toString('base64');

describe('terminal output lines', () => {
  for (const colour of [false, true]) {
    it(`client terminal (v1): a line cut across chunks is one line; other output in between starts a new one (colour ${colour ? 'on' : 'off'})`, () => {
      const { rep, send, text } = reporter(createStyle(colour));
      for (const c of ['buil', 'ding a', '\nbuilding b\nlin', 'king', '\n']) rep.clientTerminalOutput(t1, c);
      rep.clientTerminalOutput(t1, 'done ');
      send({ sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: { type: 'text', text: 'meanwhile' } });
      rep.clientTerminalOutput(t1, 'ok\n');
      rep.clientTerminalExit(t1, { exitCode: 0 });
      expect(stripAnsi(text())).toBe(
        [
          '    $ make',
          '    │ building a',
          '    │ building b',
          '    │ linking',
          '    │ done ',
          'meanwhile',
          '    │ ok',
          '    exit code 0',
          '',
        ].join('\n'),
      );
    });
  }

  it('display terminal (v2): a UTF-8 character split across two chunks is printed whole, on one line', () => {
    const { send, text } = reporter(createStyle(false));
    const bytes = Buffer.from('héllo wörld\n');
    send({ sessionUpdate: 'terminal_update', terminalId: 'd1', command: 'echo' });
    // 'é' is two bytes: cut between them
    send({ sessionUpdate: 'terminal_output_chunk', terminalId: 'd1', data: b64(bytes.subarray(0, 2)) });
    send({ sessionUpdate: 'terminal_output_chunk', terminalId: 'd1', data: b64(bytes.subarray(2)) });
    send({ sessionUpdate: 'terminal_update', terminalId: 'd1', exitStatus: { exitCode: 0 } });
    expect(text()).toBe(['    $ echo', '    │ héllo wörld', '    exit code 0', ''].join('\n'));
  });

  // the renderer reads the state's output per chunk: linear because that is a view of one buffer
  // (packages/protocol/test/state-session.test.ts counts its copies), which the renderer slices from where it was
  it('display terminal (v2): each chunk is printed once, in order; a later snapshot prints only what it adds', () => {
    const { send, text } = reporter(createStyle(false));
    send({ sessionUpdate: 'terminal_update', terminalId: 'd2', command: 'yes' });
    for (let i = 0; i < 200; i++)
      send({ sessionUpdate: 'terminal_output_chunk', terminalId: 'd2', data: b64(`line ${i}\n`) });
    const lines = stripAnsi(text())
      .split('\n')
      .filter((l) => l.startsWith('    │ '));
    expect(lines).toEqual(Array.from({ length: 200 }, (_, i) => `    │ line ${i}`));
    // a snapshot (ACP-V2-TERM-07) holding everything so far plus more: only the addition is printed
    send({
      sessionUpdate: 'terminal_update',
      terminalId: 'd2',
      output: { data: b64(`${Array.from({ length: 200 }, (_, i) => `line ${i}\n`).join('')}tail\n`) },
    });
    expect(stripAnsi(text()).endsWith('    │ line 199\n    │ tail\n')).toBe(true);
    expect(
      stripAnsi(text())
        .split('\n')
        .filter((l) => l.startsWith('    │ ')).length,
    ).toBe(201);
  });
});
