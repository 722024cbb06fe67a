/**
 * The inspector's views in a real headless Chromium (Debian's /usr/bin/chromium via playwright-core),
 * on captures of the built-in agent recorded through `acp-kit proxy --record`: the diff of two runs
 * with different prompts (`acp-kit inspect A B --diff`), the latency tab, the replay scrubber, and
 * the timeline's method filter and full-text search. One browser for the file. Needs `npm run build`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ClientConnection } from '../src/client/index.js';
import { startInspector, type InspectorHandle } from '../src/inspector/index.js';
import { readCapture } from '../src/proxy/index.js';
import { BIN, SCREENSHOT_DIR, recordTurn, useBrowser } from './support/inspector.js';
import { waitUntil } from './support/process.js';
import { tempDir } from './support/temp.js';

const browser = useBrowser('acp-inspector-views-chromium-');
const { conns, children, pages, servers } = browser;

/** A v2 turn of the built-in agent (demo model), recorded by the proxy. */
const record = (prompt: string): Promise<string> => recordTurn(tempDir('acp-inspector-views-'), 2, prompt, conns);

const open = (url: string) => browser.open(url);

const PROMPT_A = 'create notes.txt containing hello inspector';
const PROMPT_B = 'create other.txt containing goodbye inspector';
let capA: string;
let capB: string;

