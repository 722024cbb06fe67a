/**
 * `acp-kit chat` session settings in a real pseudo-terminal (tmux): `--mode` shown in the header,
 * `/mode` listing the choices with the current one marked, `/mode <id>` setting it (the agent's
 * own answer to "state" proves it holds the value), `/model` with an unknown id listing the valid
 * ones, v1 legacy modes through session/set_mode, and the built-in agent's mode changing what it
 * does. Needs `npm run build` and tmux (fails, not skips, without tmux).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILT, FIXTURES, waitFor } from './fixtures/cli-helpers.js';
import { HAS_TMUX, useTmuxChat } from './support/tmux-chat.js';

const { startChat, mkdir } = useTmuxChat();
const AGENT = `node ${FIXTURES}/cli-config-agent.mjs`;

describe('chat /mode, /model, /config (tmux)', () => {
  it('has what it needs: tmux and the build', () => {
    expect(HAS_TMUX, 'tmux is not installed (apt-get install -y tmux)').toBe(true);
    expect(BUILT, 'run `npm run build` first').toBe(true);
  });

  it('config options: --mode in the header, /mode lists and sets, the agent holds the value', async () => {
    const t = startChat({}, ['--agent', AGENT, '--mode', 'code']);
    await t.waitScreen(/ready · Ctrl-D exits/, 'the chat to be ready');
    expect(t.screen()).toContain('mode code · model fast · effort low · web off');
    t.type('/mode');
    await t.waitScreen(
      /Mode \(mode\):\n\s*○ ask — Ask first\n\s*● code — Code\n\s*○ architect — Architect/,
      'the mode list',
    );
    t.type('/mode architect');
    await t.waitScreen(/Mode set to architect/, 'the mode to be set');
    // the status line follows the change
    await t.waitScreen(/mode architect · model fast\s*$/m, 'the status line');
    t.type('state');
    await t.waitScreen(/mode=architect model=fast effort=low web=false/, "the agent's state");
    t.type('/model gpt-9');
    await t.waitScreen(/\/model: "gpt-9" is not a value of "model"\n\s*Valid values: "fast", "smart"/, 'the error');
    t.type('/config web=on');
    await t.waitScreen(/Web search set to true/, 'the boolean to be set');
    t.type('state');
    await t.waitScreen(/mode=architect model=fast effort=low web=true/, "the agent's state after /config");
  }, 60_000);

  it("--profile: the profile's agent (env included) and mode, shown in the header", async () => {
    const config = mkdir('tui-config');
    mkdirSync(join(config, 'acp-kit'));
    const agent = {
      command: process.execPath,
      args: [join(FIXTURES, 'cli-config-agent.mjs')],
      env: { CLI_CONFIG_FIXTURE: 'modes' },
    };
    writeFileSync(
      join(config, 'acp-kit', 'config.json'),
      JSON.stringify({ profiles: { legacy: { agent, mode: 'code' } } }),
    );
    const t = startChat({ XDG_CONFIG_HOME: config }, ['--profile', 'legacy']);
    await t.waitScreen(/ready · Ctrl-D exits/, 'the chat to be ready');
    expect(t.screen()).toContain('config-fixture-agent 1.0.0');
    expect(t.screen()).toMatch(/^mode code$/m);
    t.type('state');
    await t.waitScreen(/mode=code model=fast/, "the agent's state");
  }, 60_000);

  it('v1 legacy modes: /mode sets through session/set_mode', async () => {
    const t = startChat({ CLI_CONFIG_FIXTURE: 'modes' }, ['--agent', AGENT]);
    await t.waitScreen(/ready · Ctrl-D exits/, 'the chat to be ready');
    t.type('/mode code');
    await t.waitScreen(/Mode set to code/, 'the mode to be set');
    t.type('state');
    await t.waitScreen(/mode=code model=/, "the agent's state");
  }, 60_000);

  it('the built-in agent: /mode auto, then a write runs without the permission picker', async () => {
    const t = startChat();
    await t.waitScreen(/ready · Ctrl-D exits/, 'the chat to be ready');
    t.type('/mode auto');
    await t.waitScreen(/Mode set to auto/, 'the mode to be set');
    t.type('create notes.txt containing hello');
    await waitFor(
      () => existsSync(join(t.cwd, 'notes.txt')),
      20_000,
      () => `notes.txt; screen was:\n${t.screen()}`,
    );
    expect(t.screen()).not.toMatch(/Esc reject/);
  }, 60_000);
});
