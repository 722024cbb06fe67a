/**
 * `acp-kit run` on real model providers: the model choice (flags, ACP_KIT_MODEL, API keys) reaches
 * the built-in agent, the header names the model, usage is shown; against a loopback fake of the
 * OpenAI streaming API that records its requests (real processes; needs `npm run build`).
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { chooseModel } from '../src/cli/model-choice.js';
import { openai, startFakeLlm, type FakeLlm } from './fixtures/coding-fake-llm.js';
import { cliEnv, ndjson, runCli, tempDir } from './fixtures/cli-helpers.js';

describe('chooseModel', () => {
  it('takes --model, then ACP_KIT_MODEL, then the provider whose key is set, then demo', () => {
    expect(chooseModel({}, {})).toEqual({ backend: 'demo', label: 'demo', source: 'default' });
    expect(chooseModel({}, { ANTHROPIC_API_KEY: 'a' })).toMatchObject({
      backend: 'anthropic',
      modelName: 'claude-sonnet-4-5',
      label: 'anthropic:claude-sonnet-4-5',
      source: 'ANTHROPIC_API_KEY',
    });
    expect(chooseModel({}, { ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'o' })).toMatchObject({
      backend: 'openai',
      source: 'OPENAI_API_KEY',
    });
    expect(chooseModel({}, { OPENAI_API_KEY: 'o', ACP_KIT_MODEL: 'demo' })).toMatchObject({
      backend: 'demo',
      source: 'ACP_KIT_MODEL',
    });
    expect(chooseModel({ model: 'anthropic' }, { ACP_KIT_MODEL: 'openai' })).toMatchObject({
      backend: 'anthropic',
      source: 'flag',
    });
  });
  it('takes the model name and base URL from flags before the environment', () => {
    const env = { OPENAI_API_KEY: 'o', OPENAI_BASE_URL: 'http://env/v1', ACP_KIT_MODEL_NAME: 'env-model' };
    expect(chooseModel({}, env)).toMatchObject({
      modelName: 'env-model',
      baseUrl: 'http://env/v1',
      label: 'openai:env-model',
    });
    expect(chooseModel({ modelName: 'm', baseUrl: 'http://flag/v1' }, env)).toMatchObject({
      modelName: 'm',
      baseUrl: 'http://flag/v1',
      label: 'openai:m',
    });
  });
  it('rejects an unknown ACP_KIT_MODEL with a usage error naming the variable', () => {
    expect(() => chooseModel({}, { ACP_KIT_MODEL: 'gpt' })).toThrow(
      /ACP_KIT_MODEL must be demo, openai or anthropic \(got "gpt"\)/,
    );
  });
});

describe('acp-kit run with an OpenAI-compatible model', () => {
  // each test owns its server and directories (the tests run concurrently)
  const servers: FakeLlm[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const fakeLlm = async (): Promise<FakeLlm> => {
    const s = await startFakeLlm();
    servers.push(s);
    return s;
  };
  const dir = (p: string): string => {
    const d = tempDir(p);
    dirs.push(d);
    return d;
  };
  const hello = () => ({
    steps: [
      openai.role(),
      openai.text('Hello '),
      openai.text('there!'),
      openai.finish('stop'),
      openai.usage(1200, 34),
      openai.done(),
    ],
  });

  it('ACP_KIT_MODEL=openai with OPENAI_BASE_URL: the fake server gets the request, the header names the model, usage is shown', async () => {
    const llm = await fakeLlm();
    llm.push(hello());
    const env = cliEnv({
      ACP_KIT_DATA_DIR: dir('m-data'),
      ACP_KIT_MODEL: 'openai',
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: `${llm.url}/v1`,
    });
    const r = await runCli(['run', 'say hello'], { cwd: dir('m-cwd'), env });
    expect(r.stderr).toContain('model openai:gpt-4o-mini');
    expect(r.code).toBe(0);
    expect(llm.requests).toHaveLength(1);
    expect(llm.requests[0]!.headers.authorization).toBe('Bearer sk-test');
    expect(llm.requests[0]!.body).toMatchObject({ model: 'gpt-4o-mini' });
    expect(r.stdout).toContain('Hello there!');
    // gpt-4o-mini has a known window: used = input + output tokens
    expect(r.stdout).toMatch(/stop reason: end_turn.* · 1\.2k\/128k tokens/);
  });

  it('only OPENAI_API_KEY set: picks OpenAI; --model-name and --base-url reach the agent; --json names the model', async () => {
    const llm = await fakeLlm();
    llm.push(hello());
    const env = cliEnv({
      ACP_KIT_DATA_DIR: dir('m-data'),
      OPENAI_API_KEY: 'sk-key-only',
      ACP_KIT_MODEL: undefined,
      OPENAI_BASE_URL: undefined,
    });
    const r = await runCli(['run', '--json', '--model-name', 'fake-gpt', '--base-url', `${llm.url}/v1`, 'say hello'], {
      cwd: dir('m-cwd'),
      env,
    });
    expect(r.code).toBe(0);
    expect(llm.requests).toHaveLength(1);
    expect(llm.requests[0]!.body).toMatchObject({ model: 'fake-gpt' });
    const events = ndjson(r.stdout);
    expect(events[0]).toMatchObject({ type: 'connection', model: 'openai:fake-gpt' });
    expect(events.at(-1)).toMatchObject({ type: 'result', stopReason: 'end_turn', exitCode: 0 });
  });

  // "chat takes the same model flags as run" is checked on the `chat --help` run of cli-errors.test.ts

  it('a provider error is reported once', async () => {
    const llm = await fakeLlm();
    llm.push({ status: 401, body: { error: { message: 'invalid api key sk-bad', type: 'invalid_request_error' } } });
    const env = cliEnv({ ACP_KIT_DATA_DIR: dir('m-data'), OPENAI_API_KEY: 'sk-bad', OPENAI_BASE_URL: `${llm.url}/v1` });
    const r = await runCli(['run', 'say hello'], { cwd: dir('m-cwd'), env });
    expect(llm.requests.length).toBeGreaterThanOrEqual(1);
    const all = r.stdout + r.stderr;
    expect(all.match(/invalid api key sk-bad/g)).toHaveLength(1);
  });
});
