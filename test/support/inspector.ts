// Helpers of the inspector tests: a recorded session of the built-in agent, and the system Chromium.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { ChildProcess } from 'node:child_process';
// only the files that launch a browser load playwright-core (~1 s of CPU at import): see launchChromium
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { InspectorHandle } from '../../src/inspector/index.js';
import { connect, type ClientConnection } from '../../src/client/index.js';
import { selectOption } from '../../src/client/services/permission-policy.js';
import { packageVersion } from '../../src/cli/version.js';
import { CaptureWriter } from '../../src/proxy/capture.js';
import { startProxy } from '../../src/proxy/proxy.js';
import { StreamTransport } from '../../src/rpc/stream-transport.js';
import { tempDir } from './temp.js';

export const BIN = fileURLToPath(new URL('../../bin/acp-kit.js', import.meta.url));
export const CHROMIUM = '/usr/bin/chromium';
/** Screenshots of the test runs (git-ignored), taken only with `ACP_KIT_SCREENSHOTS=1`: see {@link screenshot}. */
export const SCREENSHOT_DIR = fileURLToPath(new URL('../../test-output/inspector/', import.meta.url));

/**
 * Saves a screenshot of `page` as `<SCREENSHOT_DIR>/<name>` when `ACP_KIT_SCREENSHOTS=1` (for a human
 * looking at the pages). Nothing asserts on them, and rendering and encoding them was a good share of
 * Chromium's CPU in a test run, so plain test runs skip them.
 */
export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  if (process.env.ACP_KIT_SCREENSHOTS !== '1') return;
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, name), ...options });
}

/** Allows every permission request with the first allow option (the demo model asks before writing). */
export const allowAll = async (request: Parameters<typeof selectOption>[0]) => selectOption(request, 'allow');

/**
 * A client connected to `acp-kit proxy <proxyArgs> -- acp-kit agent` (the built-in agent with its
 * demo model), its data dir under `dir`.
 */
export async function connectThroughProxy(dir: string, protocol: 1 | 2, proxyArgs: string[]): Promise<ClientConnection> {
  return connect({
    command: process.execPath,
    args: [BIN, 'proxy', ...proxyArgs, '--', process.execPath, BIN, 'agent'],
    env: { ...process.env, ACP_KIT_DATA_DIR: join(dir, 'data') },
    protocol,
    permissionPolicy: allowAll,
  });
}

/**
 * One prompt of the built-in agent (`acp-kit agent`, a real process, its data dir under `dir`)
 * recorded by the proxy as `acp-kit proxy --record` does it: `startProxy` with a `CaptureWriter`, here
 * in this process (the tests that use it read the capture; the proxy's process is covered by the
 * proxy-* tests, and it cost a Node start-up per capture). Resolves with the capture's path once the
 * turn ended end_turn, the agent exited at stdin EOF and the capture was closed. The connection is
 * pushed onto `conns` first, so the caller's afterEach closes it also on failure.
 */
export async function recordTurn(dir: string, protocol: 1 | 2, prompt: string, conns: ClientConnection[]): Promise<string> {
  const cap = join(dir, 'cap.ndjson');
  const agent = [process.execPath, BIN, 'agent'];
  const recorder = new CaptureWriter(cap, { acpKit: packageVersion(), agent });
  const toProxy = new PassThrough();
  const fromProxy = new PassThrough();
  const proxy = startProxy({
    command: agent[0]!,
    args: agent.slice(1),
    env: { ...process.env, ACP_KIT_DATA_DIR: join(dir, 'data') },
    editorIn: toProxy,
    editorOut: fromProxy,
    agentStderr: new PassThrough().resume(),
    recorder,
    log: () => undefined,
  });
  try {
    const conn = await connect({ transport: new StreamTransport(fromProxy, toProxy), protocol, permissionPolicy: allowAll });
    conns.push(conn);
    const s = await conn.newSession({ cwd: dir });
    const r = await s.prompt(prompt);
    if (r.stopReason !== 'end_turn') throw new Error(`the recorded turn ended ${r.stopReason}, not end_turn`);
    await conn.close();
    toProxy.end();
    const { exitCode } = await proxy.done;
    if (exitCode !== 0) throw new Error(`the recorded agent exited ${exitCode}, not 0`);
    return cap;
  } finally {
    // ends the agent's process group if the turn failed (resolves at once when it already exited)
    await proxy.stop();
    recorder.close();
  }
}

/**
 * The system Chromium, headless, with a fresh profile in `profileDir`. Fails (never skips) when
 * Chromium is missing: `.ci/run` installs Debian's `chromium`.
 */
export async function launchChromium(profileDir: string): Promise<BrowserContext> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (apt-get install chromium; .ci/run does it)`);
  const { chromium } = await import('playwright-core');
  return chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1400, height: 860 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/**
 * One headless Chromium for the calling test file (launched before its tests, closed after them) and
 * the things its tests open, closed after each test, also on failure. Call it at the top of the file.
 */
export function useBrowser(profilePrefix: string): {
  readonly ctx: BrowserContext;
  conns: ClientConnection[];
  children: ChildProcess[];
  pages: Page[];
  servers: InspectorHandle[];
  /** Opens `url` in a new page (closed after the test) and collects what the browser reports as errors (CSP violations included). */
  open(url: string): Promise<{ page: Page; errors: string[] }>;
} {
  let ctx: BrowserContext | undefined;
  const state = { conns: [] as ClientConnection[], children: [] as ChildProcess[], pages: [] as Page[], servers: [] as InspectorHandle[] };
  beforeAll(async () => {
    ctx = await launchChromium(tempDir(profilePrefix));
  });
  afterAll(async () => {
    await ctx?.close();
  });
  afterEach(async () => {
    for (const p of state.pages.splice(0)) await p.close().catch(() => undefined);
    for (const h of state.servers.splice(0)) await h.close();
    for (const c of state.conns.splice(0)) await c.close().catch(() => undefined);
    for (const c of state.children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  });
  return {
    ...state,
    async open(url: string) {
      if (!ctx) throw new Error('the browser is not launched yet (use open inside a test)');
      const page = await ctx.newPage();
      state.pages.push(page);
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      await page.goto(url);
      return { page, errors };
    },
    get ctx(): BrowserContext {
      if (!ctx) throw new Error('the browser is not launched yet (use ctx inside a test)');
      return ctx;
    },
  };
}
