/**
 * `acp-kit chat` in a real pseudo-terminal (tmux, 120x40) with the built-in agent on an
 * OpenAI-compatible model whose context window is unknown: the header names the model (as `run`'s
 * does), and the turn's tokens the fake provider reported show in the stop line and the status
 * line (from the agent's `_meta["acp-kit/usage"]`). Needs `npm run build` and tmux.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openai, startFakeLlm, type FakeLlm } from './fixtures/coding-fake-llm.js';
import { BIN, BUILT, tempDir, waitFor } from './fixtures/cli-helpers.js';

const HAS_TMUX = spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status === 0;
const socket = `acp-kit-hdr-${randomUUID().slice(0, 8)}`;
const tmux = (...args: string[]) => spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const dirs: string[] = [];
let llm: FakeLlm | undefined;

afterEach(async () => {
  // the window (and the chat and agent in it) goes away, also when the test failed
  if (HAS_TMUX) tmux('kill-server');
  await llm?.close();
  llm = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('acp-kit chat: model in the header, tokens without a context window (tmux)', () => {
  it('shows the model and the tokens the provider reported', async () => {
    expect(HAS_TMUX, 'tmux is not installed (apt-get install -y tmux)').toBe(true);
    expect(BUILT, 'run `npm run build` first').toBe(true);
    llm = await startFakeLlm();
    llm.push({
      steps: [openai.role(), openai.text('Hello there!'), openai.finish('stop'), openai.usage(1234, 56), openai.done()],
    });
    const cwd = tempDir('hdr-cwd');
    const data = tempDir('hdr-data');
    const exitDir = tempDir('hdr-exit');
    dirs.push(cwd, data, exitDir);
    const exitFile = join(exitDir, 'code');
    const vars = Object.entries({
      ACP_KIT_DATA_DIR: data,
      ACP_KIT_MODEL: 'openai',
      ACP_KIT_MODEL_NAME: 'no-window-model',
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: `${llm.url}/v1`,
    })
      .map(([k, v]) => `${k}=${q(v)}`)
      .join(' ');
    const cmd = `env -u CI -u FORCE_COLOR -u ACP_KIT_CONTEXT_WINDOW -u ANTHROPIC_API_KEY NO_COLOR=1 ${vars} ${q(process.execPath)} ${q(BIN)} chat --cwd ${q(cwd)}; echo "EXIT=$?" > ${q(exitFile)}; sleep 30`;
    const started = tmux('new-session', '-d', '-s', 'hdr', '-x', '120', '-y', '40', '-c', cwd, cmd);
    expect(started.status, started.stderr).toBe(0);
    const screen = () => tmux('capture-pane', '-p', '-J', '-t', 'hdr', '-S', '-500').stdout;
    const waitScreen = (re: RegExp, what: string) =>
      waitFor(
        () => re.test(screen()),
        20_000,
        () => `${what}; screen was:\n${screen().replace(/\n{3,}/g, '\n')}`,
      );

    await waitScreen(/ready · Ctrl-D exits/, 'the chat to be ready');
    expect(screen()).toMatch(/acp-kit chat · .* · model openai:no-window-model · protocol v2/);
    tmux('send-keys', '-t', 'hdr', '-l', 'say hello');
    tmux('send-keys', '-t', 'hdr', 'Enter');
    await waitScreen(/— end_turn .*· 1290 tokens \(1234 in, 56 out\)/, 'the tokens in the stop line');
    await waitScreen(
      /ready · Ctrl-D exits · \/ commands +.*1290 tokens \(1234 in, 56 out\)/,
      'the tokens in the status line',
    );
    expect(llm.requests).toHaveLength(1);
    expect(screen()).toContain('Hello there!');
    tmux('send-keys', '-t', 'hdr', 'C-d');
    expect(
      await waitFor(() => existsSync(exitFile) && readFileSync(exitFile, 'utf8').trim(), 10_000, 'the chat to exit'),
    ).toBe('EXIT=0');
  }, 60_000);
});
