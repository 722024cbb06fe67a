import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { errnoCode, messageOf } from '@acp-kit/agent/internal';
import { startInspector, type InspectorHandle } from '@acp-kit/tools/inspector';
import { usageError } from '../errors.js';
import { captureReadFailure } from './captures.js';

/** Flags of `acp-kit inspect`. */
export interface InspectFlags {
  port?: string;
  open?: boolean;
  /** Open the page on the diff of the two captures (exactly two). */
  diff?: boolean;
}

/** Parses `--port`: an integer 0..65535 (0 = any free port). */
export function parsePort(value: string | undefined): number {
  if (value === undefined) return 0;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isInteger(n) || n > 65535)
    throw usageError(
      `--port: must be an integer from 0 to 65535, got ${JSON.stringify(value)}`,
      'Omit --port to use any free port.',
    );
  return n;
}

/**
 * Opens `url` in the desktop's browser. Best effort: a machine without one (CI, ssh) only gets
 * the printed URL, and the reason on stderr.
 */
export function openInBrowser(url: string, log: (line: string) => void): void {
  const [cmd, args]: [string, string[]] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(cmd, args, { stdio: 'ignore', detached: true });
    child.on('error', (e) => log(`--open: could not start ${cmd} (${e.message}); open the URL above yourself`));
    child.unref();
  } catch (e) {
    log(`--open: could not start ${cmd} (${messageOf(e)}); open the URL above yourself`);
  }
}

const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** `acp-kit inspect [CAPTURE...] [--port N] [--open] [--diff]`: serves the inspector until interrupted (exit 0). */
export async function inspectCommand(captures: string[], flags: InspectFlags): Promise<number> {
  const port = parsePort(flags.port);
  if (flags.diff && captures.length !== 2)
    throw usageError(
      `--diff: needs exactly two capture files, got ${captures.length}`,
      'Run acp-kit inspect A.ndjson B.ndjson --diff (or pick "compare with" in the page).',
    );
  let handle: InspectorHandle;
  try {
    handle = await startInspector({ captures: captures.map((c) => resolve(c)), port });
  } catch (e) {
    if (errnoCode(e) === 'EADDRINUSE')
      throw usageError(`--port ${port}: the port is in use`, 'Pick another port, or omit --port to use any free one.');
    const bad = captures.find((c) => messageOf(e).includes(resolve(c))) ?? captures[0] ?? '';
    captureReadFailure(bad, e);
  }
  // the page reads the pair from the fragment, which never leaves the browser
  const url = flags.diff ? `${handle.url}#diff=c0,c1` : handle.url;
  process.stdout.write(`acp-kit inspect: ${url}\n`);
  process.stdout.write(
    `${captures.length} capture${captures.length === 1 ? '' : 's'}; live proxies (acp-kit proxy --inspect) appear in the page while they run. Ctrl-C stops.\n`,
  );
  if (flags.open) openInBrowser(url, (l) => void process.stderr.write(`acp-kit inspect: ${l}\n`));
  // stopping the server is the normal end of an inspect run: exit 0
  await new Promise<void>((res) => {
    for (const s of SIGNALS) process.once(s, () => res());
  });
  await handle.close();
  return 0;
}
