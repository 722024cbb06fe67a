/**
 * Issue 26 item 1, the client column: the stable rows acp-kit's client serves or sends that no
 * client test named. The agent is acp-kit's runtime in this process (the scripted e2e agent, or a
 * small definition here), the client is `connect()` over the real codecs, and every assertion is on
 * what the client answered or sent on the wire, or on its session state:
 * - v1 file system and terminals (`fileSystem` and `terminals` on): the agent's requests are served
 *   inside the session's root, refused outside it, terminals run, are killed and released;
 * - v2 `tool_call/cancel` and `terminal/cancel` sent by `cancelToolCall()` / `cancelTerminal()` and
 *   honoured by the agent; a whole `agent_thought` lands in the session state;
 * - both versions: the agent's `elicitation/complete` of an accepted url elicitation is reported
 *   as the `completed` event of that id, and one for an id the client never accepted is ignored.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { answerElicitations, urlConsent, type ClientConnection, type ElicitationEvent } from '../src/index.js';
import type { AgentDefinition } from '../../agent/src/index.js';
import { connectInProcess, type InProcessPair, type WireEntry } from '../../../test/support/in-process.js';
import { startE2E } from '../../../test/support/e2e.js';
import { elicitingAgent } from '../../../test/support/eliciting-agent.js';
import { tempDir } from '../../../test/support/temp.js';

const open: ClientConnection[] = [];
const pairs: InProcessPair[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
  await Promise.all(pairs.splice(0).map((p) => p.close()));
});

const script = (actions: unknown[]): string => JSON.stringify({ actions });

/** The agent's requests of `method` and the client's answer to each, from the client's wire. */
function answered(wire: readonly WireEntry[], method: string): Array<{ params: any; answer: WireEntry['msg'] }> {
  return wire
    .filter((w) => w.dir === 'in' && w.msg.method === method && w.msg.id !== undefined)
    .map((q) => {
      const answer = wire.find((w) => w.dir === 'out' && w.msg.method === undefined && w.msg.id === q.msg.id);
      if (!answer) throw new Error(`the client never answered ${method} ${JSON.stringify(q.msg.id)}`);
      return { params: q.msg.params, answer: answer.msg };
    });
}

describe('v1: the agent uses the client file system and terminals', () => {
  it('fs/write_text_file and fs/read_text_file inside the session root; refused outside it', async () => {
    const dir = tempDir('acp-client-rows-fs-');
    const outside = tempDir('acp-client-rows-outside-');
    const { conn, wire } = await startE2E(1, open, { fileSystem: true });
    const s = await conn.newSession({ cwd: dir });
    const req = (method: string, params: Record<string, unknown>) => ({
      clientRequest: method,
      params: { sessionId: s.sessionId, ...params },
    });
    await s.prompt(
      script([
        req('fs/write_text_file', { path: join(dir, 'notes.txt'), content: 'line 1\nline 2\n' }),
        req('fs/read_text_file', { path: join(dir, 'notes.txt'), line: 2, limit: 1 }),
        req('fs/write_text_file', { path: join(outside, 'x.txt'), content: 'no' }),
        req('fs/read_text_file', { path: join(outside, 'x.txt') }),
      ]),
    );
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('line 1\nline 2\n');
    expect(existsSync(join(outside, 'x.txt'))).toBe(false);
    const writes = answered(wire, 'fs/write_text_file');
    expect(writes.map((w) => w.answer.error === undefined)).toEqual([true, false]);
    const reads = answered(wire, 'fs/read_text_file');
    expect(reads[0]?.answer.result).toEqual({ content: 'line 2\n' });
    expect(reads[1]?.answer.error).toBeDefined();
  });

  it('terminal/create, terminal/wait_for_exit, terminal/output, terminal/kill, terminal/release', async () => {
    const dir = tempDir('acp-client-rows-term-');
    const { conn, wire } = await startE2E(1, open, { terminals: true });
    const s = await conn.newSession({ cwd: dir });
    const create = (code: string) => ({
      clientRequest: 'terminal/create',
      params: { sessionId: s.sessionId, command: process.execPath, args: ['-e', code], cwd: dir },
    });
    await s.prompt(script([create('process.stdout.write("hi")'), create('setTimeout(() => {}, 60000)')]));
    const ids = answered(wire, 'terminal/create').map((c) => (c.answer.result as { terminalId: string }).terminalId);
    const [done, long] = ids;
    if (!done || !long) throw new Error(`terminal/create answered ${JSON.stringify(ids)}`);
    const on = (method: string, terminalId: string) => ({
      clientRequest: method,
      params: { sessionId: s.sessionId, terminalId },
    });
    await s.prompt(
      script([
        on('terminal/wait_for_exit', done),
        on('terminal/output', done),
        on('terminal/release', done),
        on('terminal/kill', long),
        on('terminal/wait_for_exit', long),
        on('terminal/release', long),
        on('terminal/output', done),
      ]),
    );
    const [exited, killed] = answered(wire, 'terminal/wait_for_exit').map((a) => a.answer.result);
    expect(exited).toMatchObject({ exitCode: 0 });
    expect(killed).toMatchObject({ exitCode: null, signal: expect.any(String) });
    const outputs = answered(wire, 'terminal/output');
    expect(outputs[0]?.answer.result).toMatchObject({ output: 'hi', truncated: false, exitStatus: { exitCode: 0 } });
    // released: the id is retired
    expect(outputs[1]?.answer.error).toBeDefined();
    expect(answered(wire, 'terminal/kill').map((a) => a.answer.result)).toEqual([{}]);
    expect(answered(wire, 'terminal/release').map((a) => a.answer.result)).toEqual([{}, {}]);
  });
});

