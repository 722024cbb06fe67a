/**
 * The built-in agent puts the turn's token usage on the v1 prompt result (unstable
 * PromptResponse.usage, end-turn token usage RFD), the same counts as its usage metadata of the
 * turn. Real agent runtime over in-memory pipes, against a loopback fake of the OpenAI streaming API.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createCodingAgent, readTurnTokenUsage, USAGE_META_KEY } from '../src/coding-agent.js';
import { createOpenAICompatibleModel } from '../src/models/providers.js';
import { openai, startFakeLlm, type FakeLlm } from '../../../test/fixtures/coding-fake-llm.js';
import { startHarness, type Harness } from '../../../test/fixtures/coding-harness.js';
import { tempDir } from '../../../test/support/temp.js';

let llm: FakeLlm;
let harness: Harness | undefined;
beforeEach(async () => {
  llm = await startFakeLlm();
});
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  await llm.close();
});

it('v1: the prompt result carries the turn usage, equal to the turn usage metadata', async () => {
  llm.push({ steps: [openai.role(), openai.text('Hi.'), openai.finish('stop'), openai.usage(300, 12), openai.done()] });
  const dir = tempDir('coding-prompt-usage-');
  writeFileSync(join(dir, 'README.md'), '# x\n');
  const model = createOpenAICompatibleModel({ modelName: 'fake-llm-no-window', baseUrl: `${llm.url}/v1`, apiKey: 'k' });
  harness = await startHarness({ version: 1, cwd: dir, agent: createCodingAgent({ model }) });
  const r = await harness.turn('hello');
  expect(r.stopReason).toBe('end_turn');
  expect(r.result).toEqual({ stopReason: 'end_turn', usage: { totalTokens: 312, inputTokens: 300, outputTokens: 12 } });
  const meta = r.updates.find((u) => u.sessionUpdate === 'session_info_update' && u._meta?.[USAGE_META_KEY]);
  const tokens = readTurnTokenUsage(meta?._meta);
  // consistent: the metadata of the same turn reports the same counts
  expect(tokens).toEqual({ inputTokens: 300, outputTokens: 12, totalTokens: 312 });
  harness.tap.assertAllValid();
});
