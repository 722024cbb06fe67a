// Helpers of the inspector tests: a recorded session of the built-in agent, and the system Chromium.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildProcess } from 'node:child_process';
// only the files that launch a browser load playwright-core (~1 s of CPU at import): see launchChromium
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { InspectorHandle } from '../../packages/tools/src/inspector/index.js';
import { connect, type ClientConnection } from '../../packages/client/src/index.js';
import { allowAll } from './record-turn.js';
import { tempDir } from './temp.js';

export { allowAll, recordTurn } from './record-turn.js';

export const BIN = fileURLToPath(new URL('../../bin/acp-kit.js', import.meta.url));
export const CHROMIUM = '/usr/bin/chromium';
/** Screenshots of the test runs (git-ignored), taken only with `ACP_KIT_SCREENSHOTS=1`: see {@link screenshot}. */
export const SCREENSHOT_DIR = fileURLToPath(new URL('../../test-output/inspector/', import.meta.url));

/**
 * Saves a screenshot of `page` as `<SCREENSHOT_DIR>/<name>` when `ACP_KIT_SCREENSHOTS=1` (for a human
 * looking at the pages). Nothing asserts on them, and rendering and PNG-encoding them (one full-page)
 * is Chromium CPU in every run, so plain test runs skip them.
 */
export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  if (process.env.ACP_KIT_SCREENSHOTS !== '1') return;
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, name), ...options });
}

/**
 * A client connected to `acp-kit proxy <proxyArgs> -- acp-kit agent` (the built-in agent with its
 * demo model), its data dir under `dir`.
 */
export async function connectThroughProxy(
  dir: string,
  protocol: 1 | 2,
  proxyArgs: string[],
): Promise<ClientConnection> {
  return connect({
    command: process.execPath,
    args: [BIN, 'proxy', ...proxyArgs, '--', process.execPath, BIN, 'agent'],
    env: { ...process.env, ACP_KIT_DATA_DIR: join(dir, 'data') },
    protocol,
    permissionPolicy: allowAll,
  });
}

/**
 * The system Chromium, headless, with a fresh profile in `profileDir`. Fails (never skips) when
 * Chromium is missing: `.ci/run` installs Debian's `chromium`.
 */
export async function launchChromium(profileDir: string): Promise<BrowserContext> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `${CHROMIUM} is missing: install Debian's chromium package (apt-get install chromium; .ci/run does it)`,
    );
  const { chromium } = await import('playwright-core');
  return chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1400, height: 860 },
    // one renderer, no site isolation: the pages are all one loopback origin, and a renderer process
    // per frame/site cost ~1.5 s of CPU per file (measured: 16.3 -> 14.2 s for inspector-chromium)
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--renderer-process-limit=1',
      '--disable-site-isolation-trials',
      '--disable-features=site-per-process,IsolateOrigins',
    ],
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
  const state = {
    conns: [] as ClientConnection[],
    children: [] as ChildProcess[],
    pages: [] as Page[],
    servers: [] as InspectorHandle[],
  };
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
