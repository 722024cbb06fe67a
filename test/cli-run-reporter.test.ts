/**
 * `acp-kit run`'s reporters (text and NDJSON) and the transcript renderer, in-process with
 * string sinks: what each event prints, duplicates that must not appear, and linear streaming.
 */
import { describe, expect, it } from 'vitest';
import { SessionState } from '../packages/protocol/src/state/session-state.js';
import type { AnySessionUpdate } from '../packages/protocol/src/model/update.js';
import { CliError, usageError } from '../src/cli/errors.js';
import {
  NdjsonRunReporter,
  TextRunReporter,
  displayCommand,
  type ConnectedReport,
} from '../src/cli/render/run-reporter.js';
import { TranscriptRenderer } from '../src/cli/render/transcript.js';
import { createStyle } from '../src/cli/style.js';

const plain = createStyle(false);

function sinks() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: {
      stdout: (s: string) => void out.push(s),
      stderr: (s: string) => void err.push(s),
      style: plain,
      errStyle: plain,
    },
  };
}

const connected: ConnectedReport = {
  protocolVersion: 2,
  agentInfo: { name: 'acp-kit-agent', version: '1.2.3', title: 'acp-kit coding agent' },
  agentCapabilities: {},
  authMethods: [],
  agent: ['node', 'agent.js'],
  agentDisplay: 'node agent.js',
  model: 'openai:gpt-4o-mini',
  cwd: '/work/project',
};

/** Applies each update to a state and hands it to `sink`, as `ClientSession.onUpdate` does. */
function feed(state: SessionState, updates: AnySessionUpdate[], sink: (u: AnySessionUpdate) => void): void {
  for (const u of updates) {
    state.apply(u);
    sink(u);
  }
}

const chunk = (text: string, messageId = 'm1'): AnySessionUpdate => ({
  sessionUpdate: 'agent_message_chunk',
  messageId,
  content: { type: 'text', text },
});

describe('text reporter', () => {
  it('prints the header with agent, model, protocol and cwd on stderr, the transcript on stdout', () => {
    const { out, err, io } = sinks();
    const r = new TextRunReporter(io);
    r.connected(connected);
    expect(err.join('')).toBe(
      'acp-kit: acp-kit coding agent 1.2.3 · model openai:gpt-4o-mini · protocol v2 · /work/project\n',
    );
    const state = new SessionState('s1');
    feed(state, [chunk('Hello '), chunk('world')], (u) => r.update('s1', u, state));
    r.finished({
      stopReason: 'end_turn',
      exitCode: 0,
      rejectedPermissions: 0,
      policyName: 'approve-reads',
      usage: { used: 1200, size: 0 } as never,
    });
    expect(out.join('')).toBe('Hello world\n— stop reason: end_turn (the agent finished) · 1.2k/0 tokens\n');
  });

  it('explains a failure on stderr with its hint and writes nothing to stdout', () => {
    const { out, err, io } = sinks();
    new TextRunReporter(io).failed(usageError('the prompt is empty'));
    expect(out).toEqual([]);
    expect(err.join('')).toBe('acp-kit: error: the prompt is empty\nhint: Run with --help to see the options.\n');
  });

  it('shows a v1 client terminal command once, as the user would type it', () => {
    const { out, io } = sinks();
    const r = new TextRunReporter(io);
    r.connected(connected);
    const t = {
      sessionId: 's1',
      terminalId: 't1',
      command: { command: '/bin/sh', args: ['-c', 'echo hi; echo there'] },
    };
    r.clientTerminalOutput(t, 'hi\n');
    r.clientTerminalOutput(t, 'there\n');
    r.clientTerminalExit(t, { exitCode: 0 });
    expect(out.join('')).toBe('    $ echo hi; echo there\n    │ hi\n    │ there\n    exit code 0\n');
  });
});

describe('displayCommand', () => {
  it('shows `sh -c <script>` as the script and quotes other arguments', () => {
    expect(displayCommand('/bin/sh', ['-c', 'echo hi; echo there'])).toBe('echo hi; echo there');
    expect(displayCommand('git', ['commit', '-m', 'two words'])).toBe("git commit -m 'two words'");
    expect(displayCommand('ls -la', [])).toBe('ls -la');
  });
});

