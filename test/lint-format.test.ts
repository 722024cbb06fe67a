// Issue 25 item 6: the tree passes its linter and its formatter, checked in the suite that CI runs
// (`npm run lint`: eslint with typescript-eslint, eslint.config.js; `npm run format:check`: prettier,
// print width 120, .prettierrc.json). Each runs as a real process, as a developer runs it.
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/pack.js';
import { runCommand } from './support/run-command.js';

// concurrent: each is one single-threaded process (about 15 s of CPU each); side by side they take
// the time of the longer one instead of the sum
describe.concurrent('lint and format', () => {
  it('eslint reports nothing', async () => {
    const r = await runCommand('npm', ['run', '--silent', 'lint'], { cwd: ROOT, timeoutMs: 240_000 });
    expect(`${r.stdout}${r.stderr}`.trim(), 'run `npm run lint` and fix what it reports').toBe('');
    expect(r.status).toBe(0);
  }, 300_000);

  it('every source is formatted by prettier', async () => {
    const r = await runCommand('npm', ['run', '--silent', 'format:check'], { cwd: ROOT, timeoutMs: 240_000 });
    expect(r.status, `${r.stdout}${r.stderr}\nrun \`npm run format\``).toBe(0);
  }, 300_000);
});
