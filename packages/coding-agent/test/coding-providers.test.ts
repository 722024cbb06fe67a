/**
 * The coding agent on real model providers (Vercel AI SDK: OpenAI-compatible Chat Completions and
 * Anthropic Messages) against a loopback server that streams their wire formats.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCodingAgent, type LanguageModel, type ModelEvent } from '../src/coding-agent.js';
import { createAnthropicModel, createOpenAICompatibleModel } from '../src/models/providers.js';
import { anthropic, openai, startFakeLlm, type FakeLlm } from '../../../test/fixtures/coding-fake-llm.js';
import { chunkText, startHarness, type Harness, type Wire } from '../../../test/fixtures/coding-harness.js';
import { tempDir } from '../../../test/support/temp.js';

let llm: FakeLlm;
let harness: Harness | undefined;
beforeEach(async () => {
  llm = await startFakeLlm();
});
afterEach(async () => {
  harness?.tap.assertAllValid();
  await harness?.close();
  harness = undefined;
  await llm.close();
});

function project(): string {
  const dir = tempDir('coding-providers-');
  writeFileSync(join(dir, 'README.md'), '# Demo project\n');
  return dir;
}

async function agentOn(model: LanguageModel, version: 1 | 2 = 2, maxOutputTokens?: number): Promise<Harness> {
  harness = await startHarness({ version, cwd: project(), agent: createCodingAgent({ model, maxOutputTokens }) });
  return harness;
}

const tools = (us: Wire[]) =>
  us.filter((u) => u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update');
const usageOf = (us: Wire[]) => us.filter((u) => u.sessionUpdate === 'usage_update');

describe('OpenAI-compatible provider', () => {
  const model = (extra: { contextWindow?: number } = {}) =>
    createOpenAICompatibleModel({
      modelName: 'fake-gpt',
      baseUrl: `${llm.url}/v1`,
      apiKey: 'sk-test',
      contextWindow: 1000,
      pricing: { inputPerMillion: 1_000_000, outputPerMillion: 2_000_000, currency: 'USD' },
      ...extra,
    });

  it('streams reasoning and text, runs a streamed tool call, sends the result back, reports usage and cumulative cost', async () => {
    llm.push(
      {
        steps: [
          openai.role(),
          openai.reasoning('Let me '),
          openai.reasoning('look.'),
          openai.text('Reading '),
          openai.text('it.'),
          openai.toolStart(0, 'call_1', 'read_file'),
          openai.toolArgs(0, '{"path":'),
          openai.toolArgs(0, '"README.md"}'),
          openai.finish('tool_calls'),
          openai.usage(100, 20),
          openai.done(),
        ],
      },
      {
        steps: [
          openai.role(),
          openai.text('The README '),
          openai.text('is a title.'),
          openai.finish('stop'),
          openai.usage(150, 10),
          openai.done(),
        ],
      },
    );
    const h = await agentOn(model());
    const r = await h.turn('what is in the readme?');
    expect(r.stopReason).toBe('end_turn');
    expect(chunkText(r.updates, 'agent_thought_chunk')).toBe('Let me look.');
    expect(chunkText(r.updates)).toBe('Reading it.The README is a title.');
    const t = tools(r.updates);
    expect(t[0]).toMatchObject({
      title: 'Read README.md',
      name: 'read_file',
      kind: 'read',
      status: 'pending',
      rawInput: { path: 'README.md' },
    });
    expect(t.at(-1)!.status).toBe('completed');
    // used = input + output of each call; cost is cumulative for the session (ACP-ALL-USAGE-01)
    expect(usageOf(r.updates).map((u) => [u.used, u.size, u.cost?.amount])).toEqual([
      [120, 1000, 140],
      [160, 1000, 310],
    ]);

    const [first, second] = llm.requests;
    expect(first.url).toBe('/v1/chat/completions');
    expect(first.headers.authorization).toBe('Bearer sk-test');
    expect(first.body).toMatchObject({ model: 'fake-gpt', stream: true, stream_options: { include_usage: true } });
    expect(first.body.messages[0].role).toBe('system');
    expect(first.body.messages.at(-1)).toEqual({ role: 'user', content: 'what is in the readme?' });
    const names = first.body.tools.map((x: Wire) => x.function.name);
    expect(names).toEqual([
      'read_file',
      'list_files',
      'search_text',
      'write_file',
      'edit_file',
      'run_command',
      'update_plan',
    ]);
    expect(first.body.tools[0].function.parameters.required).toEqual(['path']);
    const asst = second.body.messages.find((m: Wire) => m.role === 'assistant');
    expect(asst.tool_calls).toEqual([
      { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"README.md"}' } },
    ]);
    const toolMsg = second.body.messages.find((m: Wire) => m.role === 'tool');
    expect(toolMsg.tool_call_id).toBe('call_1');
    expect(toolMsg.content).toContain('# Demo project');
  });

  it('finish_reason "length" ends the turn max_tokens; maxOutputTokens is sent as max_tokens', async () => {
    llm.push({
      steps: [openai.role(), openai.text('Once upon a'), openai.finish('length'), openai.usage(10, 3), openai.done()],
    });
    const h = await agentOn(model(), 1, 3);
    expect(await h.prompt('tell me a story')).toBe('max_tokens');
    expect(llm.requests[0].body.max_tokens).toBe(3);
  });

  it('update_plan tool calls become plan updates, not visible tool calls', async () => {
    llm.push(
      {
        steps: [
          openai.toolStart(0, 'p1', 'update_plan'),
          openai.toolArgs(
            0,
            JSON.stringify({
              entries: [
                { content: 'Read', status: 'in_progress' },
                { content: 'Answer', status: 'pending' },
              ],
            }),
          ),
          openai.finish('tool_calls'),
          openai.usage(5, 5),
          openai.done(),
        ],
      },
      { steps: [openai.text('ok'), openai.finish('stop'), openai.usage(5, 5), openai.done()] },
    );
    const h = await agentOn(model(), 2);
    const r = await h.turn('plan it');
    expect(r.stopReason).toBe('end_turn');
    expect(tools(r.updates)).toHaveLength(0);
    expect(r.updates.find((u) => u.sessionUpdate === 'plan_update').plan.entries).toEqual([
      { content: 'Read', status: 'in_progress', priority: 'medium' },
      { content: 'Answer', status: 'pending', priority: 'medium' },
    ]);
    expect(llm.requests[1].body.messages.find((m: Wire) => m.role === 'tool').content).toBe('Plan updated.');
  });

  for (const version of [1, 2] as const) {
    it(`v${version}: cancel mid-stream aborts the HTTP request and ends cancelled (ACP-V${version}-CANCEL-06)`, async () => {
      llm.push({ steps: [openai.role(), openai.text('Thinking about '), { hang: true }] });
      const h = await agentOn(model(), version);
      const turn = h.turn('long answer please');
      await h.waitFor((u) => u.sessionUpdate === 'agent_message_chunk');
      h.cancel();
      const r = await turn;
      expect(r.stopReason).toBe('cancelled');
      await llm.requests[0].aborted; // the server saw the client go away
      expect(llm.requests[0].wasAborted).toBe(true);
    });
  }

  it('an HTTP error ends the v2 turn with stopReason error and the message (ACP-V2-LIFE-12)', async () => {
    llm.push({
      status: 401,
      body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } },
    });
    const h = await agentOn(model(), 2);
    const r = await h.turn('hi');
    expect(r.stopReason).toBe('error');
    expect(JSON.stringify(r.error)).toContain('Incorrect API key');
    expect(chunkText(r.updates)).toContain('Incorrect API key');
  });

  it('an HTTP error in v1 answers session/prompt with a JSON-RPC error carrying the provider message', async () => {
    llm.push({ status: 500, body: { error: { message: 'upstream exploded', type: 'server_error' } } });
    const h = await agentOn(model(), 1);
    const r = await h.turn('hi');
    expect(r.stopReason).toBe('rpc_error');
    expect(r.error).toMatchObject({ code: -32603, message: expect.stringContaining('upstream exploded') });
  });

  it('unknown tools and malformed arguments fail the call and tell the model why', async () => {
    llm.push(
      {
        steps: [
          openai.toolStart(0, 'c1', 'delete_everything'),
          openai.toolArgs(0, '{}'),
          openai.toolStart(1, 'c2', 'read_file'),
          openai.toolArgs(1, '{"path": 42}'),
          openai.finish('tool_calls'),
          openai.usage(5, 5),
          openai.done(),
        ],
      },
      { steps: [openai.text('Sorry.'), openai.finish('stop'), openai.usage(5, 5), openai.done()] },
    );
    const h = await agentOn(model(), 2);
    const r = await h.turn('go');
    expect(r.stopReason).toBe('end_turn');
    const finals = tools(r.updates).filter((u) => u.status === 'failed');
    expect(finals).toHaveLength(2);
    const results = llm.requests[1].body.messages.filter((m: Wire) => m.role === 'tool');
    expect(results.map((m: Wire) => m.tool_call_id)).toEqual(['c1', 'c2']);
    expect(results[0].content).toMatch(/unknown tool "delete_everything"; available tools: read_file/);
    expect(results[1].content).toMatch(/read_file: "path" must be a string, got 42/);
  });

  it('the model itself honours an abort signal at the API level', async () => {
    llm.push({ steps: [openai.role(), openai.text('a'), { hang: true }] });
    const ac = new AbortController();
    const seen: ModelEvent[] = [];
    const run = (async () => {
      for await (const ev of model().stream({
        system: 's',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }],
        tools: [],
        signal: ac.signal,
      })) {
        seen.push(ev);
        if (ev.type === 'text_delta') ac.abort();
      }
    })();
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen).toEqual([{ type: 'text_delta', text: 'a' }]);
  });
});

describe('Anthropic provider', () => {
  const model = () =>
    createAnthropicModel({
      modelName: 'claude-fake',
      baseUrl: `${llm.url}/v1`,
      apiKey: 'ak-test',
      contextWindow: 200_000,
    });

  it('streams thinking and text, runs a tool_use with partial JSON, sends tool_result back, reports usage', async () => {
    llm.push(
      {
        steps: [
          anthropic.start(50),
          anthropic.thinkingStart(0),
          anthropic.thinking(0, 'Need the file.'),
          anthropic.signature(0),
          anthropic.blockStop(0),
          anthropic.textStart(1),
          anthropic.text(1, 'Let me '),
          anthropic.text(1, 'check.'),
          anthropic.blockStop(1),
          anthropic.toolStart(2, 'toolu_1', 'read_file'),
          anthropic.toolJson(2, '{"path": "READ'),
          anthropic.toolJson(2, 'ME.md"}'),
          anthropic.blockStop(2),
          anthropic.delta('tool_use', 30),
          anthropic.stop(),
        ],
      },
      {
        steps: [
          anthropic.start(90),
          anthropic.textStart(0),
          anthropic.text(0, 'It is a title.'),
          anthropic.blockStop(0),
          anthropic.delta('end_turn', 7),
          anthropic.stop(),
        ],
      },
    );
    const h = await agentOn(model(), 1);
    const r = await h.turn('read the readme');
    expect(r.stopReason).toBe('end_turn');
    expect(chunkText(r.updates, 'agent_thought_chunk')).toBe('Need the file.');
    expect(chunkText(r.updates)).toBe('Let me check.It is a title.');
    const t = tools(r.updates);
    expect(t[0]).toMatchObject({
      sessionUpdate: 'tool_call',
      name: 'read_file',
      rawInput: { path: 'README.md' },
      status: 'pending',
    });
    expect(t.at(-1)!.status).toBe('completed');
    expect(usageOf(r.updates).map((u) => [u.used, u.size])).toEqual([
      [80, 200_000],
      [97, 200_000],
    ]);

    const [first, second] = llm.requests;
    expect(first.url).toBe('/v1/messages');
    expect(first.headers['x-api-key']).toBe('ak-test');
    expect(first.body).toMatchObject({ model: 'claude-fake', stream: true });
    expect(typeof first.body.system === 'string' ? first.body.system : JSON.stringify(first.body.system)).toContain(
      'coding agent',
    );
    expect(first.body.tools.find((x: Wire) => x.name === 'edit_file').input_schema.required).toEqual([
      'path',
      'old_string',
      'new_string',
    ]);
    const result = second.body.messages
      .flatMap((m: Wire) => (Array.isArray(m.content) ? m.content : []))
      .find((c: Wire) => c.type === 'tool_result');
    expect(result.tool_use_id).toBe('toolu_1');
    expect(JSON.stringify(result.content)).toContain('# Demo project');
  });

  it('stop_reason max_tokens ends the turn max_tokens; refusal ends it refusal', async () => {
    llm.push(
      {
        steps: [
          anthropic.start(5),
          anthropic.textStart(0),
          anthropic.text(0, 'Partial'),
          anthropic.blockStop(0),
          anthropic.delta('max_tokens', 4),
          anthropic.stop(),
        ],
      },
      {
        steps: [
          anthropic.start(5),
          anthropic.textStart(0),
          anthropic.text(0, 'No.'),
          anthropic.blockStop(0),
          anthropic.delta('refusal', 2),
          anthropic.stop(),
        ],
      },
    );
    const h = await agentOn(model(), 2, 4);
    expect(await h.prompt('write an essay')).toBe('max_tokens');
    expect(llm.requests[0].body.max_tokens).toBe(4);
    expect(await h.prompt('do something bad')).toBe('refusal');
  });

  it('cancel mid-stream aborts the request and ends cancelled', async () => {
    llm.push({ steps: [anthropic.start(5), anthropic.textStart(0), anthropic.text(0, 'Working'), { hang: true }] });
    const h = await agentOn(model(), 2);
    const turn = h.turn('go');
    await h.waitFor((u) => u.sessionUpdate === 'agent_message_chunk');
    h.cancel();
    expect((await turn).stopReason).toBe('cancelled');
    await llm.requests[0].aborted;
    expect(llm.requests[0].wasAborted).toBe(true);
  });
});
