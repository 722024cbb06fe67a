// Issue 25 item 6: the tree passes its linter and its formatter, checked in the suite that CI runs
// (`npm run lint`: eslint with typescript-eslint, eslint.config.js; `npm run format:check`: prettier,
// print width 120, .prettierrc.json). Each runs as a real process, as a developer runs it.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/pack.js';
import { runCommand } from './support/run-command.js';

// Each tool's own cache, keyed on every file's content (and, by each tool, on its config and
// version): a file unchanged since the last run is not parsed again, so a run after a small edit
// costs ~1.5 s of CPU instead of ~17 s (eslint) and ~20 s (prettier). The verdict is the same: the
// rules are per file (eslint.config.js has no type-aware rule) and a cached file is one that passed
// with this content. Under node_modules/, which git ignores; a fresh checkout runs cold.
const CACHE = join(ROOT, 'node_modules', '.cache', 'acp-kit-lint-format');
const cache = (name: string) => ['--cache', '--cache-strategy', 'content', '--cache-location', join(CACHE, name)];

// concurrent: each is one single-threaded process (cold: about 17-20 s of CPU each); side by side
// they take the time of the longer one instead of the sum
describe.concurrent('lint and format', () => {
  it('eslint reports nothing', async () => {
    const r = await runCommand('npm', ['run', '--silent', 'lint', '--', ...cache('eslint')], {
      cwd: ROOT,
      timeoutMs: 240_000,
    });
    expect(`${r.stdout}${r.stderr}`.trim(), 'run `npm run lint` and fix what it reports').toBe('');
    expect(r.status).toBe(0);
  }, 300_000);

  it('every source is formatted by prettier', async () => {
    const r = await runCommand('npm', ['run', '--silent', 'format:check', '--', ...cache('prettier')], {
      cwd: ROOT,
      timeoutMs: 240_000,
    });
    expect(r.status, `${r.stdout}${r.stderr}\nrun \`npm run format\``).toBe(0);
  }, 300_000);
});
