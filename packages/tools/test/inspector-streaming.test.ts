/**
 * The inspector serves a saved capture while it is still reading it: the timeline's first rows go
 * out before the end of the file is known, the rows stream in pages, and validation and the session
 * view follow when ready (pushed as row changes). A FIFO stands in for a capture file that takes
 * long to read: the test decides when its end arrives, so the ordering is proven, not timed.
 */
import { execFileSync } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CaptureModel,
  ROW,
  startInspector,
  type InspectorHandle,
  type RowTuple,
  type SessionView,
} from '../src/inspector/index.js';
import { readCapture } from '../src/proxy/index.js';
import { A2E, E2A, frames, rpc, writeCaptureFile } from '../../../test/support/capture-builder.js';
import { httpGet } from '../../../test/support/http.js';
import { waitUntil } from '../../../test/support/process.js';
import { tempDir } from '../../../test/support/temp.js';

const handles: InspectorHandle[] = [];
const responses: IncomingMessage[] = [];
const writers: WriteStream[] = [];
afterEach(async () => {
  for (const r of responses.splice(0)) r.destroy();
  for (const w of writers.splice(0)) w.destroy();
  for (const h of handles.splice(0)) await h.close();
});

const HEADER = {
  type: 'header',
  format: 'acp-kit-capture',
  formatVersion: 1,
  acpKit: '0.0.0-test',
  agent: ['test-agent'],
  start: '2026-11-20T10:00:00.000Z',
};
const CHUNKS = 12_000;

/** A v2 turn: initialize, session/new, a prompt never answered, then `CHUNKS` message chunks. */
function turn() {
  const rows: Array<[number, typeof E2A, unknown]> = [
    [0, E2A, rpc.req(0, 'initialize', { protocolVersion: 2, info: { name: 'ed', version: '1' }, capabilities: {} })],
    [1, A2E, rpc.ok(0, { protocolVersion: 2, info: { name: 'a', version: '1' }, capabilities: {}, authMethods: [] })],
    [2, E2A, rpc.req(1, 'session/new', { cwd: '/w', mcpServers: [] })],
    [3, A2E, rpc.ok(1, { sessionId: 's1' })],
    [4, E2A, rpc.req(2, 'session/prompt', { sessionId: 's1', prompt: [{ type: 'text', text: 'go' }] })],
  ];
  for (let i = 0; i < CHUNKS; i++)
    rows.push([
      5 + i / 100,
      A2E,
      rpc.update('s1', {
        sessionUpdate: 'agent_message_chunk',
        messageId: 'm1',
        content: { type: 'text', text: `w${i} ` },
      }),
    ]);
  return frames(rows);
}

const get = (port: number, path: string) => httpGet(port, path);

interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

