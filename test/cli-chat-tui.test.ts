/**
 * `acp-kit chat` in a real pseudo-terminal (tmux, 120x40) with the built-in agent: Markdown shown
 * rendered, a prompt typed during a turn shown as queued and run after it, Esc in the permission
 * picker rejecting, the first Ctrl-C clearing the typed input, Ctrl-O expanding command output,
 * `/cancel-tool` and `/cancel-terminal` (v2 tool_call/cancel, terminal/cancel: asserted on screen
 * and on the capture of a recording proxy in front of the agent).
 * Needs `npm run build` and tmux (fails, not skips, without tmux).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { readCapture } from '../packages/tools/src/captures/capture.js';
import { BIN, BUILT, FIXTURES, waitFor } from './fixtures/cli-helpers.js';
import { HAS_TMUX, useTmuxChat, type TmuxChat } from './support/tmux-chat.js';

const { startChat, mkdir } = useTmuxChat();

describe('acp-kit chat TUI (tmux)', () => {
  it('has what it needs: tmux and the build', () => {
    expect(HAS_TMUX, 'tmux is not installed (apt-get install -y tmux)').toBe(true);
    expect(BUILT, 'run `npm run build` first').toBe(true);
  });

  // A chat of its own per test (built-in agent, no delays): a failing test leaves nothing behind for
  // the next one. Each waits for the end of its own turns.
  describe('one chat per test', () => {
    let t: TmuxChat;
    /** How often `text` occurs on the screen (with scrollback). */
    const count = (text: string) => t.screen().split(text).length - 1;
    /** Waits for the `n`th end of a turn. */
    const turnEnded = (n: number) =>
      waitFor(
        () => count('— end_turn') >= n,
        20_000,
        () => `the end of turn ${n}; screen was:\n${t.screen()}`,
      );

    beforeEach(async () => {
      t = startChat();
      await t.waitScreen(/ready · Ctrl-D exits/, 'the chat to be ready');
    });

    it("shows the agent's Markdown rendered: bold, inline code and list items without their syntax", async () => {
      t.type('hello');
      await turnEnded(1);
      const s = t.screen();
      // the demo model's help text is Markdown: **demo model**, `code`, "- " list items
      expect(s).toContain("I'm the acp-kit demo model: an offline, rule-based stand-in, not an AI.");
      expect(s).toMatch(/^\s+\* create notes\.txt containing hello$/m);
      expect(s).toMatch(/^\s+\* run ls -la$/m);
      expect(s).not.toContain('**demo model**');
      expect(s).not.toContain('`read README.md`');
      // a blank line separates the turn's prompt from what came before it
      expect(s).toMatch(/\n\n> hello\n/);
    }, 60_000);

    it('thoughts are shown as rendered Markdown (inline code without its backticks)', async () => {
      t.type('create notes.txt containing hello');
      await t.waitScreen(/Permission: .*notes\.txt[\s\S]*Esc reject/, 'the permission picker');
      // the demo model thinks "The user wants me to create `notes.txt`. ..."; shown without the backticks
      expect(t.screen()).toMatch(/The user wants me to create notes\.txt/);
      expect(t.screen()).not.toMatch(/The user wants[^\n]*`/);
      t.key('Escape');
      await turnEnded(1);
    }, 60_000);

    it('Esc in the permission picker rejects the request', async () => {
      t.type('create notes.txt containing hello');
      await t.waitScreen(/Permission: .*notes\.txt[\s\S]*Esc reject/, 'the permission picker');
      t.key('Escape');
      await turnEnded(1);
      expect(t.screen()).toMatch(/✗ rejected \(reject_once\): .*notes\.txt/);
      expect(existsSync(join(t.cwd, 'notes.txt'))).toBe(false);
    }, 60_000);

    it('command output shows its last lines at full width; Ctrl-O shows all of it', async () => {
      t.type('run seq 1 30');
      await t.waitScreen(/Permission: .*seq 1 30/, 'the permission picker');
      t.key('Enter');
      await turnEnded(1);
      const s = t.screen();
      expect(s).toMatch(/… 22 earlier lines · Ctrl-O shows all/);
      expect(s).not.toMatch(/^│ 5\s+│$/m);
      // the output box spans the whole 120 columns
      expect(s).toMatch(/^┌─{118}┐$/m);
      t.key('C-o');
      await t.waitScreen(/full output of seq 1 30:/, 'the full output');
      const full = t.screen().slice(t.screen().indexOf('full output of seq 1 30:'));
      for (const n of [1, 5, 22, 30]) expect(full).toMatch(new RegExp(`^│ ${n}\\s+│$`, 'm'));
    }, 60_000);

    it("the / menu lists /exit and /quit after the agent's commands; Enter completes /qu, a second Enter exits 0", async () => {
      t.key('-l', '/');
      await t.waitScreen(/\/exit — leave the chat/, 'the / menu with /exit');
      expect(t.screen()).toMatch(/\/quit — leave the chat/);
      t.key('-l', 'qu');
      await t.waitScreen(/│ > \/qu/, 'the typed /qu');
      t.key('Enter');
      await t.waitScreen(/│ > \/quit /, 'the completed /quit');
      t.key('Enter');
      expect(await t.exitCode()).toBe('EXIT=0');
    }, 60_000);

    it('the first Ctrl-C clears the typed input (and arms exit); typing goes on normally', async () => {
      expect(t.screen()).not.toContain('press Ctrl-C again to exit');
      const hellos = count('> hello');
      t.key('-l', 'half a thought');
      await t.waitScreen(/│ > half a thought/, 'the typed text');
      t.key('C-c');
      await t.waitScreen(/press Ctrl-C again to exit/, 'the exit prompt');
      expect(t.screen()).not.toContain('half a thought');
      t.type('hello');
      await turnEnded(1);
      // the turn is the new text's: a new "> hello" before its end
      expect(count('> hello')).toBe(hellos + 1);
      const s = t.screen();
      expect(s.slice(s.lastIndexOf('> hello'))).toContain('— end_turn');
      expect(s).not.toContain('half a thought');
      t.key('C-d');
      expect(await t.exitCode()).toBe('EXIT=0');
    }, 60_000);
  });

  // v2 per-entity cancels: the built-in agent (`acp-kit agent --model demo`, behind a recording
  // proxy) advertises capabilities.cancel on a running call and on its display terminal. `sleep 30`
  // outlives every wait below: the turn can only end in time because the cancel reached the agent.
  describe('/cancel-tool and /cancel-terminal (v2)', () => {
    const recordedChat = (): { t: TmuxChat; capture: string } => {
      const capture = join(mkdir('tui-capture'), 'chat.ndjson');
      const agent = [process.execPath, BIN, 'proxy', '--record', capture, '--', process.execPath, BIN, 'agent'];
      const t = startChat({}, [
        '--protocol',
        '2',
        '--agent',
        [...agent, '--model', 'demo', '--mode', 'auto'].join(' '),
      ]);
      return { t, capture };
    };
    /** After the chat exited (the proxy flushed its capture): the request for `method` and its answer. */
    const exchange = async (capture: string, method: string) => {
      const frames = (await readCapture(capture)).frames.map((f) => ({
        dir: f.dir,
        msg: JSON.parse(f.raw) as { id?: unknown; method?: string; params?: unknown; result?: unknown },
      }));
      const ask = frames.filter((f) => f.dir === 'editor->agent' && f.msg.method === method);
      const answer = frames.find((f) => f.dir === 'agent->editor' && ask[0] && f.msg.id === ask[0].msg.id);
      return { asks: ask.map((f) => f.msg.params), result: answer?.msg.result };
    };
    const endedOnce = (t: TmuxChat) =>
      t.waitScreen(/— end_turn[\s\S]*ready · Ctrl-D exits/, 'the turn to end (without waiting for sleep 30)');

    it('/cancel-tool (tool_call/cancel): offered only while a call advertises cancel; the call ends cancelled, the turn goes on', async () => {
      const { t, capture } = recordedChat();
      await t.waitScreen(/ready · Ctrl-D exits/, 'the chat to be ready');
      // nothing running: the / menu does not offer it, and typed anyway it says why
      t.key('-l', '/cancel-tool');
      await t.waitScreen(/│ > \/cancel-tool/, 'the typed command');
      expect(t.screen()).not.toContain('— cancel one running tool call');
      t.key('Enter');
      await t.waitScreen(/\/cancel-tool: no running tool call advertises capabilities\.cancel/, 'nothing to cancel');
      t.type('run sleep 30; echo never');
      const running = /in_progress · \/cancel-tool (\S+)/;
      await t.waitScreen(running, 'the running call offering /cancel-tool');
      const id = running.exec(t.screen())?.[1] ?? '';
      t.key('-l', '/cancel-t');
      await t.waitScreen(/\/cancel-tool tool call id .* — cancel one running tool call/, 'the / menu offering it');
      t.type('ool nope');
      await t.waitScreen(/"nope" is not one of them; can cancel: \S+ \(/, 'the unknown id listing the valid one');
      t.type('/cancel-tool');
      await t.waitScreen(new RegExp(`cancelled tool call ${id} \\(.*\\); the turn goes on`), 'the cancel note');
      await endedOnce(t);
      const s = t.screen();
      expect(s).toMatch(/Run `sleep 30; echo never` \[execute\] cancelled$/m);
      expect(s).not.toMatch(/^│ never/m);
      // final: no longer offered
      expect(s).not.toContain(`/cancel-tool ${id}`);
      t.key('C-d');
      expect(await t.exitCode()).toBe('EXIT=0');
      // one request on the wire (the unknown id never left the chat), answered {}
      const { asks, result } = await exchange(capture, 'tool_call/cancel');
      expect(asks).toEqual([{ sessionId: expect.stringMatching(/^sess_/), toolCallId: id }]);
      expect(result).toEqual({});
    }, 60_000);

    it('/cancel-terminal <id> (terminal/cancel): stops the command, the terminal shows the signal, the turn goes on', async () => {
      const { t, capture } = recordedChat();
      await t.waitScreen(/ready · Ctrl-D exits/, 'the chat to be ready');
      t.type('run sleep 30; echo never');
      const running = /\$ sleep 30; echo never · \/cancel-terminal (\S+)/;
      await t.waitScreen(running, 'the running terminal offering /cancel-terminal');
      const id = running.exec(t.screen())?.[1] ?? '';
      t.type(`/cancel-terminal ${id}`);
      await t.waitScreen(new RegExp(`cancelled terminal ${id} \\(\\$ sleep 30; echo never\\)`), 'the cancel note');
      await endedOnce(t);
      const s = t.screen();
      expect(s).toContain('killed by SIGTERM');
      expect(s).not.toContain(`· /cancel-terminal ${id}`);
      expect(s).not.toMatch(/^│ never/m);
      t.key('C-d');
      expect(await t.exitCode()).toBe('EXIT=0');
      const { asks, result } = await exchange(capture, 'terminal/cancel');
      expect(asks).toEqual([{ sessionId: expect.stringMatching(/^sess_/), terminalId: id }]);
      expect(result).toEqual({});
    }, 60_000);
  });

  it('Esc takes back the latest queued message: it never runs, the one before it does', async () => {
    const t = startChat({ ACP_KIT_DEMO_DELAY_MS: '30' });
    await t.waitScreen(/ready · Ctrl-D exits/, 'the chat to be ready');
    t.type('hello');
    await t.waitScreen(/working… \(\d+s/, 'the spinner with the elapsed time');
    t.type('list files');
    // one line at a time: keys typed together reach the input as one chunk (one prompt)
    await t.waitScreen(/queued: list files {2}\(Esc removes\)/, 'the first queued');
    t.type('read README.md');
    await t.waitScreen(/queued: list files\n\s*queued: read README\.md {2}\(Esc removes\)/, 'both queued');
    t.key('Escape');
    await t.waitScreen(/removed queued message: read README\.md/, 'the removal note');
    // the queue empties in order and "ready" shows only once nothing is queued or running
    await t.waitScreen(/> list files[\s\S]*— end_turn[\s\S]*ready · Ctrl-D exits/, 'the kept prompt to run', 40_000);
    expect(t.screen()).not.toContain('> read README.md');
    t.key('C-d');
    expect(await t.exitCode()).toBe('EXIT=0');
  }, 90_000);

  it('Enter during a running turn shows the prompt as queued and runs it after the turn', async () => {
    // a slow stream (30 ms per word) keeps the first turn running while the second prompt is typed
    const t = startChat({ ACP_KIT_DEMO_DELAY_MS: '30' });
    await t.waitScreen(/ready · Ctrl-D exits/, 'the chat to be ready');
    t.type('hello');
    await t.waitScreen(/working… \(\d+s/, 'the spinner with the elapsed time');
    t.type('list files');
    await t.waitScreen(/queued: list files/, 'the queued prompt');
    await t.waitScreen(
      /> list files[\s\S]*— end_turn[\s\S]*ready · Ctrl-D exits/,
      'the queued prompt to run after the first turn',
      40_000,
    );
    const s = t.screen();
    // in order: the first turn ends, then the queued prompt starts its own turn
    expect(s.indexOf('> hello')).toBeLessThan(s.indexOf('— end_turn'));
    expect(s.indexOf('— end_turn')).toBeLessThan(s.indexOf('> list files'));
    // a blank line between the turns
    expect(s).toMatch(/— end_turn \(the agent finished\)\n\n> list files\n/);
    expect(s).not.toMatch(/queued: list files[\s\S]*ready · Ctrl-D exits\s*$/);
    t.key('C-d');
    expect(await t.exitCode()).toBe('EXIT=0');
  }, 90_000);

  it('shows the session title the agent sends (session_info_update) in the status line', async () => {
    const t = startChat({}, ['--agent', `${process.execPath} ${join(FIXTURES, 'agent-scripted.mjs')}`]);
    await t.waitScreen(/ready · Ctrl-D exits/, 'the chat to be ready');
    expect(t.screen()).not.toContain('Fix the login bug');
    // the scripted agent's `title <text>` sends session_info_update { title: <text> }
    t.type('title Fix the login bug');
    await t.waitScreen(
      /— end_turn[\s\S]*ready · Ctrl-D exits · \/ commands +Fix the login bug/,
      'the title in the status line',
    );
    t.key('C-d');
    expect(await t.exitCode()).toBe('EXIT=0');
  }, 60_000);
});
