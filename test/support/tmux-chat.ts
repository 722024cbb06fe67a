// `acp-kit chat` in a real pseudo-terminal: a 120x40 tmux window on a tmux server of its own per
// chat (`kill-server` returns before the old server is gone, and a `new-session` on the same
// socket name can reach the dying one: "server exited unexpectedly"). Register `useTmuxChat()` in
// a test file; each chat's window (and the chat and agent in it) goes away after its test, also
// when the test failed.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, expect } from 'vitest';
import { BIN, tempDir, waitFor } from '../fixtures/cli-helpers.js';

export const HAS_TMUX = spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status === 0;

/** Single-quotes a word for the shell. */
export const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

export interface TmuxChat {
  cwd: string;
  /** The window's text, with 500 lines of scrollback. */
  screen(): string;
  waitScreen(re: RegExp, what: string, ms?: number): Promise<unknown>;
  key(...keys: string[]): void;
  /** Types `text` literally, then Enter. */
  type(text: string): void;
  /** The chat's exit code, once it exited. */
  exitCode(): Promise<unknown>;
}

/** Hooks for one test file; `mkdir` gives temp dirs removed after the file. */
export function useTmuxChat(): {
  startChat(env?: Record<string, string>, args?: string[]): TmuxChat;
  mkdir(prefix: string): string;
} {
  const sockets: string[] = [];
  const dirs: string[] = [];
  const mkdir = (prefix: string): string => {
    const d = tempDir(prefix);
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    if (!HAS_TMUX) return;
    for (const s of sockets.splice(0)) spawnSync('tmux', ['-L', s, 'kill-server'], { encoding: 'utf8' });
  });
  afterAll(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  /**
   * Starts `acp-kit chat --cwd <cwd> ...args` with `env` (demo words at once, its own data dir, no colour).
   */
  const startChat = (env: Record<string, string> = {}, args: string[] = []): TmuxChat => {
    const socket = `acp-kit-tui-${randomUUID().slice(0, 8)}`;
    sockets.push(socket);
    const tmux = (...a: string[]) => spawnSync('tmux', ['-L', socket, ...a], { encoding: 'utf8' });
    const cwd = mkdir('tui-cwd');
    const exitFile = join(mkdir('tui-exit'), 'code');
    const vars = Object.entries({ ACP_KIT_DEMO_DELAY_MS: '0', ACP_KIT_DATA_DIR: mkdir('tui-data'), ...env })
      .map(([k, v]) => `${k}=${q(v)}`)
      .join(' ');
    const cmd = `env -u CI -u FORCE_COLOR NO_COLOR=1 ${vars} ${q(process.execPath)} ${q(BIN)} chat --cwd ${q(cwd)} ${args.map(q).join(' ')}; echo "EXIT=$?" > ${q(exitFile)}; sleep 30`;
    const started = tmux('new-session', '-d', '-s', 'tui', '-x', '120', '-y', '40', '-c', cwd, cmd);
    expect(started.status, started.stderr).toBe(0);
    const screen = () => tmux('capture-pane', '-p', '-J', '-t', 'tui', '-S', '-500').stdout;
    // each look at the screen is a tmux process (about 2.5 ms of CPU here, plus the server's work):
    // every 50 ms for the first second (a screen that follows a key), then every 250 ms (a turn of
    // a real agent takes seconds; at 50 ms a 10 s wait cost 200 tmux processes, now 56)
    const waitScreen = (re: RegExp, what: string, ms = 20_000) =>
      waitFor(
        () => re.test(screen()),
        ms,
        () => `${what}; screen was:\n${screen().replace(/\n{3,}/g, '\n')}`,
        (elapsed) => (elapsed < 1000 ? 50 : 250),
      );
    const key = (...keys: string[]) => {
      tmux('send-keys', '-t', 'tui', ...keys);
    };
    const type = (text: string) => {
      key('-l', text);
      key('Enter');
    };
    const exitCode = () =>
      waitFor(() => existsSync(exitFile) && readFileSync(exitFile, 'utf8').trim(), 10_000, 'the chat to exit');
    return { cwd, screen, waitScreen, key, type, exitCode };
  };
  return { startChat, mkdir };
}