describe('NDJSON reporter', () => {
  it('prints connection first and exactly one result last, also when the run fails', () => {
    const { out, err, io } = sinks();
    const r = new NdjsonRunReporter(io);
    r.connected(connected);
    r.session({ sessionId: 's1', cwd: '/work/project', mode: 'new' });
    r.failed(new CliError('agent_crashed', 9, 'the agent exited with code 3: node agent.js'), {
      rejectedPermissions: 1,
    });
    r.failed(new CliError('interrupted', 130, 'interrupted by SIGTERM'));
    r.finished({ stopReason: 'end_turn', exitCode: 0, rejectedPermissions: 0, policyName: 'approve-reads' });
    const events = out
      .join('')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, any>);
    expect(events.map((e) => e.type)).toEqual(['connection', 'session', 'result']);
    expect(events[0]!.model).toBe('openai:gpt-4o-mini');
    expect(events[2]).toEqual({
      type: 'result',
      stopReason: null,
      exitCode: 9,
      rejectedPermissions: 1,
      error: { kind: 'agent_crashed', message: 'the agent exited with code 3: node agent.js', exitCode: 9 },
    });
    expect(err.join('')).toContain('acp-kit: error: the agent exited with code 3');
  });

  it('drops tool_call_updates that change nothing (the re-applied tool call of a permission request)', () => {
    const { out, io } = sinks();
    const r = new NdjsonRunReporter(io);
    const state = new SessionState('s1');
    const full: AnySessionUpdate = {
      sessionUpdate: 'tool_call_update',
      toolCallId: 'tool-4',
      title: 'Run `echo hi`',
      kind: 'execute',
      status: 'pending',
    };
    feed(
      state,
      [
        full,
        { ...full } as AnySessionUpdate, // v2: the request repeats the tool call
        { sessionUpdate: 'tool_call_update', toolCallId: 'tool-4' }, // v1: a bare id
        { sessionUpdate: 'tool_call_update', toolCallId: 'tool-4', status: 'completed' },
      ],
      (u) => r.update('s1', u),
    );
    const updates = out
      .join('')
      .trimEnd()
      .split('\n')
      .map((l) => (JSON.parse(l) as { update: Record<string, unknown> }).update);
    expect(updates).toEqual([
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'tool-4',
        title: 'Run `echo hi`',
        kind: 'execute',
        status: 'pending',
      },
      { sessionUpdate: 'tool_call_update', toolCallId: 'tool-4', status: 'completed' },
    ]);
  });
});

describe('transcript renderer', () => {
  it('prints the command header of a v2 terminal once, however tool call and terminal interleave', () => {
    const out: string[] = [];
    const r = new TranscriptRenderer({ write: (s) => void out.push(s), style: plain });
    const state = new SessionState('s1');
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    feed(
      state,
      [
        { sessionUpdate: 'tool_call_update', toolCallId: 't', title: 'Run', status: 'in_progress' },
        { sessionUpdate: 'terminal_update', terminalId: 'term-1', command: 'echo hi; echo there' },
        { sessionUpdate: 'tool_call_update', toolCallId: 't', content: [{ type: 'terminal', terminalId: 'term-1' }] },
        { sessionUpdate: 'terminal_output_chunk', terminalId: 'term-1', data: b64('hi\n') },
        { sessionUpdate: 'terminal_update', terminalId: 'term-1', exitStatus: { exitCode: 0 } },
      ],
      (u) => r.onUpdate(u, state),
    );
    const text = out.join('');
    expect(text.match(/\$ echo hi; echo there/g)).toHaveLength(1);
    expect(text).toContain('    │ hi\n');
  });

  it('does not repeat on the stop line an error the agent already wrote in its message', () => {
    const out: string[] = [];
    const r = new TranscriptRenderer({ write: (s) => void out.push(s), style: plain });
    const state = new SessionState('s1');
    feed(state, [chunk('⚠️ Model request failed: '), chunk('HTTP 401: bad key')], (u) => r.onUpdate(u, state));
    r.stop('error', { code: -32603, message: 'Model request failed: HTTP 401: bad key' });
    const text = out.join('');
    expect(text.match(/HTTP 401: bad key/g)).toHaveLength(1);
    expect(text).toContain('— stop reason: error (code -32603, see above)');
    // an error the agent did not explain is shown in full
    r.stop('error', { code: -32000, message: 'quota exceeded' });
    expect(out.join('')).toContain('stop reason: error quota exceeded (code -32000)');
  });

  it('streams N chunks as exactly their joined text, each chunk written once', () => {
    const out: string[] = [];
    const r = new TranscriptRenderer({ write: (s) => void out.push(s), style: plain });
    const state = new SessionState('s1');
    const parts = Array.from({ length: 500 }, (_, i) => `part ${i}; `);
    feed(
      state,
      parts.map((p) => chunk(p)),
      (u) => r.onUpdate(u, state),
    );
    expect(out).toEqual(parts);
    // a second message after other output starts on its own line, and so does a resumed one
    feed(state, [chunk('other', 'm2'), chunk(' more', 'm1')], (u) => r.onUpdate(u, state));
    expect(out.slice(parts.length).join('')).toBe('\nother\n more');
  });

  it('does work per chunk that does not grow with the message (it never re-reads the message text)', () => {
    const out: string[] = [];
    const r = new TranscriptRenderer({ write: (s) => void out.push(s), style: plain });
    const state = new SessionState('s1');
    // count the characters of message content the renderer reads from the state
    let charsRead = 0;
    const counted = new Proxy(state, {
      get(target, prop, receiver) {
        if (prop !== 'message') return Reflect.get(target, prop, receiver);
        return (role: 'agent', id: string) => {
          const m = target.message(role, id);
          if (!m) return m;
          return new Proxy(m, {
            get(mt, mp, mr) {
              const v = Reflect.get(mt, mp, mr);
              if (mp === 'content') for (const b of v as Array<{ text?: string }>) charsRead += b.text?.length ?? 0;
              if (mp === 'text') charsRead += (v as string).length;
              return v;
            },
          });
        };
      },
    });
    const n = 2000;
    const text = 'x'.repeat(40);
    feed(
      state,
      Array.from({ length: n }, () => chunk(text)),
      (u) => r.onUpdate(u, counted),
    );
    expect(out.join('').length).toBe(n * text.length);
    // re-reading the whole text per chunk would read ~n²/2 * 40 characters (80 million here)
    expect(charsRead).toBeLessThanOrEqual(n * text.length);
  });
});
