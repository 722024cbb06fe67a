/**
 * `acp-kit chat` answering the agent's questions (issue 26 item 2) in a real pseudo-terminal (tmux)
 * against the built-in agent on the demo model, v1 and v2: the chat advertises form elicitation
 * (else the agent would not ask), the form names the asking agent and marks the required field,
 * a choice is picked and reviewed, and the answer is what the agent's reply reads; Ctrl-X declines.
 * url mode (a fixture agent): the full URL and its host, consent or decline, the URL printed, never opened.
 * Needs `npm run build` and tmux (fails, not skips, without tmux).
 */
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { BUILT } from './fixtures/cli-helpers.js';
import { HAS_TMUX, useTmuxChat } from './support/tmux-chat.js';

const { startChat } = useTmuxChat();
const ASK = 'ask Which database? choices postgres, sqlite';
const URL_AGENT = fileURLToPath(new URL('./fixtures/chat-url-agent.mjs', import.meta.url));

describe('acp-kit chat: elicitation form (tmux, built-in agent)', () => {
  it('has what it needs: tmux and the build', () => {
    expect(HAS_TMUX, 'tmux is not installed (apt-get install -y tmux)').toBe(true);
    expect(BUILT, 'run `npm run build` first').toBe(true);
  });

  for (const protocol of ['1', '2'] as const) {
    it(`v${protocol}: the form shows, a choice is picked and reviewed, the agent reads the answer`, async () => {
      const t = startChat({}, ['--protocol', protocol]);
      await t.waitScreen(/ready · Ctrl-D exits/, 'the chat to be ready');
      t.type(ASK);
      await t.waitScreen(/asks: Which database\?[\s\S]*❯ 1\. postgres[\s\S]*2\. sqlite/, 'the form');
      const form = t.screen();
      // the agent is named (ACP-ALL-ELIC-06), the field is marked required, decline and cancel are offered
      expect(form).toMatch(/acp-kit[^\n]* asks: Which database\?/);
      expect(form).toMatch(/^│ Which database\? \*\s+│$/m);
      expect(form).toMatch(/Ctrl-X decline · Esc cancel/);
      t.key('Down');
      t.key('Enter');
      await t.waitScreen(/review your answers[\s\S]*Which database\?\*: sqlite/, 'the review');
      t.key('Enter');
      await t.waitScreen(/— end_turn/, 'the end of the turn');
      const s = t.screen();
      expect(s).toContain('✓ Which database? → answer=sqlite');
      expect(s).toContain('The user answered: sqlite');
    }, 60_000);
  }

  it('Ctrl-X declines: the agent is told the user declined, nothing was answered', async () => {
    const t = startChat({}, ['--protocol', '2']);
    await t.waitScreen(/ready · Ctrl-D exits/, 'the chat to be ready');
    t.type(ASK);
    await t.waitScreen(/asks: Which database\?/, 'the form');
    t.key('C-x');
    await t.waitScreen(/— end_turn/, 'the end of the turn');
    const s = t.screen();
    expect(s).toContain('✗ declined: Which database?');
    expect(s).toContain('The user declined to answer the question.');
    expect(s).not.toContain('The user answered');
  }, 60_000);

  for (const [key, action, noted] of [
    ['y', 'accept', '✓ Sign in to continue: open this URL yourself: https://auth.example.com/consent?flow=1'],
    ['n', 'decline', '✗ declined: open https://auth.example.com/consent?flow=1'],
  ] as const) {
    it(`url mode: the full URL and its host, then consent asked; ${key} answers ${action}`, async () => {
      const t = startChat({}, ['--agent', `${process.execPath} ${URL_AGENT}`]);
      await t.waitScreen(/ready · Ctrl-D exits/, 'the chat to be ready');
      t.type('go');
      await t.waitScreen(/url-agent 1\.0\.0 asks: Sign in to continue/, 'the url prompt');
      const s = t.screen();
      expect(s).toContain('It asks you to open: https://auth.example.com/consent?flow=1');
      expect(s).toMatch(/host: auth\.example\.com/);
      expect(s).toMatch(/n decline · Esc cancel/);
      t.key(key);
      await t.waitScreen(/— end_turn/, 'the end of the turn');
      expect(t.screen()).toContain(noted);
      expect(t.screen()).toContain(`url answer: ${action}`);
    }, 60_000);
  }
});
