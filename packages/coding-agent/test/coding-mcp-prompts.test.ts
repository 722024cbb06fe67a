/**
 * MCP prompts as ACP slash commands in the built-in coding agent (issue 26 item 5): the agent
 * runtime over in-memory pipes (test/fixtures/coding-harness.ts, schema-checked both ways), a real
 * MCP server process with prompts (test/fixtures/mcp-prompt-server.mjs, official MCP SDK, stdio),
 * and a recording model (the demo model, every request kept) that shows what the model received.
 * `available_commands_update` (ACP-ALL-CMD-01) lists `mcp__<server>__<prompt>` with an input hint
 * from the prompt's arguments; `/<name> args` (ACP-ALL-CMD-02) runs `prompts/get` and its messages
 * are the turn's input.
 */
import { resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCodingAgent, createDemoModel, type LanguageModel, type ModelRequest } from '../src/coding-agent.js';
import { promptArguments } from '../src/mcp/index.js';
import { answer, chunkText, startHarness, type Harness, type Wire } from '../../../test/fixtures/coding-harness.js';
import { tempDir } from '../../../test/support/temp.js';

const SERVER = resolve('test/fixtures/mcp-prompt-server.mjs');
const harnesses: Harness[] = [];
afterAll(async () => {
  // closing the connection closes the sessions, which end their MCP server processes
  await Promise.all(harnesses.map((h) => h.close()));
});

/** The coding agent with a recording model, and a session whose one MCP server is the prompt fixture. */
async function start(version: 1 | 2) {
  const seen: ModelRequest[] = [];
  const demo = createDemoModel({ delayMs: 0 });
  const model: LanguageModel = { id: demo.id, stream: (req) => (seen.push(req), demo.stream(req)) };
  const agent = createCodingAgent({ model, mcp: { log: () => undefined } });
  const h = await startHarness({ version, agent, cwd: tempDir('mcp-prompts-'), permission: answer('allow_once') });
  harnesses.push(h);
  const from = h.updates.length;
  const server = { name: 'prompts', command: process.execPath, args: [SERVER], env: [] };
  const res = (await h.peer.request('session/new', {
    cwd: tempDir('mcp-prompts-'),
    // v1 stdio entries carry no `type`; v2 ones must
    mcpServers: [version === 2 ? { type: 'stdio', ...server } : server],
  })) as Wire;
  h.sessionId = res.sessionId;
  // v2: in the response; v1 results cannot carry commands: an update follows the response
  const commands: Wire[] =
    version === 2
      ? res.availableCommands
      : (await h.waitFor((u) => u.sessionUpdate === 'available_commands_update', from)).availableCommands;
  return { h, seen, commands };
}

/** The messages of one model request, as `role: text | text` lines. */
const userTexts = (req: ModelRequest | undefined) =>
  (req?.messages ?? []).map((m) =>
    m.role === 'tool' ? 'tool' : `${m.role}: ${m.content.map((p) => ('text' in p ? p.text : p.type)).join(' | ')}`,
  );

describe.each([1, 2] as const)('MCP prompts as slash commands (v%i)', (version) => {
  it('the client sees each prompt as a command; running it sends the prompt text to the model', async () => {
    const { h, seen, commands } = await start(version);
    expect(commands.map((c) => c.name)).toEqual([
      'help',
      'clear',
      'mode',
      'mcp__prompts__review',
      'mcp__prompts__briefing',
      'mcp__prompts__broken',
    ]);
    const review = commands.find((c) => c.name === 'mcp__prompts__review');
    expect(review?.description).toBe('Reviews a piece of code (prompt "review" of MCP server "prompts")');
    // v2 tags the input ({ type: 'text', hint }); both carry the hint
    expect(review?.input?.hint).toBe('<code> [focus]');
    expect(commands.find((c) => c.name === 'mcp__prompts__briefing')?.input ?? null).toBeNull();

    const r = await h.turn('/mcp__prompts__review const x = 1; correctness first');
    expect(r.stopReason).toBe('end_turn');
    // the first word fills `code`, the rest of the text the last argument (`focus`); the model
    // reads the prompt's message, not the typed slash command
    expect(seen).toHaveLength(1);
    expect(userTexts(seen[0])).toEqual(['user: Please review this code: const (focus: x = 1; correctness first)']);
    expect(h.tap.failures).toEqual([]);
  }, 60_000);

  it("a multi-message prompt becomes the conversation's next messages, roles kept, resources inlined", async () => {
    const { h, seen } = await start(version);
    expect(await h.prompt('/mcp__prompts__briefing')).toBe('end_turn');
    expect(userTexts(seen.at(-1))).toEqual([
      'user: Brief me on the project.',
      'assistant: Which part?',
      'user: <context uri="note://plan">\nthe plan\n</context>',
    ]);
  }, 60_000);

  it('a missing required argument or a failing prompt is answered without a model call', async () => {
    const { h, seen } = await start(version);
    const missing = await h.turn('/mcp__prompts__review');
    expect(missing.stopReason).toBe('end_turn');
    expect(chunkText(missing.updates)).toBe(
      '/mcp__prompts__review needs <code>. Usage: /mcp__prompts__review <code> [focus]',
    );
    const broken = await h.turn('/mcp__prompts__broken');
    expect(broken.stopReason).toBe('end_turn');
    expect(chunkText(broken.updates)).toMatch(/The prompt "broken" of MCP server "prompts" failed: .*exploded/);
    expect(seen).toHaveLength(0);
    expect(h.tap.failures).toEqual([]);
  }, 60_000);

  it("a server's prompts/list_changed sends the complete new command list", async () => {
    const { h } = await start(version);
    const from = h.updates.length;
    // the demo model calls the tool that registers a prompt (the server then notifies list_changed)
    expect(await h.prompt('mcp prompts add_prompt {"name":"fresh"}')).toBe('end_turn');
    const update = await h.waitFor(
      (u) =>
        u.sessionUpdate === 'available_commands_update' &&
        u.availableCommands.some((c: Wire) => c.name === 'mcp__prompts__fresh'),
      from,
    );
    expect(update.availableCommands.map((c: Wire) => c.name)).toEqual([
      'help',
      'clear',
      'mode',
      'mcp__prompts__review',
      'mcp__prompts__briefing',
      'mcp__prompts__broken',
      'mcp__prompts__fresh',
    ]);
    const r = await h.turn('/mcp__prompts__fresh');
    expect(r.stopReason).toBe('end_turn');
    expect(h.tap.failures).toEqual([]);
  }, 60_000);
});

describe('promptArguments', () => {
  const def = {
    name: 'p',
    arguments: [
      { name: 'a', required: true },
      { name: 'b', required: true },
      { name: 'c', required: false },
    ],
  };
  it('fills the arguments in order; the last takes the rest; names the required ones not reached', () => {
    expect(promptArguments(def, '  one two three four ')).toEqual({
      args: { a: 'one', b: 'two', c: 'three four' },
      missing: [],
    });
    expect(promptArguments(def, 'one')).toEqual({ args: { a: 'one' }, missing: ['b'] });
    expect(promptArguments({ name: 'q' }, 'ignored text')).toEqual({ args: {}, missing: [] });
  });
});
