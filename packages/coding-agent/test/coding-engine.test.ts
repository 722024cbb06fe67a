/**
 * The built-in coding agent's turn engine on the demo model, driven through the real agent runtime
 * over pipes with raw v1/v2 wire messages, every message checked against the official schema.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createCodingAgent,
  createDemoModel,
  type CodingAgentOptions,
  type LanguageModel,
  type ModelRequest,
} from '../src/coding-agent.js';
import {
  answer,
  chunkText,
  startHarness,
  type Harness,
  type HarnessOptions,
  type Wire,
} from '../../../test/fixtures/coding-harness.js';
import { tempDir } from '../../../test/support/temp.js';

let open: Harness[] = [];
afterEach(async () => {
  for (const h of open) {
    h.tap.assertAllValid();
    await h.close();
  }
  open = [];
});

function project(): string {
  const dir = tempDir('coding-engine-');
  writeFileSync(join(dir, 'README.md'), '# Demo project\nSecond line\n');
  return dir;
}

async function start(
  version: 1 | 2,
  opts: Partial<HarnessOptions> & { agent?: CodingAgentOptions; cwd?: string } = {},
): Promise<Harness & { cwd: string }> {
  const cwd = opts.cwd ?? project();
  const agent = createCodingAgent({ model: createDemoModel({ delayMs: 0 }), ...opts.agent });
  const h = await startHarness({ version, cwd, ...opts, agent });
  open.push(h);
  return Object.assign(h, { cwd });
}

const toolUpdates = (us: Wire[]) =>
  us.filter((u) => u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update');

describe('coding agent turn engine (demo model)', () => {
  it('v1: create a file: plan, thought, streamed text, pending tool call, permission, in_progress, diff, summary (ACP-V1-PROMPT-03..08)', async () => {
    const h = await start(1, { permission: answer('allow_once') });
    const r = await h.turn('create notes.txt containing hello');
    expect(r.stopReason).toBe('end_turn');
    expect(readFileSync(join(h.cwd, 'notes.txt'), 'utf8')).toBe('hello\n');

    const kinds = r.updates.map((u) => u.sessionUpdate);
    expect(kinds[0]).toBe('plan');
    expect(r.updates[0].entries.length).toBeGreaterThan(1);
    expect(chunkText(r.updates, 'agent_thought_chunk')).toMatch(/create `notes.txt`/);
    const msgChunks = r.updates.filter((u) => u.sessionUpdate === 'agent_message_chunk');
    expect(msgChunks.length).toBeGreaterThan(3);
    // the first message (before the tool) and the summary after it are separate messages
    expect(new Set(msgChunks.map((u) => u.messageId)).size).toBe(2);

    const calls = toolUpdates(r.updates);
    expect(calls[0]).toMatchObject({
      sessionUpdate: 'tool_call',
      title: 'Write notes.txt',
      kind: 'edit',
      status: 'pending',
      name: 'write_file',
      rawInput: { path: 'notes.txt', content: 'hello\n' },
    });
    const id = calls[0].toolCallId;
    expect(calls.every((u) => u.toolCallId === id)).toBe(true);
    const statuses = calls.map((u) => u.status).filter(Boolean);
    expect(statuses).toEqual(['pending', 'in_progress', 'completed']);
    const final = calls[calls.length - 1];
    expect(final.content).toEqual([
      { type: 'diff', path: join(h.cwd, 'notes.txt'), oldText: null, newText: 'hello\n' },
    ]);
    expect(final.locations).toEqual([{ path: join(h.cwd, 'notes.txt'), line: 1 }]);

    // permission asked once, about this tool call, with the four option kinds (ACP-ALL-PERM-04, ACP-V1-PERM-01)
    expect(h.permissions).toHaveLength(1);
    expect(h.permissions[0].toolCall.toolCallId).toBe(id);
    expect(h.permissions[0].options.map((o: Wire) => o.kind).sort()).toEqual([
      'allow_always',
      'allow_once',
      'reject_always',
      'reject_once',
    ]);
    // asked before in_progress
    const inProgressAt = r.updates.findIndex((u) => u.status === 'in_progress');
    expect(inProgressAt).toBeGreaterThan(r.updates.indexOf(calls[0]));

    expect(chunkText(r.updates)).toMatch(/Created .*notes\.txt/);
    const usage = r.updates.filter((u) => u.sessionUpdate === 'usage_update');
    expect(usage).toHaveLength(2); // one per model call
    expect(usage[0].size).toBe(32768);
    expect(usage[0].used).toBeGreaterThan(0);
    expect(
      r.updates
        .filter((u) => u.sessionUpdate === 'plan')
        .at(-1)!
        .entries.every((e: Wire) => e.status === 'completed'),
    ).toBe(true);
  });

  it('v2: same flow with plan_update, structured diff, idle end_turn (ACP-V2-LIFE-05/06, ACP-V2-PLAN-01)', async () => {
    const h = await start(2, { permission: answer('allow_once') });
    const r = await h.turn('create notes.txt containing hello');
    expect(r.stopReason).toBe('end_turn');
    expect(readFileSync(join(h.cwd, 'notes.txt'), 'utf8')).toBe('hello\n');
    expect(r.updates.find((u) => u.sessionUpdate === 'plan_update').plan.planId).toBe('main');
    const calls = toolUpdates(r.updates);
    expect(calls.every((u) => u.sessionUpdate === 'tool_call_update')).toBe(true);
    expect(calls[0]).toMatchObject({ title: 'Write notes.txt', kind: 'edit', status: 'pending', name: 'write_file' });
    const final = calls[calls.length - 1];
    expect(final.status).toBe('completed');
    expect(final.content[0].type).toBe('diff');
    expect(final.content[0].changes).toEqual([
      expect.objectContaining({ operation: 'add', path: join(h.cwd, 'notes.txt') }),
    ]);
    expect(h.permissions[0].title).toMatch(/Write notes\.txt/);
    // waiting for permission is requires_action, then running again (ACP-V2-LIFE-07)
    const states = r.updates.filter((u) => u.sessionUpdate === 'state_update').map((u) => u.state);
    expect(states).toEqual(['running', 'requires_action', 'running', 'idle']);
  });

  it('allow_always is remembered for the session; reject_once fails the call and leaves the file untouched', async () => {
    const answers = ['allow_always', 'reject_once'];
    const h = await start(1, { permission: () => ({ outcome: { outcome: 'selected', optionId: answers.shift() } }) });
    expect(await h.prompt('create a.txt containing one')).toBe('end_turn');
    expect(await h.prompt('create b.txt containing two')).toBe('end_turn');
    expect(h.permissions).toHaveLength(1); // the second write did not ask
    expect(readFileSync(join(h.cwd, 'b.txt'), 'utf8')).toBe('two\n');
    // run_command is a different tool: it asks, and the user rejects it
    writeFileSync(join(h.cwd, 'keep.txt'), 'original');
    const r = await h.turn('run rm keep.txt');
    expect(r.stopReason).toBe('end_turn');
    expect(h.permissions).toHaveLength(2);
    expect(readFileSync(join(h.cwd, 'keep.txt'), 'utf8')).toBe('original');
    const final = toolUpdates(r.updates).at(-1)!;
    expect(final.status).toBe('failed');
    expect(JSON.stringify(final.content)).toMatch(/rejected/);
    expect(chunkText(r.updates)).toMatch(/did not run/);
  });

  it('reject_always is remembered: the next write fails without asking', async () => {
    const h = await start(2, { permission: answer('reject_always') });
    await h.prompt('create a.txt containing one');
    const r = await h.turn('create b.txt containing two');
    expect(r.stopReason).toBe('end_turn');
    expect(h.permissions).toHaveLength(1);
    expect(existsSync(join(h.cwd, 'a.txt'))).toBe(false);
    expect(existsSync(join(h.cwd, 'b.txt'))).toBe(false);
    expect(toolUpdates(r.updates).at(-1)!.status).toBe('failed');
  });

  it('max_turn_requests: the cap on model requests ends the turn', async () => {
    const h = await start(1, { agent: { maxTurnRequests: 1 } });
    const r = await h.turn('read README.md');
    expect(r.stopReason).toBe('max_turn_requests');
    // the one allowed request produced the tool call, which ran; the summary request was not made
    expect(toolUpdates(r.updates).at(-1)!.status).toBe('completed');
    expect(r.updates.filter((u) => u.sessionUpdate === 'usage_update')).toHaveLength(1);
    // with room for two requests the same prompt ends normally
    const h2 = await start(1, { agent: { maxTurnRequests: 2 } });
    expect(await h2.prompt('read README.md')).toBe('end_turn');
  });

  it('max_tokens: a length finish ends the turn without running the tool', async () => {
    const h = await start(2, { agent: { maxOutputTokens: 5 }, permission: answer('allow_once') });
    const r = await h.turn('create notes.txt containing hello');
    expect(r.stopReason).toBe('max_tokens');
    expect(existsSync(join(h.cwd, 'notes.txt'))).toBe(false);
    expect(r.updates.filter((u) => u.sessionUpdate === 'agent_thought_chunk')).toHaveLength(5);
  });

  for (const version of [1, 2] as const) {
    it(`v${version}: cancel mid-stream ends the turn cancelled and nothing follows (ACP-V${version}-CANCEL-05/07)`, async () => {
      const h = await start(version, { agent: { model: createDemoModel({ delayMs: 20 }) } });
      const turn = h.turn('what can you do?');
      await h.waitFor((u) => u.sessionUpdate === 'agent_message_chunk');
      const t0 = Date.now();
      h.cancel();
      const r = await turn;
      expect(r.stopReason).toBe('cancelled');
      expect(Date.now() - t0).toBeLessThan(1000);
      const text = chunkText(r.updates);
      expect(text.length).toBeGreaterThan(0);
      expect(text).not.toMatch(/ANTHROPIC_API_KEY/); // the help text was cut off
      const n = h.updates.length;
      await h.roundTrip();
      expect(h.updates.length).toBe(n);
      // the session still works afterwards
      const again = await h.turn('read README.md');
      expect(again.stopReason).toBe('end_turn');
    });
  }

  it('cancel while waiting for permission: cancelled, file untouched (ACP-V1-CANCEL-03)', async () => {
    let h!: Harness & { cwd: string };
    h = await start(1, {
      permission: () =>
        new Promise((resolve) => {
          // the client answers the pending request `cancelled` after sending session/cancel
          setTimeout(() => {
            h.cancel();
            resolve({ outcome: { outcome: 'cancelled' } });
          }, 20);
        }),
    });
    const r = await h.turn('create notes.txt containing hello');
    expect(r.stopReason).toBe('cancelled');
    expect(existsSync(join(h.cwd, 'notes.txt'))).toBe(false);
    expect(toolUpdates(r.updates).at(-1)!.status).toBe('failed'); // v1 has no `cancelled` status
  });

  it('v2: cancel while a command runs kills it; the call ends cancelled', async () => {
    const h = await start(2, { agent: { mode: 'auto' } });
    const turn = h.turn('run sleep 5; echo never');
    await h.waitFor((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'in_progress');
    // the command's display terminal exists: the process was started
    await h.waitFor((u) => u.sessionUpdate === 'terminal_update');
    const t0 = Date.now();
    h.cancel();
    const r = await turn;
    expect(r.stopReason).toBe('cancelled');
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(toolUpdates(r.updates).at(-1)!.status).toBe('cancelled');
    const exit = r.updates.find((u) => u.sessionUpdate === 'terminal_update' && u.exitStatus);
    expect(exit?.exitStatus.signal).toBe('SIGTERM');
  });

  it('cancel kills the whole process group of a local command, grandchildren included', async () => {
    const h = await start(1, { agent: { mode: 'auto' } });
    const turn = h.turn('run sleep 30 & echo $! > child.pid; wait');
    await h.waitFor((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'in_progress');
    const pidFile = join(h.cwd, 'child.pid');
    for (let i = 0; i < 100 && !(existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim()); i++)
      await new Promise((res) => setTimeout(res, 20));
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(() => process.kill(pid, 0)).not.toThrow();
    const t0 = Date.now();
    h.cancel();
    expect((await turn).stopReason).toBe('cancelled');
    expect(Date.now() - t0).toBeLessThan(1500);
    let alive = true;
    for (let i = 0; i < 100 && alive; i++) {
      try {
        process.kill(pid, 0);
        await new Promise((res) => setTimeout(res, 20));
      } catch {
        alive = false;
      }
    }
    expect(alive).toBe(false);
  });

  it('command output is capped at 64 KiB', async () => {
    const h = await start(1, { agent: { mode: 'auto' } });
    const r = await h.turn("run head -c 200000 /dev/zero | tr '\\0' a");
    const text: string = toolUpdates(r.updates).at(-1)!.content[0].content.text;
    expect(text).toContain('[output truncated]');
    const longest = Math.max(...text.match(/a+/g)!.map((m) => m.length));
    expect(longest).toBe(64 * 1024);
  });

  it('refusal: the model refuses and the turn ends refusal (ACP-V1-STOP-01)', async () => {
    const h = await start(1, { permission: answer('allow_once') });
    const r = await h.turn('run sudo rm -rf /');
    expect(r.stopReason).toBe('refusal');
    expect(h.permissions).toHaveLength(0);
    expect(toolUpdates(r.updates)).toHaveLength(0);
  });

  it('keeps the conversation per session: follow-up requests carry earlier turns; refused turns are dropped', async () => {
    const seen: ModelRequest[] = [];
    const demo = createDemoModel({ delayMs: 0 });
    const recording: LanguageModel = {
      id: demo.id,
      contextWindow: demo.contextWindow,
      stream: (req) => (seen.push(req), demo.stream(req)),
    };
    const h = await start(1, { agent: { model: recording } });
    await h.prompt('read README.md');
    await h.prompt('run sudo reboot');
    await h.prompt('list files');
    // the first request of the last turn (the second one also carries that turn's tool result)
    const last = seen.at(-2)!.messages;
    expect(last[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'read README.md' }] });
    expect(last[1].role).toBe('assistant');
    expect(last[2]).toMatchObject({
      role: 'tool',
      results: [{ toolName: 'read_file', output: expect.stringContaining('# Demo project') }],
    });
    expect(last[3].role).toBe('assistant');
    // the refused "run sudo reboot" is not part of the context any more (ACP-V1-STOP-02)
    expect(JSON.stringify(last)).not.toContain('sudo');
    expect(last.at(-1)).toEqual({ role: 'user', content: [{ type: 'text', text: 'list files' }] });
    // a second session starts with an empty conversation
    const other = seen.length;
    const h2 = await startHarness({ version: 1, cwd: h.cwd, agent: createCodingAgent({ model: recording }) });
    open.push(h2);
    await h2.prompt('list files');
    expect(seen[other].messages).toHaveLength(1);
  });

  it('modes: auto runs writes without asking, read-only refuses them; invalid values are rejected -32602 (ACP-ALL-CFG-05, ACP-V2-CFG-05)', async () => {
    const h = await start(2);
    const modeOpt = h.newSession.configOptions.find((o: Wire) => o.configId === 'mode');
    expect(modeOpt).toMatchObject({ currentValue: 'ask', category: 'mode' });
    const set = (await h.peer.request('session/set_config_option', {
      sessionId: h.sessionId,
      configId: 'mode',
      type: 'id',
      value: 'auto',
    })) as Wire;
    expect(set.configOptions.find((o: Wire) => o.configId === 'mode').currentValue).toBe('auto');
    expect(await h.prompt('create auto.txt containing yes')).toBe('end_turn');
    expect(h.permissions).toHaveLength(0);
    expect(readFileSync(join(h.cwd, 'auto.txt'), 'utf8')).toBe('yes\n');

    await h.peer.request('session/set_config_option', {
      sessionId: h.sessionId,
      configId: 'mode',
      type: 'id',
      value: 'read-only',
    });
    const r = await h.turn('create ro.txt containing no');
    expect(existsSync(join(h.cwd, 'ro.txt'))).toBe(false);
    const final = toolUpdates(r.updates).at(-1)!;
    expect(final.status).toBe('failed');
    expect(JSON.stringify(final.content)).toMatch(/read-only/);
    // reads still work in read-only mode
    expect(toolUpdates((await h.turn('read README.md')).updates).at(-1)!.status).toBe('completed');

    await expect(
      h.peer.request('session/set_config_option', {
        sessionId: h.sessionId,
        configId: 'mode',
        type: 'id',
        value: 'yolo',
      }),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/ask.*auto.*read-only/) });
    await expect(
      h.peer.request('session/set_config_option', { sessionId: h.sessionId, configId: 'nope', type: 'id', value: 'x' }),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it('slash commands: advertised, /help answers locally, /mode switches and reports config_option_update', async () => {
    const h = await start(1);
    await h.waitFor((u) => u.sessionUpdate === 'available_commands_update');
    const cmds = h.updates
      .find((u) => u.sessionUpdate === 'available_commands_update')
      .availableCommands.map((c: Wire) => c.name);
    expect(cmds).toEqual(expect.arrayContaining(['help', 'clear', 'mode']));
    const help = await h.turn('/help');
    expect(help.stopReason).toBe('end_turn');
    expect(chunkText(help.updates)).toMatch(/--model openai/);
    const mode = await h.turn('/mode auto');
    expect(
      mode.updates
        .find((u) => u.sessionUpdate === 'config_option_update')
        .configOptions.find((o: Wire) => o.id === 'mode').currentValue,
    ).toBe('auto');
    expect(await h.prompt('create x.txt containing y')).toBe('end_turn');
    expect(h.permissions).toHaveLength(0);
  });

  it('unknown requests get an explanation of what the demo model understands and how to configure a real model', async () => {
    const h = await start(2);
    const r = await h.turn('refactor the whole codebase');
    expect(r.stopReason).toBe('end_turn');
    const text = chunkText(r.updates);
    expect(text).toMatch(/not a request I understand/);
    expect(text).toMatch(/OPENAI_API_KEY/);
    expect(text).toMatch(/--model-name/);
  });

  it('v1 client fs: reads and writes go through fs/read_text_file and fs/write_text_file (ACP-V1-FS-01)', async () => {
    const cwd = project();
    const files = new Map<string, string>([[join(cwd, 'README.md'), 'from the editor buffer\n']]);
    const h = await start(1, {
      cwd,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
      permission: answer('allow_once'),
      handlers: {
        'fs/read_text_file': (p) => {
          const c = files.get(p.path);
          if (c === undefined) throw Object.assign(new Error('not found'), { code: -32002 });
          return { content: c };
        },
        'fs/write_text_file': (p) => {
          files.set(p.path, p.content);
          return {};
        },
      },
    });
    const r = await h.turn('read README.md');
    expect(JSON.stringify(toolUpdates(r.updates).at(-1)!.content)).toContain('from the editor buffer');
    await h.prompt('edit README.md replace editor with client');
    expect(files.get(join(cwd, 'README.md'))).toBe('from the client buffer\n');
    // the disk was not touched
    expect(readFileSync(join(cwd, 'README.md'), 'utf8')).toBe('# Demo project\nSecond line\n');
  });

  it('v1 client terminal: run_command uses terminal/create, embeds the terminal, waits, reads output, releases (ACP-V1-TERM-01/04)', async () => {
    const calls: string[] = [];
    const h = await start(1, {
      agent: { mode: 'auto' },
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: true },
      handlers: {
        'terminal/create': (p) => {
          calls.push(`create ${p.command} ${JSON.stringify(p.args)} ${p.cwd}`);
          return { terminalId: 'term-A' };
        },
        'terminal/wait_for_exit': () => (calls.push('wait'), { exitCode: 0, signal: null }),
        'terminal/output': () => (
          calls.push('output'),
          { output: 'hello from client\n', truncated: false, exitStatus: { exitCode: 0, signal: null } }
        ),
        'terminal/release': () => (calls.push('release'), {}),
        'terminal/kill': () => (calls.push('kill'), {}),
      },
    });
    const r = await h.turn('run echo hi');
    expect(r.stopReason).toBe('end_turn');
    expect(calls[0]).toBe(`create /bin/sh ["-c","echo hi"] ${h.cwd}`);
    expect(calls.slice(1)).toEqual(['wait', 'output', 'release']);
    const final = toolUpdates(r.updates).at(-1)!;
    expect(final.status).toBe('completed');
    expect(final.content).toEqual([{ type: 'terminal', terminalId: 'term-A' }]);
    expect(chunkText(r.updates)).toMatch(/exit code 0/);
  });

  it('v1 client terminal: cancel while waiting kills and releases the terminal (ACP-V1-TERM-04, ACP-V1-CANCEL-04)', async () => {
    const calls: string[] = [];
    const h = await start(1, {
      agent: { mode: 'auto' },
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: true },
      handlers: {
        'terminal/create': () => (calls.push('create'), { terminalId: 'term-B' }),
        'terminal/wait_for_exit': () => (calls.push('wait'), new Promise(() => undefined)),
        'terminal/kill': () => (calls.push('kill'), {}),
        'terminal/release': () => (calls.push('release'), {}),
      },
    });
    const turn = h.turn('run sleep 100');
    await h.waitFor((u) => u.sessionUpdate === 'tool_call_update' && u.content?.[0]?.type === 'terminal');
    h.cancel();
    const r = await turn;
    expect(r.stopReason).toBe('cancelled');
    expect(calls).toEqual(['create', 'wait', 'kill', 'release']);
    expect(toolUpdates(r.updates).at(-1)!.status).toBe('failed');
  });

  it('v1 without client terminals: the command runs locally and its output is embedded as text', async () => {
    const h = await start(1, { agent: { mode: 'auto' } });
    const r = await h.turn('run echo local-output && exit 3');
    const final = toolUpdates(r.updates).at(-1)!;
    expect(final.status).toBe('failed'); // non-zero exit
    expect(final.content[0].content.text).toContain('local-output');
    expect(final.content[0].content.text).toContain('exit code 3');
  });

  it('v2 tool_call/cancel (ACP-V2-TOOL-11): the running call advertises cancel; cancelling it ends it cancelled and the turn goes on', async () => {
    const h = await start(2, { agent: { mode: 'auto' } });
    const turn = h.turn('run sleep 30; echo never');
    const running = await h.waitFor(
      (u) => u.sessionUpdate === 'tool_call_update' && u.status === 'in_progress' && u.capabilities?.cancel != null,
    );
    await h.waitFor((u) => u.sessionUpdate === 'terminal_update' && u.command !== undefined);
    expect(
      await h.peer.request('tool_call/cancel', { sessionId: h.sessionId, toolCallId: running.toolCallId }),
    ).toEqual({});
    const r = await turn;
    // only the call: the turn itself was not cancelled, the model was told and finished
    expect(r.stopReason).toBe('end_turn');
    const final = toolUpdates(r.updates)
      .filter((u) => u.toolCallId === running.toolCallId)
      .at(-1)!;
    expect(final.status).toBe('cancelled');
    expect(r.updates.find((u) => u.sessionUpdate === 'terminal_update' && u.exitStatus)?.exitStatus.signal).toBe(
      'SIGTERM',
    );
    // final now: a second cancel is -32602 naming the field
    await expect(
      h.peer.request('tool_call/cancel', { sessionId: h.sessionId, toolCallId: running.toolCallId }),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('params.toolCallId') });
  });

  it('v2 terminal/cancel (ACP-V2-TERM-13): the display terminal advertises cancel; cancelling stops the command, the terminal keeps its exit status, the turn goes on', async () => {
    const h = await start(2, { agent: { mode: 'auto' } });
    const turn = h.turn('run sleep 30; echo never');
    const term = await h.waitFor((u) => u.sessionUpdate === 'terminal_update' && u.capabilities?.cancel != null);
    expect(await h.peer.request('terminal/cancel', { sessionId: h.sessionId, terminalId: term.terminalId })).toEqual(
      {},
    );
    const r = await turn;
    expect(r.stopReason).toBe('end_turn');
    const exit = r.updates.find((u) => u.sessionUpdate === 'terminal_update' && u.exitStatus);
    expect(exit).toMatchObject({ terminalId: term.terminalId, exitStatus: { signal: 'SIGTERM' } });
    // the tool call is not cancelled by it: it ends as the killed command makes it end
    expect(toolUpdates(r.updates).at(-1)!.status).toBe('failed');
    const output = Buffer.concat(
      r.updates.filter((u) => u.sessionUpdate === 'terminal_output_chunk').map((u) => Buffer.from(u.data, 'base64')),
    ).toString();
    expect(output).not.toContain('never');
    await expect(
      h.peer.request('terminal/cancel', { sessionId: h.sessionId, terminalId: term.terminalId }),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it('v2: a local command streams into an agent-owned display terminal (ACP-V2-TERM-05/06/08)', async () => {
    const h = await start(2, { agent: { mode: 'auto' } });
    const r = await h.turn("run printf 'a\\nb\\n'; printf 'c' 1>&2");
    expect(r.stopReason).toBe('end_turn');
    const first = r.updates.find((u) => u.sessionUpdate === 'terminal_update');
    expect(first).toMatchObject({ command: "printf 'a\\nb\\n'; printf 'c' 1>&2", cwd: h.cwd });
    const id = first.terminalId;
    const bytes = Buffer.concat(
      r.updates
        .filter((u) => u.sessionUpdate === 'terminal_output_chunk' && u.terminalId === id)
        .map((u) => Buffer.from(u.data, 'base64')),
    );
    expect(bytes.toString().split('').sort().join('')).toBe('\n\nabc');
    const exit = r.updates.filter((u) => u.sessionUpdate === 'terminal_update' && u.exitStatus);
    expect(exit).toHaveLength(1);
    expect(exit[0].exitStatus.exitCode).toBe(0);
    const final = toolUpdates(r.updates).at(-1)!;
    expect(final.content).toEqual([{ type: 'terminal', terminalId: id }]);
  });
});
