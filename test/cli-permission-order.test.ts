/**
 * The answer to a permission request is shown before the tool's output, in `chat` (tmux, built-in
 * agent) and in `run`. Before, chat appended the answer to the feed as a note after the tool call,
 * whose box (title, then output) grows in place: the answer ended up under the command's output.
 * Needs `npm run build` and tmux.
 */
import { describe, expect, it } from 'vitest';
import { cliEnv, runCli, tempDir, waitFor } from './fixtures/cli-helpers.js';
import { useTmuxChat } from './support/tmux-chat.js';

const { startChat } = useTmuxChat();

/** Index of the first line matching `re`, failing with the text when there is none. */
function lineOf(lines: string[], re: RegExp): number {
  const i = lines.findIndex((l) => re.test(l));
  expect(i, `no line matches ${re} in:\n${lines.join('\n')}`).toBeGreaterThanOrEqual(0);
  return i;
}

describe('permission answer before the tool output', () => {
  it('chat: the answer is under the tool call title, above the command output box', async () => {
    const t = startChat();
    await t.waitScreen(/ready · Ctrl-D exits/, 'the chat to be ready');
    t.type('run echo marker-out');
    await t.waitScreen(/Permission: .*echo marker-out/, 'the permission picker');
    t.key('Enter');
    await waitFor(
      () => t.screen().includes('— end_turn'),
      20_000,
      () => `the end of the turn; screen was:\n${t.screen()}`,
    );
    const lines = t.screen().split('\n');
    const title = lineOf(lines, /✓ Run `echo marker-out`/);
    const answer = lineOf(lines, /✓ approved \(allow_once\): .*echo marker-out/);
    const command = lineOf(lines, /│ \$ echo marker-out/);
    const output = lineOf(lines, /│ marker-out\s+│/);
    expect([title < answer, answer < command, command < output]).toEqual([true, true, true]);
    // once: not also as a note after the output
    expect(lines.filter((l) => /approved \(allow_once\)/.test(l))).toHaveLength(1);
  }, 60_000);

  it('run (v1 client terminal): the answer is printed before the command and its output', async () => {
    const r = await runCli(['run', '--protocol', '1', '--approve-all', 'run echo marker-out'], {
      cwd: tempDir('perm-order'),
      env: cliEnv({ NO_COLOR: '1' }),
    });
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    const answer = lineOf(lines, /permission: .*echo marker-out.*✓ allowed/);
    const command = lineOf(lines, /^ {4}\$ echo marker-out$/);
    const output = lineOf(lines, /^ {4}│ marker-out$/);
    expect([answer < command, command < output]).toEqual([true, true]);
  });
});
