/**
 * Issue 26 item 1, the run/chat column: what `acp-kit run` (a real process) does with each stable
 * method and update kind the scripted e2e agent (test/fixtures/e2e-agent.mjs) drives it through.
 * The agent runs behind `acp-kit proxy --record`, so the wire is in a capture: the test asserts
 * the requests run sends, its answers to the agent's requests (file system, terminals,
 * permission), the `--json` events it prints for every update kind (decoded, with their content),
 * and, in text mode, the lines it renders for them. Needs dist (the global setup builds it).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCapture } from '../packages/tools/src/captures/capture.js';
import type { CaptureFrame } from '../packages/tools/src/captures/frame.js';
import { BIN, FIXTURES, cliEnv, ndjson, runCli, tempDir } from './fixtures/cli-helpers.js';

const E2E = join(FIXTURES, 'e2e-agent.mjs');
const text = (t: string) => ({ type: 'text', text: t });
const send = (update: Record<string, unknown>) => ({ send: update });
const b64 = (s: string) => Buffer.from(s).toString('base64');

/** Every neutral update kind a turn can send (each becomes its wire kind for the version). */
const UPDATES: Array<Record<string, unknown>> = [
  { sessionUpdate: 'agent_thought_chunk', messageId: 't1', content: text('musing') },
  { sessionUpdate: 'agent_thought', messageId: 't2', content: [text('THOUGHT-WHOLE')] },
  { sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: text('chunked ') },
  { sessionUpdate: 'agent_message', messageId: 'm2', content: [text('MESSAGE-WHOLE')] },
  { sessionUpdate: 'tool_call_update', toolCallId: 'tc1', title: 'Run tests', kind: 'execute', status: 'pending' },
  {
    sessionUpdate: 'tool_call_content_chunk',
    toolCallId: 'tc1',
    content: { type: 'content', content: text('TOOL-OUT') },
  },
  { sessionUpdate: 'tool_call_update', toolCallId: 'tc1', status: 'completed' },
  { sessionUpdate: 'terminal_update', terminalId: 'term1', command: 'ls', cwd: '/tmp', output: { data: b64('A') } },
  { sessionUpdate: 'terminal_output_chunk', terminalId: 'term1', data: b64('B') },
  { sessionUpdate: 'plan_update', plan: { type: 'items', planId: 'p', entries: [] } },
  { sessionUpdate: 'usage_update', used: 250, size: 1000 },
  { sessionUpdate: 'session_info_update', title: 'Rows title' },
  { sessionUpdate: 'current_mode_update', currentModeId: 'code' },
  { sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'rows', description: 'Row command' }] },
  { sessionUpdate: 'notice', severity: 'warning', title: 'Heads up', description: 'NOTICE-TEXT' },
  { sessionUpdate: 'compaction_update', compactionId: 'c1', status: 'in_progress' },
  { sessionUpdate: 'compaction_summary_chunk', compactionId: 'c1', content: text('SUMMARY') },
  { sessionUpdate: 'compaction_update', compactionId: 'c1', status: 'completed' },
];

/** v1: the agent's requests to run's file system and terminals ("$session"/"$terminal": see the fixture). */
function clientRequests(cwd: string): unknown[] {
  const req = (method: string, params: Record<string, unknown> = {}) => ({
    clientRequest: method,
    params: { sessionId: '$session', ...params },
  });
  const file = join(cwd, 'notes.txt');
  return [
    req('fs/write_text_file', { path: file, content: 'from the agent\n' }),
    req('fs/read_text_file', { path: file }),
    req('terminal/create', { command: process.execPath, args: ['-e', 'process.stdout.write("TERM-OUT")'], cwd }),
    req('terminal/wait_for_exit', { terminalId: '$terminal' }),
    req('terminal/output', { terminalId: '$terminal' }),
    req('terminal/kill', { terminalId: '$terminal' }),
    req('terminal/release', { terminalId: '$terminal' }),
  ];
}

const ASK = { ask: { title: 'Go ahead?', options: [{ optionId: 'ok', name: 'OK', kind: 'allow_once' }] } };

