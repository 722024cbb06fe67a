/**
 * The inspector page in a real headless Chromium (Debian's /usr/bin/chromium via playwright-core). One
 * browser for the file (launching it and loading playwright-core cost more CPU than most of its tests):
 * - a live proxied session of the built-in agent, a saved capture with a schema violation, hostile
 *   capture content;
 * - the views, on captures of the built-in agent recorded through `acp-kit proxy --record`: the diff
 *   of two runs with different prompts (`acp-kit inspect A B --diff`), the latency tab, the replay
 *   scrubber, and the timeline's method filter and full-text search.
 * Needs `npm run build` (the page bundle, bin/acp-kit.js).
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { startInspector, type LiveRegistration, type SessionView } from '../src/inspector/index.js';
import { readCapture } from '../src/proxy/index.js';
import { BIN, connectThroughProxy, recordTurn, screenshot, useBrowser } from '../../../test/support/inspector.js';
import { waitUntil } from '../../../test/support/process.js';
import { tempDir } from '../../../test/support/temp.js';
import { writeCaptureFile } from '../../../test/support/capture-builder.js';
import { unstableSessionFrames } from '../../../test/support/unstable-frames.js';

const violationCapture = fileURLToPath(
  new URL('../../../test/fixtures/proxy-captures/schema-prompt-response.ndjson', import.meta.url),
);

const browser = useBrowser('acp-inspector-chromium-');
const { conns, children, servers } = browser;

const open = (url: string) => browser.open(url);

const registrations = (dataDir: string): LiveRegistration[] => {
  try {
    return readdirSync(join(dataDir, 'inspect'))
      .filter((n) => n.endsWith('.json'))
      .map((n) => JSON.parse(readFileSync(join(dataDir, 'inspect', n), 'utf8')) as LiveRegistration);
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
    const regA = regs.find(
      (r) => r.agent.includes('agent') && readFileSync(join(dir, 'a.log'), 'utf8').includes(r.url),
    )!;
    expect(regA).toBeDefined();
    const { page, errors } = await open(regA.url);
    const sourceId = `live-${regA.pid}`;
    // one page lists every live proxy
    const select = page.getByTestId('source-select');
    await expect
      .poll(
        async () => (await select.locator('option').allTextContents()).filter((t) => t.startsWith('live:')).length,
        { timeout: 20_000 },
      )
      .toBe(2);
    expect(await select.inputValue()).toBe(sourceId);
    await page.getByTestId('live-badge').waitFor();
    await page.locator('[data-testid=timeline-row]', { hasText: 'session/new' }).first().waitFor();

    // the page is open before the turn starts: what follows arrives over the live stream
    const turn = session.prompt('create notes.txt containing hello inspector');
    await page
      .locator('[data-testid=timeline-row]', { hasText: 'agent_message_chunk' })
      .first()
      .waitFor({ timeout: 30_000 });
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
    const selectedSeqs = (
      await page
        .locator('[data-testid=timeline-row][aria-selected=true]')
        .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-seq'))))
    ).sort((x, y) => x - y);
    expect(selectedSeqs.length).toBeGreaterThan(0);
    for (const s of selectedSeqs) expect(toolItem.seqs).toContain(s);
    const detail = page.getByTestId('frame-detail');
    await expect.poll(() => detail.locator('h2').textContent()).toContain(`Frame ${first}`);
    expect(await detail.textContent()).toContain(String(toolItem.toolCallId));
    await screenshot(page, 'live-tool-call.png');

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
    const child = spawn(process.execPath, [BIN, 'inspect', violationCapture], {
      env: { ...process.env, ACP_KIT_DATA_DIR: join(dir, 'data') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
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
    await screenshot(page, 'schema-violation.png');
    expect(errors).toEqual([]);
    child.kill('SIGINT');
    expect(await exit).toBe(0);
  });

  it("a proxy chain's trace (the Rust conductor's .jsons): each row names its hop, the detail shows the frame's path on it", async () => {
    const trace = fileURLToPath(
      new URL('../../../test/fixtures/rust-conductor/trace_mcp_tool_call.jsons', import.meta.url),
    );
    const dir = tempDir('acp-inspector-trace-');
    const child = spawn(process.execPath, [BIN, 'inspect', trace], {
      env: { ...process.env, ACP_KIT_DATA_DIR: join(dir, 'data') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    child.stdout?.setEncoding('utf8').on('data', (d: string) => (out += d));
    await waitUntil(() => /http:\/\/127\.0\.0\.1:\d+\/\S+\//.test(out), 20_000, 'acp-kit inspect printed its URL');
    const { page, errors } = await open(out.match(/http:\/\/127\.0\.0\.1:\d+\/\S+\//)?.[0] ?? '');
    const hopOf = (seq: number) => page.locator(`[data-testid=timeline-row][data-seq="${seq}"]`).getByTestId('row-hop');
    await hopOf(1).waitFor();
    expect(await hopOf(1).textContent()).toBe('Client-Proxy(0)');
    expect(await hopOf(2).textContent()).toBe('Proxy(0)-Proxy(1)');
    // mcp/connect goes from the second proxy back to the first: the path runs towards the client
    await page.locator('[data-testid=timeline-row][data-seq="7"]').click();
    const path = page.getByTestId('hop-path');
    await path.waitFor();
    expect(await path.textContent()).toBe('hop Proxy(1) → Proxy(0)');
    await page.locator('[data-testid=timeline-row][data-seq="2"]').click();
    await expect.poll(() => path.textContent()).toBe('hop Proxy(0) → Proxy(1)');
    expect(errors).toEqual([]);
    child.kill('SIGINT');
  });

  it('tool output keeps its lines: the fenced file text a read tool call returns renders as a code block', async () => {
    // before: tool call text was one <p>, so "```\nfirst line\nsecond line\n```" showed as one line
    const dir = tempDir('acp-inspector-tool-text-');
    writeFileSync(join(dir, 'notes.txt'), 'first line\nsecond line\n');
    const cap = await recordTurn(dir, 2, 'read notes.txt', conns);
    const h = await startInspector({ captures: [cap], listLive: false });
    servers.push(h);
    const { page, errors } = await open(h.url);
    const tool = page.getByTestId('item-tool_call').first();
    await tool.locator('.blocks').first().waitFor();
    const shown = (await tool.locator('.blocks pre').allInnerTexts()).map((t) => t.trimEnd());
    expect(shown).toEqual(['first line\nsecond line']);
    expect(errors).toEqual([]);
  });

  it('capture content never runs in the page: HTML in agent text is shown as text, javascript: links are dropped, Markdown still renders', async () => {
    const dir = tempDir('acp-inspector-xss-');
    const cap = join(dir, 'xss.ndjson');
    const hostile =
      'hello <img src=x onerror="window.__pwned=1"> <script>window.__pwned=2</script> [click](javascript:window.__pwned=3) **bold**';
    const msgs: Array<[string, object]> = [
      [
        'editor->agent',
        {
          id: 0,
          method: 'initialize',
          params: { protocolVersion: 2, info: { name: 'ed', version: '1' }, capabilities: {} },
        },
      ],
      [
        'agent->editor',
        { id: 0, result: { protocolVersion: 2, info: { name: 'a', version: '1' }, capabilities: {}, authMethods: [] } },
      ],
      ['editor->agent', { id: 1, method: 'session/new', params: { cwd: '/w', mcpServers: [] } }],
      ['agent->editor', { id: 1, result: { sessionId: 's1' } }],
      [
        'agent->editor',
        {
          method: 'session/update',
          params: {
            sessionId: 's1',
            update: { sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: { type: 'text', text: hostile } },
          },
        },
      ],
    ];
    const lines = [
      {
        type: 'header',
        format: 'acp-kit-capture',
        formatVersion: 1,
        acpKit: '0.1.0',
        agent: ['x'],
        start: '2026-11-23T00:00:00.000Z',
      },
    ];
    msgs.forEach(([d, m], i) => {
      const o = m as { id?: number; method?: string };
      lines.push({
        seq: i + 1,
        t: i,
        dir: d,
        raw: JSON.stringify({ jsonrpc: '2.0', ...m }),
        kind: o.method ? (o.id !== undefined ? 'request' : 'notification') : 'response',
        ...(o.method ? { method: o.method } : {}),
        ...(o.id !== undefined ? { id: o.id } : {}),
      } as never);
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

  it('the unstable surface: summaries in the timeline; archived, status and forks on the session; a subagent nested with its own text; a session message', async () => {
    const dir = tempDir('acp-inspector-unstable-');
    const cap = join(dir, 'unstable.ndjson');
    writeCaptureFile(cap, unstableSessionFrames(2));
    const h = await startInspector({ captures: [cap], listLive: false });
    servers.push(h);
    const { page, errors } = await open(h.url);
    // the session/fork answer's row says what it did
    const forkAnswer = page.getByTestId('row-summary').filter({ hasText: 'fork of s1 -> s1-fork' });
    await forkAnswer.waitFor();
    // and its detail repeats it above the JSON
    await forkAnswer.click();
    await expect.poll(() => page.getByTestId('frame-summary').textContent()).toBe('fork of s1 -> s1-fork');
    const s1 = page.locator('article.session-block:not(.nested)[aria-label="Session s1"]');
    await s1.getByTestId('session-status').waitFor();
    expect(await s1.getByTestId('session-status').textContent()).toBe('status: open (idle)');
    expect(await s1.getByTestId('session-archived').textContent()).toBe('unarchived');
    expect(await s1.getByTestId('session-fork').textContent()).toBe('forked -> s1-fork');
    const fork = page.locator('article.session-block[aria-label="Session s1-fork"]');
    expect(await fork.getByTestId('session-fork-of').textContent()).toBe('fork of s1');
    expect(await fork.getByTestId('session-archived').textContent()).toBe('archived');
    // subagent_update: a nested block with the child's own text; the removed plan is gone
    const sub = s1.getByTestId('item-subagent');
    expect(await sub.locator('.label').first().textContent()).toContain('Search the docs');
    expect(await sub.getByTestId('subagent-state').textContent()).toBe('idle: end_turn');
    const childText = sub.locator('article.session-block.nested [data-testid=item-message]');
    expect(await childText.textContent()).toContain('found 3 hits');
    expect(await page.getByTestId('item-plan').count()).toBe(0);
    // session_message + its chunk: one message with its route
    const msg = s1.getByTestId('item-session_message');
    expect(await msg.getByTestId('session-message-route').textContent()).toBe('sub-1 → s1');
    expect(await msg.locator('.blocks').textContent()).toContain('Done: 3 hits in docs/');
    // a click on the child's message selects that message, not the subagent around it
    await childText.click();
    await expect.poll(() => childText.getAttribute('aria-pressed')).toBe('true');
    expect(await sub.getAttribute('aria-pressed')).toBe('false');
    await screenshot(page, 'unstable-session.png');
    expect(errors).toEqual([]);
  });
});

/** A v2 turn of the built-in agent (demo model), recorded by the proxy. */
const record = (prompt: string): Promise<string> => recordTurn(tempDir('acp-inspector-views-'), 2, prompt, conns);

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
    const child = spawn(process.execPath, [BIN, 'inspect', capA, capB, '--diff'], {
      env: { ...process.env, ACP_KIT_DATA_DIR: join(dir, 'data') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
    await waitUntil(
      () => /http:\/\/127\.0\.0\.1:\d+\/\S+\/#diff=c0,c1/.test(out),
      20_000,
      'acp-kit inspect printed the diff URL',
    );
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
    expect(await entry.locator('.diff-pair').first().textContent()).toMatch(
      /A #\d+ E→A request session\/prompt.*B #\d+ E→A request session\/prompt/,
    );
    // both frames, the differing field highlighted in each
    await entry.getByRole('button', { name: 'show both frames' }).click();
    const marked = entry.locator('[data-changed="params.prompt[0].text"]');
    await expect.poll(() => marked.count()).toBe(2);
    // versions (both v2, equal) and a latency row per method with both sides
    expect(await page.getByTestId('diff-versions').textContent()).toContain('protocol version negotiated22');
    const latency = page.getByTestId('diff-latency').locator('tr', { hasText: 'session/prompt' });
    expect(await latency.locator('td').nth(2).textContent()).toMatch(/^1 · /);
    expect(await latency.locator('td').nth(3).textContent()).toMatch(/^1 · /);
    await screenshot(page, 'diff.png', { fullPage: true });

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
    const { sessions } = (await page.evaluate(
      async (p) => (await fetch(p)).json(),
      `api/s/c0/sessions?upto=${frames[at - 1]!.seq}`,
    )) as { sessions: Array<{ items: unknown[] }> };
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
    await screenshot(page, 'filters-search.png');
    expect(errors).toEqual([]);
  });
});
