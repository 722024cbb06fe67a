/**
 * `acp-kit chat` driven through a real pseudo-terminal with tmux (needs `npm run build` and the
 * `tmux` binary; a failing check says so when either is missing): bare `acp-kit` starting the chat,
 * one full turn with a permission pick from the agent's own options, a turn cancelled with Ctrl-C,
 * then Ctrl-C twice to exit; `--resume` of that session.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, tempDir, waitFor } from './fixtures/cli-helpers.js';

const HAS_TMUX = spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status === 0;

const socket = `acp-kit-test-${randomUUID().slice(0, 8)}`;
const tmux = (...args: string[]) => spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

afterAll(() => {
  // our own private tmux server only
  if (HAS_TMUX) tmux('kill-server');
});

/**
 * `node bin/acp-kit.js` processes whose working directory is `dir`: the built-in agent runs in the
 * session cwd (the pane's shell, also there, is not one).
 */
function processesIn(dir: string): number[] {
  const pids: number[] = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const [exe, script] = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (readlinkSync(`/proc/${pid}/cwd`) === dir && exe === process.execPath && script === BIN)
        pids.push(Number(pid));
    } catch {
      /* gone or not ours */
    }
  }
  return pids;
}

/** Starts `node bin/acp-kit.js ...args` in a new tmux window (working directory `dir`); returns screen/keys helpers. */
function startInTmux(name: string, args: string[], data: string, dir = tempDir('chat-shell')) {
  const exitFile = join(tempDir('chat-exit'), 'code');
  // CI is unset for the chat: it is a real terminal here, whatever the test runner's environment
  const cmd =
    `env -u CI -u FORCE_COLOR NO_COLOR=1 ACP_KIT_DEMO_DELAY_MS=0 ACP_KIT_DATA_DIR=${q(data)} ` +
    `${q(process.execPath)} ${q(BIN)} ${args.map(q).join(' ')}; echo "EXIT=$?" > ${q(exitFile)}; sleep 30`;
  const started = tmux('new-session', '-d', '-s', name, '-x', '110', '-y', '45', '-c', dir, cmd);
  expect(started.status, started.stderr).toBe(0);
  const screen = () => tmux('capture-pane', '-p', '-J', '-t', name, '-S', '-300').stdout; // -J joins wrapped lines
  return {
    screen,
    key: (...keys: string[]) => tmux('send-keys', '-t', name, ...keys),
    waitScreen: (re: RegExp, what: string, ms = 15_000) =>
      waitFor(
        () => re.test(screen()),
        ms,
        () => `${what}; screen was:\n${screen().replace(/\n{3,}/g, '\n')}`,
      ),
    exitCode: () =>
      waitFor(() => existsSync(exitFile) && readFileSync(exitFile, 'utf8').trim(), 10_000, `${name} to exit`),
  };
}

it('can drive the chat: tmux is installed', () => {
  // the tests below need it; fail loudly instead of skipping silently
  expect(HAS_TMUX, 'tmux is not installed (apt-get install -y tmux)').toBe(true);
});

describe.runIf(HAS_TMUX)('acp-kit chat in a real terminal (tmux)', () => {
  const data = tempDir('chat-data');
  const chatCwd = tempDir('chat');
  let sessionId = '';

  // (one chat process for both: a chat costs more CPU to start than a turn; `chat --cwd` is the
  // resume test's, and Ctrl-D exiting 0 too)
  it('bare `acp-kit` in a terminal starts the chat in its working directory: runs a turn with a permission pick, cancels a turn with Ctrl-C, exits on a second Ctrl-C', async () => {
    const cwd = chatCwd;
    const { screen, key, waitScreen, exitCode } = startInTmux('chat', [], data, cwd);
    const type = (text: string) => {
      key('-l', text);
      key('Enter');
    };

    await waitScreen(/acp-kit chat · acp-kit coding agent/, 'the chat header');
    await waitScreen(/ready · Ctrl-D exits/, 'the chat to be ready');
    expect(screen()).toMatch(/acp-kit chat · acp-kit coding agent .* · protocol v2/);
    // the chat and its agent run here (what the check after the exit looks for)
    expect(processesIn(cwd)).toHaveLength(2);

    // one full turn; the picker lists the agent's own options, we pick the second one
    type('create notes.txt containing hello');
    await waitScreen(/Permission: .*notes\.txt/, 'the permission picker');
    const picker = screen();
    expect(picker).toMatch(/1\. Allow \(allow_once\)/);
    expect(picker).toMatch(/2\. Always allow \(allow_always\)/);
    expect(picker).toMatch(/reject_once/);
    expect(existsSync(join(cwd, 'notes.txt'))).toBe(false);
    key('Down');
    key('Enter');
    await waitScreen(/— end_turn/, 'the end of the turn');
    const afterTurn = screen();
    expect(afterTurn).toMatch(/approved \(allow_always\)/);
    expect(afterTurn).toMatch(/✓ Write notes\.txt \[edit\] completed/);
    expect(afterTurn).toContain('+hello');
    expect(afterTurn).toMatch(/\d+\/\d+k? tokens/); // usage line
    expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe('hello\n');
    // NO_COLOR: the pane holds no colour attributes (capture -e shows them as SGR sequences)
    expect(tmux('capture-pane', '-p', '-e', '-t', 'chat').stdout).not.toMatch(/\u001b\[[0-9;]*3[0-7]m/);

    // a turn cancelled with Ctrl-C while the agent waits for permission
    type('run sleep 30');
    await waitScreen(/Permission: .*Run `sleep 30`/, 'the second permission picker');
    key('C-c');
    await waitScreen(/— cancelled/, 'the cancelled stop reason');
    expect(screen()).toMatch(/cancelled: .*Run `sleep 30`/);
    // the transient "cancelling…" line is replaced by the outcome, not left in the transcript
    await waitScreen(/ready · Ctrl-D exits/, 'the chat to be ready after the cancel');
    expect(screen()).not.toContain('cancelling…');
    await waitScreen(/ready · Ctrl-D exits/, 'the chat to be ready again');

    // Ctrl-C twice while idle exits (130) and the agent is gone
    key('C-c');
    await waitScreen(/press Ctrl-C again to exit/, 'the exit prompt');
    key('C-c');
    expect(await exitCode()).toBe('EXIT=130');
    const resumeLine = /resume with: acp-kit chat --resume (sess_\w+)/.exec(screen());
    expect(resumeLine).not.toBeNull();
    sessionId = resumeLine![1]!;
    await waitFor(() => processesIn(cwd).length === 0, 5000, 'the agent process to be gone');
  }, 60_000);

  it('--resume <id> replays the earlier session; Ctrl-D exits 0', async () => {
    expect(sessionId).not.toBe('');
    const t = startInTmux('resume', ['chat', '--resume', sessionId, '--cwd', chatCwd], data);
    await t.waitScreen(/ready · Ctrl-D exits/, 'the resumed chat');
    const s = t.screen();
    expect(s).toContain(`session ${sessionId}`);
    expect(s).toContain('> create notes.txt containing hello');
    expect(s).toMatch(/Write notes\.txt/);
    expect(s).toContain(`resumed session ${sessionId}`);
    t.key('C-d');
    expect(await t.exitCode()).toBe('EXIT=0');
  }, 30_000);
});