/** `acp-kit run` of the whole script, recorded; its result, parsed events (with --json) and the capture's frames. */
async function runRecorded(protocol: 1 | 2, json: boolean) {
  const cwd = tempDir(`cli-run-rows-v${protocol}`);
  const capture = join(cwd, 'cap.ndjson');
  const actions = [...UPDATES.map(send), ...(protocol === 1 ? clientRequests(cwd) : []), ASK];
  const agent = `${process.execPath} ${BIN} proxy --record ${capture} -- ${process.execPath} ${E2E}`;
  const flags = ['run', '--protocol', String(protocol), '--approve-all', '--agent', agent, ...(json ? ['--json'] : [])];
  const r = await runCli([...flags, JSON.stringify({ actions })], { cwd, env: cliEnv({ NO_COLOR: '1' }) });
  expect(r.code, r.stderr).toBe(0);
  const { frames } = await readCapture(capture);
  return { r, cwd, frames, events: json ? ndjson(r.stdout) : [] };
}

/** run's answers to the agent's requests of `method`, from the capture. */
function answers(frames: CaptureFrame[], method: string): unknown[] {
  return frames
    .filter((f) => f.dir === 'agent->editor' && f.kind === 'request' && f.method === method)
    .map((q) => {
      const a = frames.find((f) => f.dir === 'editor->agent' && f.kind !== 'request' && f.id === q.id);
      const msg = a ? (JSON.parse(a.raw) as { result?: unknown; error?: unknown }) : undefined;
      return msg && 'result' in msg ? msg.result : { error: msg?.error };
    });
}

describe.concurrent('acp-kit run: every stable row of a scripted turn', () => {
  it.each([1, 2] as const)('v%i --json: the requests run sends, its answers, an event per update', async (v) => {
    const { frames, events, cwd } = await runRecorded(v, true);
    const sent = frames.filter((f) => f.dir === 'editor->agent' && f.kind === 'request').map((f) => f.method);
    expect(sent).toEqual(['initialize', 'session/new', 'session/prompt']);
    expect(events[0]).toMatchObject({ type: 'connection', protocolVersion: v });
    expect(events[1]).toMatchObject({ type: 'session', mode: 'new' });
    const updates = events.filter((e) => e.type === 'update').map((e) => e.update as Record<string, unknown>);
    const of = (kind: string) => updates.filter((u) => u.sessionUpdate === kind);
    // each kind the version can carry arrives decoded, with its content
    expect(of('agent_thought_chunk')[0]).toMatchObject({ content: text('musing') });
    expect(of('agent_message_chunk')[0]).toMatchObject({ content: text('chunked ') });
    expect(of('tool_call_update')[0]).toMatchObject({ toolCallId: 'tc1', title: 'Run tests', status: 'pending' });
    expect(of('usage_update')).toEqual([expect.objectContaining({ used: 250, size: 1000 })]);
    expect(of('session_info_update')).toContainEqual(expect.objectContaining({ title: 'Rows title' }));
    expect(of('available_commands_update')).toContainEqual(
      expect.objectContaining({ availableCommands: [expect.objectContaining({ name: 'rows' })] }),
    );
    expect(of('notice')).toEqual([expect.objectContaining({ severity: 'warning', description: 'NOTICE-TEXT' })]);
    expect(of('compaction_update').map((u) => u.status)).toEqual(['in_progress', 'completed']);
    expect(of('compaction_summary_chunk')).toEqual([expect.objectContaining({ content: text('SUMMARY') })]);
    expect(of('plan_update')).toEqual([expect.objectContaining({ plan: expect.objectContaining({ entries: [] }) })]);
    if (v === 2) {
      expect(of('agent_thought')).toEqual([expect.objectContaining({ content: [text('THOUGHT-WHOLE')] })]);
      expect(of('agent_message')).toContainEqual(expect.objectContaining({ content: [text('MESSAGE-WHOLE')] }));
      expect(of('tool_call_content_chunk')[0]).toMatchObject({
        content: { type: 'content', content: text('TOOL-OUT') },
      });
      expect(of('terminal_output_chunk')).toEqual([expect.objectContaining({ terminalId: 'term1', data: b64('B') })]);
      // v2 has no current_mode_update: the mode is the config option of category "mode"
      expect(of('config_option_update').at(-1)).toMatchObject({
        configOptions: expect.arrayContaining([expect.objectContaining({ configId: 'mode', currentValue: 'code' })]),
      });
    } else {
      expect(of('current_mode_update')).toEqual([expect.objectContaining({ currentModeId: 'code' })]);
      // v1 answers: files inside the session's directory, a terminal run, read, killed and released
      expect(answers(frames, 'fs/write_text_file')).toEqual([{}]);
      expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe('from the agent\n');
      expect(answers(frames, 'fs/read_text_file')).toEqual([{ content: 'from the agent\n' }]);
      expect(answers(frames, 'terminal/create')).toEqual([{ terminalId: expect.any(String) }]);
      expect(answers(frames, 'terminal/wait_for_exit')).toEqual([expect.objectContaining({ exitCode: 0 })]);
      expect(answers(frames, 'terminal/output')).toEqual([expect.objectContaining({ output: 'TERM-OUT' })]);
      expect(answers(frames, 'terminal/kill')).toEqual([{}]);
      expect(answers(frames, 'terminal/release')).toEqual([{}]);
    }
    // --approve-all: the question is answered with its allow option
    expect(answers(frames, 'session/request_permission')).toEqual([
      { outcome: { outcome: 'selected', optionId: 'ok' } },
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'result', stopReason: 'end_turn', usage: { used: 250, size: 1000 } });
  });

  it.each([1, 2] as const)('v%i text: the lines run prints for the update kinds it shows', async (v) => {
    const { r } = await runRecorded(v, false);
    const out = r.stdout;
    expect(out).toContain('thinking: musing\nthinking: THOUGHT-WHOLE\nchunked \nMESSAGE-WHOLE\n');
    expect(out).toContain('○ Run tests [execute]\n    TOOL-OUT\n✓ Run tests completed\n');
    expect(out).toMatch(/^Plan( p)?:$/m);
    expect(out).toContain(
      '[warning] Heads up — NOTICE-TEXT\ncontext compaction in progress\ncontext compaction completed\n',
    );
    expect(out).toContain('? permission: Go ahead? ✓ allowed (policy --approve-all)');
    expect(out).toMatch(/stop reason: end_turn .*250\/1\.0k tokens \(25%\)/);
    // v2: the agent's display terminal; v1: the terminal run created for the agent
    if (v === 2) expect(out).toContain('    $ ls\n    │ AB\n');
    else expect(out).toMatch(/ {4}\$ \S+ -e .*\n {4}│ TERM-OUT\n {4}exit code 0\n/);
  });
});

