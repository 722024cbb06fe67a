/**
 * `acp-kit chat --agent-url` in a real pseudo-terminal (tmux, 120x40) against a real `acp-kit serve`
 * (built-in agent, demo model streaming slowly), through a loopback relay that loses the client's
 * side of the connection mid-turn (the server's side stays up and keeps the turn running). The
 * chat reconnects, resumes the session and shows the whole answer once, its stop reason, and one
 * line saying it reconnected. Needs `npm run build` and tmux (fails, not skips, without tmux).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, BUILT, cliEnv } from './fixtures/cli-helpers.js';
import { startCutProxy, type CutProxy } from './support/cut-proxy.js';
import { HAS_TMUX, useTmuxChat } from './support/tmux-chat.js';

const TOKEN = 'chat-reconnect-tui-token';
const { startChat: startTmuxChat, mkdir } = useTmuxChat();
const procs: ChildProcess[] = [];
const relays: CutProxy[] = [];

afterEach(async () => {
  // the window (and the chat in it) goes away in useTmuxChat's hook; then the relay and the server
  await Promise.all(relays.splice(0).map((r) => r.close()));
  await Promise.all(
    procs.splice(0).map(async (p) => {
      if (p.exitCode !== null || p.signalCode !== null) return;
      const exited = new Promise((r) => p.once('exit', r));
      p.kill('SIGKILL');
      await exited;
    }),
  );
});

/** `acp-kit serve` on a free port with the demo model streaming one word per `delayMs`. */
async function startServe(delayMs: number): Promise<{ url: string; port: number }> {
  const proc = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--token', TOKEN, '--model', 'demo'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: cliEnv({ ACP_KIT_DATA_DIR: mkdir('tui-rc-serve'), ACP_KIT_DEMO_DELAY_MS: String(delayMs) }),
  });
  procs.push(proc);
  let err = '';
  proc.stderr!.on('data', (c) => (err += c));
  return new Promise((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
    createInterface({ input: proc.stdout! }).once('line', (line) => resolve(JSON.parse(line)));
  });
}

/** Starts `acp-kit chat --agent-url <url>` in a 120x40 tmux window. */
const startChat = (url: string) => startTmuxChat({ ACP_KIT_AGENT_TOKEN: TOKEN }, ['--agent-url', url]);

const count = (s: string, sub: string) => s.split(sub).length - 1;

describe('acp-kit chat --agent-url across a dropped connection (tmux)', () => {
  it('has what it needs: tmux and the build', () => {
    expect(HAS_TMUX, 'tmux is not installed (apt-get install -y tmux)').toBe(true);
    expect(BUILT, 'run `npm run build` first').toBe(true);
  });

  it('the connection cut mid-turn: the chat reconnects and shows the whole answer once, then its end, and one reconnect line', async () => {
    // 40 ms per word: the demo help (about 120 words) streams for some seconds, the reconnect takes a fraction of one
    const serve = await startServe(40);
    const relay = await startCutProxy(serve.port);
    relays.push(relay);
    const t = startChat(relay.url.replace(/^http/, 'ws'));
    await t.waitScreen(/ready · Ctrl-D exits/, 'the chat to be ready');
    t.type('hello');
    // the first words of the answer are on screen, the turn is still running
    await t.waitScreen(/I'm the acp-kit/, 'the answer to start');
    const before = t.screen();
    expect(before).toMatch(/working…/);
    expect(before).not.toMatch(/— end_turn/);
    relay.severClients();
    await t.waitScreen(/— end_turn[\s\S]*ready · Ctrl-D exits/, 'the turn to end after the reconnect', 30_000);
    const s = t.screen();
    // one line says it reconnected, shown while the turn still ran (before its end)
    expect(count(s, 'reconnected')).toBe(1);
    expect(s).toMatch(
      /^the connection to ws:\/\/127\.0\.0\.1:\d+\/acp dropped; reconnected \(attempt 1\) and resumed the session$/m,
    );
    expect(s.indexOf('reconnected (attempt 1)')).toBeLessThan(s.indexOf('— end_turn'));
    // the whole answer, once: its first line, every list item, its last line; one end
    expect(count(s, "I'm the acp-kit demo model: an offline, rule-based stand-in, not an AI.")).toBe(1);
    for (const item of [
      'create notes.txt containing hello',
      'read README.md',
      'search TODO in src',
      'edit notes.txt replace hello with goodbye',
      'run ls -la',
    ]) {
      expect(s).toMatch(new RegExp(`^\\s+\\* ${item.replace(/[.*]/g, '\\$&')}$`, 'm'));
      expect(count(s, item)).toBe(1);
    }
    expect(count(s, 'Environment variables ACP_KIT_MODEL')).toBe(1);
    expect(count(s, '— end_turn (the agent finished)')).toBe(1);
    expect(count(s, '> hello')).toBe(1);
    // nothing of the drop is left in the status line
    expect(s).not.toMatch(/connection lost/);
    t.key('C-d');
    expect(await t.exitCode()).toBe('EXIT=0');
  }, 90_000);
});
