/**
 * Token usage of models without a known context window: no `usage_update` is possible (it needs
 * `size`, ACP-ALL-USAGE-02), so the built-in agent reports each turn's token counts (and cost
 * when the pricing is known) as `_meta["acp-kit/usage"]` of a `session_info_update` at the end of
 * the turn. Real agent runtime over in-memory pipes, the OpenAI-compatible provider against a
 * loopback fake of the streaming API; every wire message is checked against the official schema.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCodingAgent, readTurnTokenUsage, USAGE_META_KEY } from '../src/coding-agent.js';
import { createOpenAICompatibleModel, type ProviderModelOptions } from '../src/models/providers.js';
import { openai, startFakeLlm, type FakeLlm } from '../../../test/fixtures/coding-fake-llm.js';
import { startHarness, type Harness, type Wire } from '../../../test/fixtures/coding-harness.js';
import { tempDir } from '../../../test/support/temp.js';

let llm: FakeLlm;
let harness: Harness | undefined;
beforeEach(async () => {
  llm = await startFakeLlm();
});
afterEach(async () => {
  try {
    harness?.tap.assertAllValid();
  } finally {
    await harness?.close();
    harness = undefined;
    await llm.close();
  }
});

async function agentOn(version: 1 | 2, extra: Partial<ProviderModelOptions> = {}): Promise<Harness> {
  const dir = tempDir('coding-usage-meta-');
  writeFileSync(join(dir, 'README.md'), '# Demo project\n');
  const model = createOpenAICompatibleModel({
    modelName: 'fake-llm-no-window',
    baseUrl: `${llm.url}/v1`,
    apiKey: 'sk-test',
    ...extra,
  });
  harness = await startHarness({ version, cwd: dir, agent: createCodingAgent({ model }) });
  return harness;
}

const metaUpdates = (us: Wire[]) =>
  us.filter((u) => u.sessionUpdate === 'session_info_update' && u._meta?.[USAGE_META_KEY] !== undefined);
const usageUpdates = (us: Wire[]) => us.filter((u) => u.sessionUpdate === 'usage_update');
const toolTurn = () => [
  {
    steps: [
      openai.role(),
      openai.toolStart(0, 'call_1', 'read_file'),
      openai.toolArgs(0, '{"path":"README.md"}'),
      openai.finish('tool_calls'),
      openai.usage(100, 20),
      openai.done(),
    ],
  },
  { steps: [openai.role(), openai.text('A title.'), openai.finish('stop'), openai.usage(150, 10), openai.done()] },
];

describe('turn token usage without a context window', () => {
  for (const version of [1, 2] as const) {
    it(`v${version}: one session_info_update per turn with the summed counts of all model requests, before the turn ends; no usage_update`, async () => {
      llm.push(...toolTurn());
      const h = await agentOn(version);
      const r = await h.turn('what is in the readme?');
      expect(r.stopReason).toBe('end_turn');
      expect(llm.requests).toHaveLength(2);
      expect(usageUpdates(r.updates)).toEqual([]);
      const metas = metaUpdates(r.updates);
      expect(metas).toEqual([
        {
          sessionUpdate: 'session_info_update',
          _meta: { [USAGE_META_KEY]: { inputTokens: 250, outputTokens: 30, totalTokens: 280 } },
        },
      ]);
      // no title or updatedAt of its own: the session's title is not cleared by it
      expect('title' in metas[0]! || 'updatedAt' in metas[0]!).toBe(false);
      // v1: it arrived before the prompt response; v2: before the idle state_update (which ends r.updates)
      expect(r.updates.indexOf(metas[0]!)).toBeGreaterThan(
        r.updates.findLastIndex((u) => u.sessionUpdate === 'agent_message_chunk'),
      );

      // the next turn reports its own counts, not the session's running total
      llm.push({
        steps: [openai.role(), openai.text('ok'), openai.finish('stop'), openai.usage(300, 5), openai.done()],
      });
      const next = await h.turn('thanks');
      expect(metaUpdates(next.updates).map((u) => readTurnTokenUsage(u._meta))).toEqual([
        { inputTokens: 300, outputTokens: 5, totalTokens: 305 },
      ]);
    });
  }

  it('with pricing: the turn cost rides along; a turn that fails at the provider still reports what was spent', async () => {
    llm.push(...toolTurn());
    const h = await agentOn(2, { pricing: { inputPerMillion: 2, outputPerMillion: 10, currency: 'USD' } });
    const r = await h.turn('what is in the readme?');
    const [u] = metaUpdates(r.updates).map((m) => readTurnTokenUsage(m._meta));
    expect(u).toMatchObject({ inputTokens: 250, outputTokens: 30, totalTokens: 280, cost: { currency: 'USD' } });
    expect(u!.cost!.amount).toBeCloseTo((250 * 2 + 30 * 10) / 1e6, 12);

    // first request spends tokens, the second fails: the turn ends `error` and the tokens are still reported
    llm.push(toolTurn()[0]!, { status: 500, body: { error: { message: 'upstream down' } } });
    const failed = await h.turn('again');
    expect(failed.stopReason).toBe('error');
    expect(metaUpdates(failed.updates).map((m) => readTurnTokenUsage(m._meta))).toMatchObject([
      { inputTokens: 100, outputTokens: 20, totalTokens: 120 },
    ]);
  });

  it('a known context window keeps usage_update and sends no _meta usage', async () => {
    llm.push(...toolTurn());
    const h = await agentOn(2, { contextWindow: 1000 });
    const r = await h.turn('what is in the readme?');
    expect(usageUpdates(r.updates).map((u) => [u.used, u.size])).toEqual([
      [120, 1000],
      [160, 1000],
    ]);
    expect(metaUpdates(r.updates)).toEqual([]);
  });
});

describe('readTurnTokenUsage', () => {
  it('reads the counts leniently: malformed input is undefined, a malformed cost is dropped', () => {
    expect(readTurnTokenUsage({ [USAGE_META_KEY]: { inputTokens: 3, outputTokens: 4 } })).toEqual({
      inputTokens: 3,
      outputTokens: 4,
      totalTokens: 7,
    });
    expect(
      readTurnTokenUsage({
        [USAGE_META_KEY]: { inputTokens: 3, outputTokens: 4, totalTokens: 7, cost: { amount: 'x' } },
      }),
    ).toEqual({ inputTokens: 3, outputTokens: 4, totalTokens: 7 });
    expect(readTurnTokenUsage({ [USAGE_META_KEY]: { inputTokens: -1, outputTokens: 4 } })).toBeUndefined();
    expect(readTurnTokenUsage({ other: 1 })).toBeUndefined();
    expect(readTurnTokenUsage(undefined)).toBeUndefined();
  });
});