describe('inspector views in Chromium', () => {
  beforeAll(async () => {
    [capA, capB] = await Promise.all([record(PROMPT_A), record(PROMPT_B)]);
  });

  it('acp-kit inspect A B --diff: the prompts differ field by field, side by side; versions and latency deltas are shown; the page can also pick the pair', async () => {
    const dir = tempDir('acp-inspector-diff-');
    const child = spawn(process.execPath, [BIN, 'inspect', capA, capB, '--diff'], { env: { ...process.env, ACP_KIT_DATA_DIR: join(dir, 'data') }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
    await waitUntil(() => /http:\/\/127\.0\.0\.1:\d+\/\S+\/#diff=c0,c1/.test(out), 20_000, 'acp-kit inspect printed the diff URL');
    const url = out.match(/http:\/\/127\.0\.0\.1:\d+\/\S+\/#diff=c0,c1/)![0];
    const { page, errors } = await open(url);
    const view = page.getByTestId('diff-view');
    await view.waitFor();
    await expect.poll(() => page.getByTestId('diff-summary').textContent(), { timeout: 20_000 }).toContain('different');

    // the prompt request: aligned, its text differs; A's value and B's value side by side
    const promptField = page.getByTestId('diff-field').filter({ hasText: 'params.prompt[0].text' }).first();
    await promptField.waitFor();
    expect(await promptField.locator('td.del').textContent()).toBe(JSON.stringify(PROMPT_A));
    expect(await promptField.locator('td.add').textContent()).toBe(JSON.stringify(PROMPT_B));
    const entry = page.getByTestId('diff-changed').filter({ has: promptField });
    expect(await entry.locator('.diff-pair').first().textContent()).toMatch(/A #\d+ E→A request session\/prompt.*B #\d+ E→A request session\/prompt/);
    // both frames, the differing field highlighted in each
    await entry.getByRole('button', { name: 'show both frames' }).click();
    const marked = entry.locator('[data-changed="params.prompt[0].text"]');
    await expect.poll(() => marked.count()).toBe(2);
    // versions (both v2, equal) and a latency row per method with both sides
    expect(await page.getByTestId('diff-versions').textContent()).toContain('protocol version negotiated22');
    const latency = page.getByTestId('diff-latency').locator('tr', { hasText: 'session/prompt' });
    expect(await latency.locator('td').nth(2).textContent()).toMatch(/^1 · /);
    expect(await latency.locator('td').nth(3).textContent()).toMatch(/^1 · /);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'diff.png'), fullPage: true });

    // the same pair picked in the page: close, then compare again from the select
    await view.getByRole('button', { name: 'close diff' }).click();
    await expect.poll(() => view.count()).toBe(0);
    await page.getByTestId('diff-select').selectOption('c1');
    await page.getByTestId('diff-field').filter({ hasText: 'params.prompt[0].text' }).first().waitFor();
    expect(errors).toEqual([]);
  });

  it('acp-kit inspect --diff with other than two captures is a usage error naming the flag', async () => {
    const child = spawn(process.execPath, [BIN, 'inspect', capA, '--diff'], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let err = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    expect(code).not.toBe(0);
    expect(err).toContain('--diff: needs exactly two capture files, got 1');
  });

  it('a capture compared with itself is equal', async () => {
    const h = await startInspector({ captures: [capA, capA], listLive: false });
    servers.push(h);
    const { page, errors } = await open(`${h.url}#diff=c0,c1`);
    await expect.poll(() => page.getByTestId('diff-summary').textContent(), { timeout: 20_000 }).toContain('equal');
    expect(await page.getByTestId('diff-changed').count()).toBe(0);
    expect(await page.getByTestId('diff-added').count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('latency tab, replay scrubber, method filter and search on one capture', async () => {
    const { frames } = await readCapture(capA);
    const h = await startInspector({ captures: [capA], listLive: false });
    servers.push(h);
    const { page, errors } = await open(h.url);
    const count = page.getByTestId('row-count');
    await expect.poll(() => count.textContent()).toContain(`· ${frames.length} frames`);
    const totalRows = Number((await count.textContent())!.split(' ')[0]);

    // latency: one row per method, session/prompt answered once
    await page.getByRole('tab', { name: 'Latency' }).click();
    const promptRow = page.getByTestId('latency-table').locator('tbody tr', { hasText: 'session/prompt' });
    await promptRow.waitFor();
    expect(await promptRow.locator('td').nth(0).textContent()).toBe('session/prompt');
    expect(await promptRow.locator('td').nth(1).textContent()).toBe('1');
    expect(Number(await promptRow.locator('td').nth(2).textContent())).toBeGreaterThan(0);

    // replay: the whole session, then the session as it was when the tool call had just started
    await page.getByRole('tab', { name: 'Session' }).click();
    const items = page.locator('[data-testid^=item-]');
    const tool = page.getByTestId('item-tool_call').first();
    await expect.poll(() => tool.getByTestId('tool-status').textContent()).toBe('completed');
    const all = await items.count();
    const at = frames.findIndex((f) => f.raw.includes('"tool_call')) + 1;
    expect(at).toBeGreaterThan(0);
    await page.getByTestId('scrubber').evaluate((el, v) => {
      const input = el as HTMLInputElement;
      input.value = String(v);
      input.dispatchEvent(new Event('input', { bubbles: true }));
    }, at);
    await expect.poll(() => page.getByTestId('scrub-label').textContent()).toBe(`frame ${at} / ${frames.length}`);
    // what the server rebuilds up to that frame is what the page shows: fewer items, the tool call not done
    const { sessions } = (await page.evaluate(async (p) => (await fetch(p)).json(), `api/s/c0/sessions?upto=${frames[at - 1]!.seq}`)) as { sessions: Array<{ items: unknown[] }> };
    const expected = sessions[0]!.items.length;
    expect(expected).toBeLessThan(all);
    await expect.poll(() => items.count()).toBe(expected);
    expect(await tool.getByTestId('tool-status').textContent()).not.toBe('completed');

    // method filter: only the prompt request is left
    await page.getByTestId('method-filter').selectOption('session/prompt');
    await expect.poll(() => count.textContent()).toBe(`1 rows · ${frames.length} frames`);
    const rows = page.getByTestId('timeline-row');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('session/prompt');
    await page.getByTestId('method-filter').selectOption('');
    await expect.poll(() => count.textContent()).toBe(`${totalRows} rows · ${frames.length} frames`);

    // search: the frames whose text holds the written file's content
    const withText = frames.filter((f) => f.raw.toLowerCase().includes('hello inspector'));
    await page.getByTestId('search').fill('hello inspector');
    await expect.poll(async () => Number((await count.textContent())!.split(' ')[0])).toBeLessThan(totalRows);
    const shown = await rows.evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-seq'))));
    expect(shown.length).toBeGreaterThan(0);
    for (const seq of shown) expect(withText.map((f) => f.seq)).toContain(seq);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'filters-search.png') });
    expect(errors).toEqual([]);
  });
});