/** Opens the live stream; events are appended to the returned list as they arrive. */
function events(port: number, path: string): Promise<SseEvent[]> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host: `127.0.0.1:${port}` } }, (res) => {
      responses.push(res);
      const list: SseEvent[] = [];
      let buf = '';
      res.setEncoding('utf8').on('data', (d: string) => {
        buf += d;
        let end: number;
        while ((end = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, end);
          buf = buf.slice(end + 2);
          if (block.startsWith(':')) continue;
          const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
          const data = /^data: (.*)$/m.exec(block)?.[1] ?? 'null';
          list.push({ event, data: JSON.parse(data) as Record<string, unknown> });
        }
      });
      resolve(list);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('inspector: a saved capture is served while it is read', () => {
  it('the server answers before the end of the file; rows stream in pages; violations and the session follow when analysis is done', async () => {
    const dir = tempDir('acp-inspector-stream-');
    const fifo = join(dir, 'capture.ndjson');
    execFileSync('mkfifo', [fifo]);
    const list = turn();
    const w = createWriteStream(fifo);
    writers.push(w);
    // the header and the first exchange only: the rest of the "file" does not exist yet
    w.write([HEADER, ...list.slice(0, 4)].map((l) => JSON.stringify(l)).join('\n') + '\n');
    const h = await startInspector({ captures: [fifo], listLive: false });
    handles.push(h);
    const base = `/${h.token}/`;

    const sources = JSON.parse((await get(h.port, `${base}api/sources`)).body) as {
      sources: Array<{ frames: number; finished: boolean }>;
    };
    expect(sources.sources[0]!.finished).toBe(false);
    expect(sources.sources[0]!.frames).toBeLessThanOrEqual(4);

    const got = await events(h.port, `${base}api/s/c0/events`);
    await waitUntil(() => got.length > 0, 10_000, 'the snapshot');
    expect(got[0]!.event).toBe('snapshot');
    expect(got[0]!.data).toMatchObject({ finished: false });

    // now the rest of the file, and its end
    await new Promise<void>((r) =>
      w.end(
        list
          .slice(4)
          .map((l) => JSON.stringify(l))
          .join('\n') + '\n',
        () => r(),
      ),
    );
    await waitUntil(() => got.some((e) => e.data.analysisComplete === true), 30_000, 'the end of the analysis');

    const rowEvents = got.filter((e) => e.event === 'rows');
    const seqs = rowEvents.flatMap((e) => (e.data.rows as RowTuple[]).map((r) => r[ROW.seq]));
    // every frame exactly once, in order
    expect(seqs).toEqual(list.map((f) => f.seq));
    // no event carries more than a page of rows (the browser parses each in a few ms)
    for (const e of rowEvents) expect((e.data.rows as unknown[]).length).toBeLessThanOrEqual(5000);
    expect(rowEvents.filter((e) => (e.data.rows as unknown[]).length > 0).length).toBeGreaterThanOrEqual(3);
    // the end of the file is reported before the end of the analysis that needs it
    const finishedAt = got.findIndex((e) => e.data.finished === true);
    const completeAt = got.findIndex((e) => e.data.analysisComplete === true);
    expect(finishedAt).toBeGreaterThan(0);
    expect(completeAt).toBeGreaterThanOrEqual(finishedAt);
    // the unanswered prompt (ACP-ALL-RPC-01, known only at the end) arrives as a changed row
    const changed = got
      .flatMap((e) => (e.data.changed as RowTuple[] | undefined) ?? [])
      .filter((r) => r[ROW.seq] === 5);
    expect(changed.at(-1)![ROW.violations]).toBe(1);

    const { sessions } = JSON.parse((await get(h.port, `${base}api/s/c0/sessions`)).body) as {
      sessions: SessionView[];
    };
    const msg = sessions[0]!.items.find((i) => i.kind === 'message' && i.role === 'agent')!;
    expect(msg.seqs.length).toBe(CHUNKS);
    const { violations } = JSON.parse((await get(h.port, `${base}api/s/c0/violations`)).body) as {
      violations: Array<{ requirement: string; seqs: number[] }>;
    };
    expect(violations).toEqual([expect.objectContaining({ requirement: 'ACP-ALL-RPC-01', seqs: [5] })]);
  });

  it('a model analyzed in the background holds the same violations, rows and sessions as one analyzed frame by frame', async () => {
    const dir = tempDir('acp-inspector-defer-');
    const cap = join(dir, 'c.ndjson');
    writeCaptureFile(cap, turn().slice(0, 400));
    const { frames: fs } = await readCapture(cap);
    const eager = new CaptureModel();
    const deferred = new CaptureModel();
    deferred.deferAnalysis = true;
    for (const f of fs) {
      eager.push(f);
      deferred.push(f);
    }
    eager.finish();
    deferred.finish();
    expect(deferred.analysisComplete).toBe(false);
    await deferred.whenAnalyzed();
    expect(deferred.analysisComplete).toBe(true);
    expect(deferred.violations).toEqual(eager.violations);
    expect(deferred.rows).toEqual(eager.rows);
    expect(deferred.sessionViews()).toEqual(eager.sessionViews());
    expect(deferred.detail(5)).toEqual(eager.detail(5));
  });
});
