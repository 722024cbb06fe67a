// Helpers of the inspector tests: a recorded session of the built-in agent, and the system Chromium.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { connect, type ClientConnection } from '../../src/client/index.js';
import { selectOption } from '../../src/client/services/permission-policy.js';

export const BIN = fileURLToPath(new URL('../../bin/acp-kit.js', import.meta.url));
export const CHROMIUM = '/usr/bin/chromium';
/** Screenshots of the test runs (git-ignored). */
export const SCREENSHOT_DIR = fileURLToPath(new URL('../../test-output/inspector/', import.meta.url));

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
 * The system Chromium, headless, with a fresh profile in `profileDir`. Fails (never skips) when
 * Chromium is missing: `.ci/run` installs Debian's `chromium`.
 */
export async function launchChromium(profileDir: string): Promise<BrowserContext> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (apt-get install chromium; .ci/run does it)`);
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1400, height: 860 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