describe.concurrent('acp-kit run: a url elicitation and its completion', () => {
  it.each([1, 2] as const)(
    'v%i --accept-urls: elicitation/create accepted, elicitation/complete reported',
    async (v) => {
      const cwd = tempDir(`cli-run-rows-url-v${v}`);
      const capture = join(cwd, 'cap.ndjson');
      const agent = `${process.execPath} ${BIN} proxy --record ${capture} -- ${process.execPath} ${join(FIXTURES, 'chat-url-agent.mjs')}`;
      const r = await runCli(['run', '--protocol', String(v), '--json', '--accept-urls', '--agent', agent, 'hi'], {
        cwd,
        env: cliEnv({ NO_COLOR: '1' }),
      });
      expect(r.code, r.stderr).toBe(0);
      // the URL is shown, never opened
      expect(r.stderr).toContain(
        'The agent asks you to open https://auth.example.com/consent?flow=1 (host: auth.example.com)',
      );
      const { frames } = await readCapture(capture);
      const asked = frames.find((f) => f.method === 'elicitation/create');
      const elicitationId = (JSON.parse(asked?.raw ?? '{}') as { params?: { elicitationId?: string } }).params
        ?.elicitationId;
      expect(answers(frames, 'elicitation/create')).toEqual([{ action: 'accept' }]);
      const complete = frames.find((f) => f.method === 'elicitation/complete');
      expect(complete).toMatchObject({ dir: 'agent->editor', kind: 'notification' });
      expect(JSON.parse(complete?.raw ?? '{}')).toMatchObject({ params: { elicitationId } });
      const events = ndjson(r.stdout).filter((e) => e.type === 'elicitation');
      expect(events.map((e) => e.event)).toEqual(['asked', 'answered', 'completed']);
      expect(events[2]).toMatchObject({ elicitationId });
      expect(ndjson(r.stdout).at(-1)).toMatchObject({ type: 'result', stopReason: 'end_turn' });
    },
  );
});
