/**
 * The inspector page in a real headless Chromium (Debian's /usr/bin/chromium via playwright-core):
 * a live proxied session of the built-in agent, a saved capture with a schema violation. One
 * browser for the file. Needs `npm run build` (the page bundle, bin/acp-kit.js).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ClientConnection } from '../src/client/index.js';
import { startInspector, type InspectorHandle, type LiveRegistration, type SessionView } from '../src/inspector/index.js';
import { BIN, SCREENSHOT_DIR, connectThroughProxy, useBrowser } from './support/inspector.js';
import { waitUntil } from './support/process.js';
import { tempDir } from './support/temp.js';

const violationCapture = fileURLToPath(new URL('./fixtures/proxy-captures/schema-prompt-response.ndjson', import.meta.url));

const browser = useBrowser('acp-inspector-chromium-');
const { conns, children, pages, servers } = browser;

const open = (url: string) => browser.open(url);

const registrations = (dataDir: string): LiveRegistration[] => {
  try {
    return readdirSync(join(dataDir, 'inspect')).filter((n) => n.endsWith('.json')).map((n) => JSON.parse(readFileSync(join(dataDir, 'inspect', n), 'utf8')) as LiveRegistration);
  } catch {
    return [];
  }
};

describe('acp-kit inspect in Chromium', () => {
  it('live: proxy --inspect shows chunks as they arrive; a tool call in the session view selects its frames, and a frame selects its item; several live proxies are listed', async () => {
    const dir = tempDir('acp-inspector-live-');
    const data = join(dir, 'data');
    const a = await connectThroughProxy(dir, 2, ['--inspect', '--log', join(dir, 'a.log')]);
    conns.push(a);
    const b = await connectThroughProxy(dir, 1, ['--inspect', '--log', join(dir, 'b.log')]);
    conns.push(b);
    const session = await a.newSession({ cwd: dir });
    await waitUntil(() => registrations(data).length === 2, 20_000, 'both proxies registered in <data dir>/inspect');
    const regs = registrations(data);
    const regA = regs.find((r) => r.agent.includes('agent') && readFileSync(join(dir, 'a.log'), 'utf8').includes(r.url))!;
    expect(regA).toBeDefined();
    const { page, errors } = await open(regA.url);
    const sourceId = `live-${regA.pid}`;
    // one page lists every live proxy
    const select = page.getByTestId('source-select');
    await expect.poll(async () => (await select.locator('option').allTextContents()).filter((t) => t.startsWith('live:')).length, { timeout: 20_000 }).toBe(2);
    expect(await select.inputValue()).toBe(sourceId);
    await page.getByTestId('live-badge').waitFor();
    await page.locator('[data-testid=timeline-row]', { hasText: 'session/new' }).first().waitFor();

    // the page is open before the turn starts: what follows arrives over the live stream
    const turn = session.prompt('create notes.txt containing hello inspector');
    await page.locator('[data-testid=timeline-row]', { hasText: 'agent_message_chunk' }).first().waitFor({ timeout: 30_000 });
    expect((await turn).stopReason).toBe('end_turn');
    // the chunk run is one row (its count button), and the tool call is done
    await page.locator('[data-testid=timeline-row] button.run').first().waitFor();
    const tool = page.getByTestId('item-tool_call').first();
    await expect.poll(() => tool.getByTestId('tool-status').textContent(), { timeout: 20_000 }).toBe('completed');

    const api = async (path: string) => (await page.evaluate(async (p) => (await fetch(p)).json(), path)) as unknown;
    const { sessions } = (await api(`api/s/${sourceId}/sessions`)) as { sessions: SessionView[] };
    const toolItem = sessions[0]!.items.find((i) => i.kind === 'tool_call')!;
    expect(toolItem.seqs.length).toBeGreaterThan(1);

    // session view -> frames
    await tool.click();
    await expect.poll(() => tool.getAttribute('aria-pressed')).toBe('true');
    const first = toolItem.seqs[0]!;
    const firstRow = page.locator(`[data-testid=timeline-row][data-seq="${first}"]`);
    await expect.poll(() => firstRow.getAttribute('aria-selected')).toBe('true');
    const selectedSeqs = (await page.locator('[data-testid=timeline-row][aria-selected=true]').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-seq'))))).sort((x, y) => x - y);
    expect(selectedSeqs.length).toBeGreaterThan(0);
    for (const s of selectedSeqs) expect(toolItem.seqs).toContain(s);
    const detail = page.getByTestId('frame-detail');
    await expect.poll(() => detail.locator('h2').textContent()).toContain(`Frame ${first}`);
    expect(await detail.textContent()).toContain(String(toolItem.toolCallId));
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'live-tool-call.png') });

    // frames -> session view: a frame of the agent's text selects the message it built
    const msg = sessions[0]!.items.find((i) => i.kind === 'message' && i.role === 'agent')!;
    await page.getByTestId('timeline').focus();
    const msgRow = page.locator(`[data-testid=timeline-row][data-seq="${msg.seqs[0]}"]`);
    await msgRow.scrollIntoViewIfNeeded();
    await msgRow.click();
    await expect.poll(() => page.locator(`[data-key="${msg.key}"]`).getAttribute('aria-pressed')).toBe('true');
    expect(await tool.getAttribute('aria-pressed')).toBe('false');
    // keyboard: the next row is one arrow away
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => detail.locator('h2').textContent()).not.toContain(`Frame ${msg.seqs[0]} `);

    // the proxy that ends unregisters itself; the page keeps the frames it has
    await b.close();
    await waitUntil(() => registrations(data).length === 1, 20_000, 'the closed proxy removed its registration');
    expect(errors).toEqual([]);
  });

  it('a saved capture with a schema violation: the row carries a badge, the detail names the requirement; acp-kit inspect exits 0 on Ctrl-C', async () => {
    const dir = tempDir('acp-inspector-saved-');
    const child = spawn(process.execPath, [BIN, 'inspect', violationCapture], { env: { ...process.env, ACP_KIT_DATA_DIR: join(dir, 'data') }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
    const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    await waitUntil(() => /http:\/\/127\.0\.0\.1:\d+\/\S+\//.test(out), 20_000, 'acp-kit inspect printed its URL');
    const url = out.match(/http:\/\/127\.0\.0\.1:\d+\/\S+\//)![0];
    const { page, errors } = await open(url);
    const row = page.locator('[data-testid=timeline-row][data-seq="6"]');
    const badge = row.getByTestId('violation-badge');
    await badge.waitFor();
    expect(await badge.textContent()).toContain('1');
    // the only violation of the capture: no other row has a badge
    expect(await page.getByTestId('violation-badge').count()).toBe(1);
    await row.click();
    const v = page.getByTestId('violations');
    await v.waitFor();
    expect(await v.textContent()).toContain('schema/v1');
    expect(await v.textContent()).toContain("must have required property 'stopReason'");
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'schema-violation.png') });
    expect(errors).toEqual([]);
    child.kill('SIGINT');
    expect(await exit).toBe(0);
  });

  it('capture content never runs in the page: HTML in agent text is shown as text, javascript: links are dropped, Markdown still renders', async () => {
    const dir = tempDir('acp-inspector-xss-');
    const cap = join(dir, 'xss.ndjson');
    const hostile = 'hello <img src=x onerror="window.__pwned=1"> <script>window.__pwned=2</script> [click](javascript:window.__pwned=3) **bold**';
    const msgs: Array<[string, object]> = [
      ['editor->agent', { id: 0, method: 'initialize', params: { protocolVersion: 2, info: { name: 'ed', version: '1' }, capabilities: {} } }],
      ['agent->editor', { id: 0, result: { protocolVersion: 2, info: { name: 'a', version: '1' }, capabilities: {}, authMethods: [] } }],
      ['editor->agent', { id: 1, method: 'session/new', params: { cwd: '/w', mcpServers: [] } }],
      ['agent->editor', { id: 1, result: { sessionId: 's1' } }],
      ['agent->editor', { method: 'session/update', params: { sessionId: 's1', update: { sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: { type: 'text', text: hostile } } } }],
    ];
    const lines = [{ type: 'header', format: 'acp-kit-capture', formatVersion: 1, acpKit: '0.1.0', agent: ['x'], start: '2026-11-23T00:00:00.000Z' }];
    msgs.forEach(([d, m], i) => {
      const o = m as { id?: number; method?: string };
      lines.push({ seq: i + 1, t: i, dir: d, raw: JSON.stringify({ jsonrpc: '2.0', ...m }), kind: o.method ? (o.id !== undefined ? 'request' : 'notification') : 'response', ...(o.method ? { method: o.method } : {}), ...(o.id !== undefined ? { id: o.id } : {}) } as never);
    });
    writeFileSync(cap, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const h = await startInspector({ captures: [cap], listLive: false });
    servers.push(h);
    const { page, errors } = await open(h.url);
    const md = page.locator('[data-testid=item-message] .md').first();
    await md.locator('strong', { hasText: 'bold' }).waitFor();
    expect(await md.textContent()).toContain('<img src=x onerror="window.__pwned=1">');
    expect(await md.textContent()).toContain('<script>window.__pwned=2</script>');
    expect(await md.locator('img, script, a').count()).toBe(0);
    // open the frame too: its JSON is text in the tree and the raw view
    await page.locator('[data-testid=timeline-row][data-seq="5"]').click();
    await page.getByTestId('frame-detail').getByRole('tab', { name: 'Raw' }).click();
    await page.getByTestId('frame-detail').locator('pre.raw').waitFor();
    expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
    expect(errors).toEqual([]);
  });
});