/** A v2 agent whose turn shows a cancellable tool call and display terminal and waits until both are cancelled. */
function cancellingAgent(cancelled: string[]): AgentDefinition {
  return {
    info: { name: 'cancel-rows', version: '1.0.0' },
    async prompt(turn) {
      const both = Promise.all([
        new Promise<void>((resolve) =>
          turn.session.onCancelToolCall('tc-1', () => (cancelled.push('tool_call tc-1'), resolve())),
        ),
        new Promise<void>((resolve) =>
          turn.session.onCancelTerminal('term-1', () => (cancelled.push('terminal term-1'), resolve())),
        ),
      ]);
      await turn.send({
        sessionUpdate: 'tool_call_update',
        toolCallId: 'tc-1',
        title: 'Long task',
        status: 'in_progress',
        capabilities: { cancel: {} },
      });
      await turn.send({
        sessionUpdate: 'terminal_update',
        terminalId: 'term-1',
        command: 'sleep 60',
        cwd: '/tmp',
        capabilities: { cancel: {} },
      });
      await both;
      await turn.send({ sessionUpdate: 'tool_call_update', toolCallId: 'tc-1', status: 'cancelled' });
      await turn.send({ sessionUpdate: 'terminal_update', terminalId: 'term-1', exitStatus: { signal: 'SIGTERM' } });
      return 'end_turn';
    },
  };
}

describe('v2: the client cancels what the agent offers to cancel', () => {
  it('tool_call/cancel and terminal/cancel reach the agent, which ends both', async () => {
    const cancelled: string[] = [];
    const pair = await connectInProcess(cancellingAgent(cancelled), { version: 2 });
    pairs.push(pair);
    const s = await pair.conn.newSession({ cwd: '/tmp' });
    const offered = new Promise<void>((resolve) =>
      s.onUpdate((u) => void (u.sessionUpdate === 'terminal_update' && u.capabilities ? resolve() : undefined)),
    );
    const turn = s.prompt('go');
    await offered;
    await s.cancelToolCall('tc-1');
    await s.cancelTerminal('term-1');
    expect((await turn).stopReason).toBe('end_turn');
    expect(cancelled).toEqual(['tool_call tc-1', 'terminal term-1']);
    const sent = pair.wire.filter((w) => w.dir === 'out').map((w) => w.msg.method);
    expect(sent).toEqual(expect.arrayContaining(['tool_call/cancel', 'terminal/cancel']));
    expect(s.state.toolCalls.get('tc-1')?.status).toBe('cancelled');
    expect(s.state.terminals.get('term-1')?.exitStatus).toMatchObject({ signal: 'SIGTERM' });
    pair.tap.assertAllValid();
  });

  it('a whole agent_thought becomes the thought message, replacing its chunks', async () => {
    const { conn } = await startE2E(2, open);
    const s = await conn.newSession({ cwd: '/tmp' });
    const text = (t: string) => ({ type: 'text', text: t });
    await s.prompt(
      script([
        { send: { sessionUpdate: 'agent_thought_chunk', messageId: 't1', content: text('draft') } },
        { send: { sessionUpdate: 'agent_thought', messageId: 't1', content: [text('final thought')] } },
        { send: { sessionUpdate: 'agent_thought', messageId: 't2', content: [text('another')] } },
      ]),
    );
    expect(s.state.message('thought', 't1')?.text).toBe('final thought');
    expect(s.state.message('thought', 't2')?.text).toBe('another');
    expect(s.state.message('agent', 't1')).toBeUndefined();
  });
});

describe.each([1, 2] as const)('v%i: a url elicitation the agent completes', (version) => {
  it("the client accepts the url, and the agent's elicitation/complete of that id is reported as completed", async () => {
    const printed: string[] = [];
    const elicitation = answerElicitations({}, { url: urlConsent({ consent: true, print: (l) => printed.push(l) }) });
    const pair = await connectInProcess(elicitingAgent, { version, client: { elicitation } });
    pairs.push(pair);
    const events: ElicitationEvent[] = [];
    pair.conn.on('elicitation', (e) => events.push(e));
    const s = await pair.conn.newSession({ cwd: '/tmp' });
    await s.prompt('url');
    const asked = pair.wire.findIndex((w) => w.dir === 'in' && w.msg.method === 'elicitation/create');
    const id = (pair.wire[asked]?.msg.params as { elicitationId?: string } | undefined)?.elicitationId;
    expect(id).toEqual(expect.any(String));
    const answer = pair.wire.findIndex(
      (w) => w.dir === 'out' && w.msg.method === undefined && w.msg.id === pair.wire[asked]?.msg.id,
    );
    expect(pair.wire[answer]?.msg.result).toEqual({ action: 'accept' });
    const completions = pair.wire.flatMap((w, i) =>
      w.dir === 'in' && w.msg.method === 'elicitation/complete' ? [{ i, params: w.msg.params }] : [],
    );
    expect(completions).toEqual([{ i: expect.any(Number), params: { elicitationId: id } }]);
    expect(completions[0]?.i).toBeGreaterThan(answer);
    expect(events.map((e) => e.type)).toEqual(['asked', 'answered', 'completed']);
    expect(events[2]).toEqual({ type: 'completed', sessionId: s.sessionId, elicitationId: id });
    expect(printed).toEqual([expect.stringContaining('(host: auth.example.com)')]);
    expect(s.pendingElicitations).toEqual([]);
    expect(pair.tap.failures).toEqual([]);
  });
});
