// acp-kit inspect: headless Chromium (the system /usr/bin/chromium via playwright-core) opens the
// inspector on a generated 100k-frame capture; measures the time from the server's start to the first
// painted timeline row, and a scroll (page by page, then a jump to the end) with long tasks (> 100 ms)
// reported by a PerformanceObserver in the page, and the CPU time of the page's longest tasks (thread
// time from a Chromium trace: what a busy machine adds in waiting does not count there).
// Alone: node bench/inspector.mjs [frames] [pages]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Goals from issue 11: first paint of the timeline < 1.5 s; scrolling without long tasks > 100 ms. */
export const INSPECTOR_GOALS = { firstPaintMs: 1500, longTaskMs: 100 };
export const INSPECTOR_FRAMES = 100_000;

/** A v2 capture of one long turn: chunks, tool call updates, usage, and agent->editor requests with answers. */
export function writeCapture(path, frames) {
  const lines = [
    JSON.stringify({
      type: 'header',
      format: 'acp-kit-capture',
      formatVersion: 1,
      acpKit: '0.1.0',
      agent: ['bench'],
      start: new Date(0).toISOString(),
    }),
  ];
  let seq = 0;
  let t = 0;
  const frame = (dir, msg) => {
    const raw = JSON.stringify({ jsonrpc: '2.0', ...msg });
    const kind = msg.method ? ('id' in msg ? 'request' : 'notification') : 'error' in msg ? 'error' : 'response';
    const f = { seq: ++seq, t: Math.round((t += 0.05) * 1000) / 1000, dir, raw, kind };
    if (msg.method) f.method = msg.method;
    if ('id' in msg) f.id = msg.id;
    lines.push(JSON.stringify(f));
  };
  const update = (u) => frame('agent->editor', { method: 'session/update', params: { sessionId: 's1', update: u } });
  frame('editor->agent', {
    id: 0,
    method: 'initialize',
    params: { protocolVersion: 2, info: { name: 'bench', version: '1' }, capabilities: {} },
  });
  frame('agent->editor', {
    id: 0,
    result: { protocolVersion: 2, info: { name: 'bench-agent', version: '1' }, capabilities: {}, authMethods: [] },
  });
  frame('editor->agent', { id: 1, method: 'session/new', params: { cwd: '/w', mcpServers: [] } });
  frame('agent->editor', { id: 1, result: { sessionId: 's1' } });
  frame('editor->agent', {
    id: 2,
    method: 'session/prompt',
    params: { sessionId: 's1', prompt: [{ type: 'text', text: 'go' }] },
  });
  update({ sessionUpdate: 'state_update', state: 'running' });
  let n = 0;
  while (seq < frames - 2) {
    const k = n++;
    const mid = `m${Math.floor(k / 8)}`;
    for (let i = 0; i < 4 && seq < frames - 2; i++)
      update({
        sessionUpdate: 'agent_message_chunk',
        messageId: mid,
        content: { type: 'text', text: `word ${k}.${i} ` },
      });
    if (seq >= frames - 2) break;
    update({
      sessionUpdate: 'tool_call_update',
      toolCallId: `t${k % 50}`,
      title: `step ${k}`,
      kind: 'read',
      status: k % 3 === 0 ? 'completed' : 'in_progress',
    });
    if (seq >= frames - 4) break;
    frame('agent->editor', {
      id: 1000 + k,
      method: 'fs/read_text_file',
      params: { sessionId: 's1', path: `/w/f${k}.txt` },
    });
    frame('editor->agent', { id: 1000 + k, result: { content: `contents of file ${k}` } });
    if (seq >= frames - 2) break;
    update({ sessionUpdate: 'usage_update', used: k, size: 200000 });
  }
  update({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' });
  frame('agent->editor', { id: 2, result: {} });
  writeFileSync(path, lines.join('\n') + '\n');
  return seq;
}

/**
 * The CPU time (ms) of the longest main-thread task of the page before and after the trace event
 * named `mark` (a performance.mark in the page): `RunTask` events of the renderer's main thread,
 * their thread duration. Wall time (the long-task observer's) also holds the time the thread
 * waited for a core, which on a loaded machine is most of it.
 */
function longestCpuTasks(events, mark) {
  const main = new Set(
    events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`),
  );
  const at = events.find((e) => e.name === mark)?.ts ?? Infinity;
  let load = 0;
  let scroll = 0;
  for (const e of events) {
    if (e.name !== 'RunTask' || e.ph !== 'X' || !main.has(`${e.pid}:${e.tid}`)) continue;
    const cpu = (e.tdur ?? 0) / 1000;
    if (e.ts < at) load = Math.max(load, cpu);
    else scroll = Math.max(scroll, cpu);
  }
  return { load, scroll };
}

/** Pages scrolled one per animation frame before the jump to the end. */
export const INSPECTOR_SCROLL_PAGES = 200;

/**
 * Runs the bench. Times: `startMs` (startInspector until it listens), `firstPaintMs` (from
 * startInspector's call to the frame that paints the first timeline row, server work included;
 * the goal), `firstPaintNavMs` (the same from the page's navigation start), `indexedMs` (until the
 * page holds every frame), `settledMs` (until the session view is rendered). Then, with the page
 * settled, a scroll like a reader's: `pages` steps of one viewport each, one per animation frame,
 * and one jump to the end; long tasks > 100 ms during load and during the scroll.
 */
export async function runInspectorBench(frames = INSPECTOR_FRAMES, pages = INSPECTOR_SCROLL_PAGES) {
  const { startInspector } = await import('@acp-kit/tools/inspector');
  const { chromium } = await import('playwright-core');
  const dir = mkdtempSync(join(tmpdir(), 'acp-inspector-bench-'));
  let handle;
  let browser;
  try {
    const capture = join(dir, 'capture.ndjson');
    const written = writeCapture(capture, frames);
    browser = await chromium.launchPersistentContext(join(dir, 'profile'), {
      executablePath: '/usr/bin/chromium',
      headless: true,
      viewport: { width: 1400, height: 900 },
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    const page = await browser.newPage();
    // main-thread tasks with their thread time (the category that records every task, nothing else)
    const cdp = await browser.newCDPSession(page);
    const traceEvents = [];
    cdp.on('Tracing.dataCollected', (e) => traceEvents.push(...e.value));
    const traced = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
    await cdp.send('Tracing.start', {
      categories: 'disabled-by-default-devtools.timeline,blink.user_timing',
      transferMode: 'ReportEvents',
    });
    // injected by the driver (not by the page), so the page's CSP does not apply
    await page.addInitScript(() => {
      window.__longTasks = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.__longTasks.push(e.duration);
      }).observe({ type: 'longtask', buffered: true });
      const mo = new MutationObserver(() => {
        if (document.querySelector('[data-testid=timeline-row]')) {
          mo.disconnect();
          // the frame after the first row was committed is the one that paints it
          requestAnimationFrame(() => setTimeout(() => (window.__firstPaint = performance.now()), 0));
        }
      });
      mo.observe(document, { childList: true, subtree: true });
    });
    // the clock starts before the server: what it does before the page can paint counts
    const wall0 = Date.now();
    const l0 = performance.now();
    handle = await startInspector({ captures: [capture], listLive: false });
    const startMs = performance.now() - l0;
    await page.goto(handle.url);
    await page.waitForFunction(() => window.__firstPaint !== undefined, null, { timeout: 120_000 });
    const { nav, wall } = await page.evaluate(() => ({
      nav: window.__firstPaint,
      wall: performance.timeOrigin + window.__firstPaint,
    }));
    const firstPaintMs = wall - wall0;
    await page.waitForFunction(
      (n) => document.querySelector('[data-testid=row-count]')?.textContent?.includes(`· ${n} frames`),
      written,
      { timeout: 120_000 },
    );
    const indexedMs = Date.now() - wall0;
    await page.locator('[data-testid^=item-]').first().waitFor({ timeout: 120_000 });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
    const settledMs = Date.now() - wall0;
    const rows = Number((await page.getByTestId('row-count').textContent()).split(' ')[0]);
    const before = await page.evaluate(() => (performance.mark('bench-scroll'), window.__longTasks.length));
    const scroll = await page.evaluate(async (pages) => {
      const el = document.querySelector('[data-testid=timeline]');
      const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
      const t0 = performance.now();
      let steps = 0;
      while (steps < pages && el.scrollTop + el.clientHeight < el.scrollHeight - 1) {
        el.scrollTop += el.clientHeight;
        steps++;
        await frame();
      }
      const pagesMs = performance.now() - t0;
      // the jump: from the scroll to the frame after the one that painted the last rows
      const j0 = performance.now();
      el.scrollTop = el.scrollHeight;
      await frame();
      await frame();
      return { steps, pagesMs, jumpMs: performance.now() - j0 };
    }, pages);
    const lastSeq = await page.evaluate(() =>
      Math.max(
        ...[...document.querySelectorAll('[data-testid=timeline-row]')].map((e) => Number(e.getAttribute('data-seq'))),
      ),
    );
    if (lastSeq !== written)
      throw new Error(`scrolled to the end but the last row shown is seq ${lastSeq}, not ${written}`);
    const tasks = await page.evaluate(() => window.__longTasks);
    await cdp.send('Tracing.end');
    await traced;
    const cpu = longestCpuTasks(traceEvents, 'bench-scroll');
    const loadTasks = tasks.slice(0, before);
    const scrollTasks = tasks.slice(before);
    const over = (list) => list.filter((d) => d > INSPECTOR_GOALS.longTaskMs).length;
    return {
      frames: written,
      startMs,
      firstPaintMs,
      firstPaintNavMs: nav,
      indexedMs,
      settledMs,
      rows,
      scrollPages: scroll.steps,
      msPerPage: scroll.pagesMs / Math.max(1, scroll.steps),
      jumpMs: scroll.jumpMs,
      longTasksLoad: over(loadTasks),
      maxLongTaskLoadMs: loadTasks.length ? Math.max(...loadTasks) : 0,
      longTasksScroll: over(scrollTasks),
      maxLongTaskScrollMs: scrollTasks.length ? Math.max(...scrollTasks) : 0,
      maxTaskCpuLoadMs: cpu.load,
      maxTaskCpuScrollMs: cpu.scroll,
      loadAverage: loadavg()[0],
    };
  } finally {
    await browser?.close();
    await handle?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (n, d = 0) =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : 'n/a';

/** Markdown rows for the bench report. */
export function formatInspectorRows(r) {
  return [
    '| frames | server start ms | first paint ms (from start / from navigation) | all frames in page ms | session view ms | timeline rows | scroll: pages, ms per page, jump to end ms | long tasks > 100 ms (load / scroll) | longest task ms (load / scroll) | longest task CPU ms (load / scroll) | load average |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    `| ${fmt(r.frames)} | ${fmt(r.startMs)} | ${fmt(r.firstPaintMs)} / ${fmt(r.firstPaintNavMs)} ${r.firstPaintMs < INSPECTOR_GOALS.firstPaintMs ? '(goal met)' : '(goal MISSED)'} | ${fmt(r.indexedMs)} | ${fmt(r.settledMs)} | ${fmt(r.rows)} | ${r.scrollPages}, ${fmt(r.msPerPage, 1)}, ${fmt(r.jumpMs)} | ${r.longTasksLoad} / ${r.longTasksScroll} ${r.longTasksScroll === 0 ? '(goal met)' : '(goal MISSED)'} | ${fmt(r.maxLongTaskLoadMs)} / ${fmt(r.maxLongTaskScrollMs)} | ${fmt(r.maxTaskCpuLoadMs)} / ${fmt(r.maxTaskCpuScrollMs)} | ${fmt(r.loadAverage, 1)} |`,
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await runInspectorBench(
    Number(process.argv[2] ?? INSPECTOR_FRAMES),
    Number(process.argv[3] ?? INSPECTOR_SCROLL_PAGES),
  );
  console.log(formatInspectorRows(r));
  console.log(JSON.stringify(r));
}
