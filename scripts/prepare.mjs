// npm's `prepare`: build dist/ unless it is already up to date. `npm ci` in a fresh clone builds;
// `npx acp-kit` in a built checkout (npm 11 installs the checkout into its cache and runs `prepare`
// there again) and `npm install` of an up-to-date checkout do not build a second time.
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { distIsStale } from './dist-stale.mjs';

const root = resolve(import.meta.dirname, '..');
if (process.env.ACP_KIT_FORCE_BUILD === '1' || distIsStale(root)) {
  execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', '--silent', 'build'], {
    cwd: root,
    stdio: 'inherit',
  });
}
