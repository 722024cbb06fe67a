/**
 * `acp-kit run` shows token usage of a real provider whose context window is unknown (no
 * `--context-window`, a model name outside the known table): the built-in agent reports the
 * turn's counts as `_meta["acp-kit/usage"]`, the stop line and the `--json` result show them.
 * Real processes against a loopback fake of the OpenAI streaming API (needs `npm run build`).
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { openai, startFakeLlm, type FakeLlm } from './fixtures/coding-fake-llm.js';
import { cliEnv, ndjson, runCli, tempDir } from './fixtures/cli-helpers.js';

describe('acp-kit run: tokens without a context window', () => {
  const servers: FakeLlm[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const setup = async () => {
    const llm = await startFakeLlm();
    servers.push(llm);
    const data = tempDir('usage-data');
    const cwd = tempDir('usage-cwd');
    dirs.push(data, cwd);
    // the fake server reports 1234 prompt and 56 completion tokens for the one request
    llm.push({
      steps: [openai.role(), openai.text('Hello!'), openai.finish('stop'), openai.usage(1234, 56), openai.done()],
    });
    const env = cliEnv({
      ACP_KIT_DATA_DIR: data,
      ACP_KIT_MODEL: 'openai',
      ACP_KIT_MODEL_NAME: 'no-window-model',
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: `${llm.url}/v1`,
      ACP_KIT_CONTEXT_WINDOW: undefined,
    });
    return { llm, env, cwd };
  };

  for (const protocol of ['1', '2'] as const) {
    it(`v${protocol}: the stop line shows the tokens the provider reported`, async () => {
      const { llm, env, cwd } = await setup();
      const r = await runCli(['run', '--protocol', protocol, 'say hello'], { cwd, env });
      expect(r.code, r.stderr).toBe(0);
      expect(llm.requests).toHaveLength(1);
      expect(llm.requests[0]!.body).toMatchObject({ model: 'no-window-model' });
      expect(r.stderr).toContain('model openai:no-window-model');
      expect(r.stdout).toMatch(/stop reason: end_turn.* · 1290 tokens \(1234 in, 56 out\)/);
    });
  }

  it('--json: the result line carries the tokens', async () => {
    const { env, cwd } = await setup();
    const r = await runCli(['run', '--json', 'say hello'], { cwd, env });
    expect(r.code, r.stderr).toBe(0);
    const result = ndjson(r.stdout).at(-1);
    expect(result).toMatchObject({
      type: 'result',
      stopReason: 'end_turn',
      tokens: { inputTokens: 1234, outputTokens: 56, totalTokens: 1290 },
    });
    expect(result).not.toHaveProperty('usage');
  });
});
