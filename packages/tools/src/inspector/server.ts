import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { diffCaptures, type CaptureDiff } from '../captures/diff.js';
import { checkHost, sameSecret } from '@acp-kit/protocol/internal';
import { listLive, type LiveRegistration } from './live.js';
import type { CaptureModel, ModelEvent } from './model.js';
import type { SourceInfo } from './api-types.js';
import { CaptureTail, startLoad, type CaptureLoad } from './source.js';

/** Options of {@link startInspector}. */
export interface InspectorOptions {
  /**
   * Saved captures to serve. Each is read in the background: the inspector answers as soon as
   * every file is known to be a capture, and the page shows frames while the rest is indexed.
   */
  captures?: string[];
  /** A capture this process is recording right now (proxy --inspect): followed live. */
  liveCapture?: { path: string; agent: string[] };
  /** TCP port on 127.0.0.1; 0 (default) = any free port. */
  port?: number;
  /** List the live proxies registered in the data dir (default true). */
  listLive?: boolean;
  /** Environment for the data dir lookup (default process.env). */
  env?: NodeJS.ProcessEnv;
}

/** A running inspector. */
export interface InspectorHandle {
  /** The page, token included: `http://127.0.0.1:<port>/<token>/`. */
  url: string;
  port: number;
  token: string;
  /** Stops the server, live streams and file watchers. */
  close(): Promise<void>;
}

/**
 * The policy for every response. The page is one bundled script and one stylesheet from this
 * origin; captures can hold anything, so nothing inline runs, nothing loads from elsewhere, and
 * the page cannot be framed or send its token in a referrer.
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

/** Where the bundled page lives: dist/inspector/ui (next to the built server), or dist/ from a source checkout. */
function uiDir(): string {
  const candidates = [new URL('./ui/', import.meta.url), new URL('../../dist/inspector/ui/', import.meta.url)];
  for (const c of candidates) if (existsSync(fileURLToPath(new URL('app.js', c)))) return fileURLToPath(c);
  return fileURLToPath(candidates[0] ?? new URL('./ui/', import.meta.url));
}

const INDEX_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>acp-kit inspect</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="app.css">
</head>
<body>
<div id="app"></div>
<script type="module" src="app.js"></script>
</body>
</html>
`;

type Source = {
  model: CaptureModel;
  info: Omit<SourceInfo, 'frames' | 'finished' | 'agent'>;
  tail?: CaptureTail;
  load?: CaptureLoad;
  agent?: string[];
};

/** What the inspector's routes share. */
interface InspectorContext {
  token: string;
  /** set once listening, before the first request can arrive */
  port: number;
  dir: string;
  models: Map<string, Source>;
  streams: Set<ServerResponse>;
  /** one diff per pair of sources and their frame counts: the page asks again after every change */
  diffs: Map<string, CaptureDiff>;
  sources: () => SourceInfo[];
}

/** Reads the saved captures (failing the start on a file that is not one) and registers each as a source. */
async function loadCaptures(
  options: InspectorOptions,
  models: Map<string, Source>,
  isClosed: () => boolean,
): Promise<void> {
  const loads = (options.captures ?? []).map((path) => ({ path, load: startLoad(path) }));
  try {
    // a file that is not a capture fails the start, as before; the frames keep loading after it
    await Promise.all(loads.map((l) => l.load.ready));
  } catch (e) {
    for (const l of loads) l.load.stop();
    throw e;
  }
  loads.forEach(({ path, load }, n) => {
    models.set(`c${n}`, { model: load.model, load, info: { id: `c${n}`, name: basename(path), path, live: false } });
    // a bridge capture holds both legs: once the file is read and the agent's leg found, it becomes a
    // source of its own, decoded with the agent's protocol version
    void load.done.then(
      () => {
        if (load.model.otherSideFrames === 0 || isClosed()) return;
        const agentLeg = startLoad(path, 12, 'agent');
        agentLeg.done.catch(() => undefined);
        models.set(`c${n}-agent`, {
          model: agentLeg.model,
          load: agentLeg,
          info: { id: `c${n}-agent`, name: `${basename(path)} (bridge: agent leg)`, path, live: false },
        });
      },
      () => undefined,
    );
  });
}

/** The sources as the page lists them; live proxies registered in the data dir are added, and those that exited marked finished. */
function listSources(options: InspectorOptions, models: Map<string, Source>, env: NodeJS.ProcessEnv): SourceInfo[] {
  if (options.listLive !== false) {
    const regs = listLive(env);
    const alive = new Set(regs.map((r) => `live-${r.pid}`));
    for (const r of regs) attachLive(models, r);
    // a proxy that exited: keep its frames (the page may be showing them) but mark it finished
    for (const [id, m] of models)
      if (m.tail && id !== `live-${process.pid}` && !alive.has(id)) {
        m.tail.read();
        m.tail.close();
        m.model.finish();
      }
  }
  return [...models.values()].map((m) => ({
    ...m.info,
    agent: m.agent ?? m.model.header?.agent ?? [],
    frames: m.model.frames.length,
    finished: m.model.finished,
  }));
}

function attachLive(models: Map<string, Source>, r: LiveRegistration): void {
  const id = `live-${r.pid}`;
  if (models.has(id)) return;
  const tail = new CaptureTail(r.capture);
  models.set(id, {
    model: tail.model,
    tail,
    agent: r.agent,
    info: { id, name: `live: ${r.agent.join(' ')} (pid ${r.pid})`, path: r.capture, live: true },
  });
}

/**
 * Serves the inspector on 127.0.0.1: the page, its assets, a JSON API over the captures and a
 * live stream (Server-Sent Events). Every route is under `/<token>/` (a random 128-bit token): a
 * request without it gets 401, with a wrong one 403, and a `Host` other than this loopback
 * address 403 (DNS rebinding). No CORS headers are ever sent.
 */
export async function startInspector(options: InspectorOptions = {}): Promise<InspectorHandle> {
  const env = options.env ?? process.env;
  const models = new Map<string, Source>();
  let closed = false;
  await loadCaptures(options, models, () => closed);
  if (options.liveCapture) {
    const tail = new CaptureTail(options.liveCapture.path);
    models.set(`live-${process.pid}`, {
      model: tail.model,
      tail,
      agent: options.liveCapture.agent,
      info: {
        id: `live-${process.pid}`,
        name: `live: ${options.liveCapture.agent.join(' ')} (pid ${process.pid})`,
        path: options.liveCapture.path,
        live: true,
      },
    });
  }
  const ctx: InspectorContext = {
    token: randomBytes(16).toString('base64url'),
    port: 0,
    dir: uiDir(),
    models,
    streams: new Set(),
    diffs: new Map(),
    sources: () => listSources(options, models, env),
  };
  const server = createServer((req, res) => {
    const fail = (e: unknown): void => {
      if (!res.headersSent)
        send(
          res,
          500,
          'application/json',
          JSON.stringify({ error: `inspector: ${e instanceof Error ? e.message : String(e)}` }),
        );
      else res.destroy();
    };
    try {
      handle(ctx, req, res)?.catch(fail);
    } catch (e) {
      fail(e);
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const addr = server.address();
  if (addr === null || typeof addr === 'string') {
    server.close();
    throw new Error('inspector: the server is not listening on a TCP port');
  }
  ctx.port = addr.port;
  return {
    url: `http://127.0.0.1:${ctx.port}/${ctx.token}/`,
    port: ctx.port,
    token: ctx.token,
    close: async () => {
      closed = true;
      for (const s of ctx.streams) s.destroy();
      for (const m of models.values()) {
        m.tail?.close();
        m.load?.stop();
        m.model.stopAnalysis();
      }
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Every request: Host and token checked, then the page, its assets or the API. */
function handle(ctx: InspectorContext, req: IncomingMessage, res: ServerResponse): void | Promise<void> {
  const { port, token } = ctx;
  const badHost = checkHost(
    req,
    [`127.0.0.1:${port}`, `localhost:${port}`],
    `is not this inspector (open http://127.0.0.1:${port}/<token>/)\n`,
  );
  if (badHost) return send(res, badHost.status, 'text/plain', badHost.message);
  const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
  const parts = url.pathname.split('/');
  const given = parts[1] ?? '';
  if (given === '')
    return send(
      res,
      401,
      'text/plain',
      '401 Unauthorized: the URL needs the token the inspector printed (http://127.0.0.1:<port>/<token>/)\n',
    );
  if (!sameSecret(given, token))
    return send(res, 403, 'text/plain', '403 Forbidden: wrong token; use the URL the inspector printed\n');
  if (req.method !== 'GET' && req.method !== 'HEAD')
    return send(res, 405, 'text/plain', '405 Method Not Allowed: the inspector is read-only (GET)\n', {
      allow: 'GET, HEAD',
    });
  const rest = parts.slice(2);
  const route = rest.join('/');
  if (parts.length === 2) {
    res.writeHead(308, { ...SECURITY_HEADERS, location: `/${token}/` });
    res.end();
    return;
  }
  if (route === '') return send(res, 200, 'text/html; charset=utf-8', INDEX_HTML);
  if (route === 'app.js' || route === 'app.css') {
    const file = `${ctx.dir}${route}`;
    if (!existsSync(file))
      return send(
        res,
        500,
        'text/plain',
        `500: the inspector page is not built (${file} missing); run npm run build\n`,
      );
    return send(
      res,
      200,
      route.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8',
      readFileSync(file),
    );
  }
  if (route === 'api/sources') return json(res, { sources: ctx.sources() });
  if (route === 'api/diff') return diff(ctx, res, url.searchParams.get('a'), url.searchParams.get('b'));
  if (rest[0] === 'api' && rest[1] === 's' && rest[2]) {
    const src = ctx.models.get(rest[2]);
    if (!src) return json(res, { error: `no source ${JSON.stringify(rest[2])}; GET api/sources lists them` }, 404);
    return sourceRoute(ctx, req, res, src.model, rest, url.searchParams);
  }
  return send(res, 404, 'text/plain', `404 Not Found: ${route}\n`);
}

/** `api/s/<source>/<what>[/<arg>]`: rows, one frame, sessions, latency, violations, search, the live events. */
function sourceRoute(
  ctx: InspectorContext,
  req: IncomingMessage,
  res: ServerResponse,
  m: CaptureModel,
  rest: string[],
  params: URLSearchParams,
): void | Promise<void> {
  const what = rest[3];
  const arg = rest[4];
  if (what === 'rows')
    return json(res, {
      strings: m.strings,
      rows: m.rows,
      finished: m.finished,
      header: m.header,
      violations: m.violations.length,
    });
  if (what === 'frame') {
    const seq = Number(arg);
    if (!Number.isInteger(seq) || m.detail(seq) === undefined)
      return json(res, { error: `no frame with seq ${JSON.stringify(arg)}` }, 404);
    // its violations and the protocol version are known once analysis has passed it
    return (async () => {
      const next = m.frames[m.analyzed];
      if (!m.analysisComplete && (next === undefined || next.seq <= seq)) await m.whenAnalyzed();
      json(res, m.detail(seq));
    })();
  }
  if (what === 'sessions') {
    const upto = params.get('upto');
    const n2 = upto === null ? undefined : Number(upto);
    if (n2 !== undefined && !Number.isFinite(n2)) return json(res, { error: 'upto: must be a frame seq number' }, 400);
    return (async () => {
      if (n2 === undefined) await m.whenAnalyzed();
      json(res, { sessions: m.sessionViews(n2), frames: m.frames.length });
    })();
  }
  if (what === 'latency') return json(res, m.latency());
  if (what === 'violations') return m.whenAnalyzed().then(() => json(res, { violations: m.violations }));
  if (what === 'search') return json(res, { seqs: m.search(params.get('q') ?? '') });
  if (what === 'events') return stream(ctx, req, res, m);
  return send(res, 404, 'text/plain', `404 Not Found: ${rest.join('/')}\n`);
}

async function diff(ctx: InspectorContext, res: ServerResponse, a: string | null, b: string | null): Promise<void> {
  const sa = a === null ? undefined : ctx.models.get(a);
  const sb = b === null ? undefined : ctx.models.get(b);
  if (!sa || !sb)
    return json(
      res,
      {
        error: `${!sa ? `a=${JSON.stringify(a)}` : `b=${JSON.stringify(b)}`}: must be the id of a source (GET api/sources lists them)`,
      },
      400,
    );
  // a saved capture is compared whole; a live one as far as it got
  await Promise.all([sa.load?.done, sb.load?.done]);
  const key = `${a}:${sa.model.frames.length}|${b}:${sb.model.frames.length}`;
  let d = ctx.diffs.get(key);
  if (!d) {
    d = diffCaptures(sa.model.frames, sb.model.frames, { maxEntries: 2000 });
    ctx.diffs.clear();
    ctx.diffs.set(key, d);
  }
  json(res, d);
}

/** The live stream of one source: a snapshot, then its changes batched every 50 ms. */
function stream(ctx: InspectorContext, req: IncomingMessage, res: ServerResponse, m: CaptureModel): void {
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': 'text/event-stream; charset=utf-8',
    connection: 'keep-alive',
  });
  // the snapshot and the subscription happen in one turn of the event loop: nothing falls between.
  // The rows go in pages: the page paints the first one while it parses the rest, and no single
  // message costs the browser a long task to parse.
  const state = { finished: m.finished, analyzed: m.analyzed, analysisComplete: m.analysisComplete };
  res.write(
    `event: snapshot\ndata: ${JSON.stringify({ header: m.header, strings: m.strings, violations: m.violations.length, ...state })}\n\n`,
  );
  for (let i = 0; i < m.rows.length; i += STREAM_PAGE)
    writeRows(res, { type: 'rows', rows: m.rows.slice(i, i + STREAM_PAGE), changed: [], strings: [], violations: [] });
  let pending: ModelEvent[] = [];
  let timer: NodeJS.Timeout | undefined;
  // batch: a burst of frames becomes one event per 50 ms (in pages), not one per frame
  const flush = (): void => {
    timer = undefined;
    const batch = pending;
    pending = [];
    writeBatch(res, batch);
  };
  const off = m.subscribe((e) => {
    pending.push(e);
    timer ??= setTimeout(flush, 50);
  });
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
  ctx.streams.add(res);
  const end = (): void => {
    off();
    clearInterval(keepAlive);
    if (timer) clearTimeout(timer);
    ctx.streams.delete(res);
  };
  req.on('close', end);
  res.on('close', end);
}

/** Writes a batch of model events: consecutive row events merge (later flags win: they describe the newer state). */
function writeBatch(res: ServerResponse, batch: ModelEvent[]): void {
  let rows: Extract<ModelEvent, { type: 'rows' }> | undefined;
  const out = (): void => {
    if (rows) writeRows(res, rows);
    rows = undefined;
  };
  for (const e of batch) {
    if (e.type !== 'rows') {
      out();
      res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
      continue;
    }
    if (!rows)
      rows = {
        ...e,
        rows: [...e.rows],
        changed: [...e.changed],
        strings: [...e.strings],
        violations: [...e.violations],
      };
    else {
      rows.rows.push(...e.rows);
      rows.changed.push(...e.changed);
      rows.strings.push(...e.strings);
      rows.violations.push(...e.violations);
      if (e.finished) rows.finished = true;
      if (e.analyzed !== undefined) rows.analyzed = e.analyzed;
      if (e.analysisComplete) rows.analysisComplete = true;
    }
  }
  out();
}

/** Rows per live-stream event: about 250 kB of JSON, a few ms for the browser to parse. */
const STREAM_PAGE = 5000;

/**
 * Writes a rows event, split so none carries more than {@link STREAM_PAGE} rows; strings,
 * changed rows and flags travel with the first part (the rows of later parts may use its strings).
 */
function writeRows(res: ServerResponse, e: Extract<ModelEvent, { type: 'rows' }>): void {
  const { finished, analyzed, analysisComplete, ...first } = e;
  const flags = {
    ...(finished ? { finished } : {}),
    ...(analyzed !== undefined ? { analyzed } : {}),
    ...(analysisComplete ? { analysisComplete } : {}),
  };
  const parts = Math.max(1, Math.ceil(e.rows.length / STREAM_PAGE));
  for (let p = 0; p < parts; p++) {
    const rows = parts === 1 ? e.rows : e.rows.slice(p * STREAM_PAGE, (p + 1) * STREAM_PAGE);
    // strings (which later parts' rows may use) go first; the flags describe the state after the last part
    const part = {
      ...(p === 0 ? first : { type: 'rows', changed: [], strings: [], violations: [] }),
      rows,
      ...(p === parts - 1 ? flags : {}),
    };
    res.write(`event: rows\ndata: ${JSON.stringify(part)}\n\n`);
  }
}

function send(
  res: ServerResponse,
  status: number,
  type: string,
  body: string | Buffer,
  extra: Record<string, string> = {},
): void {
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'content-type': type,
    'content-length': String(Buffer.byteLength(body)),
    ...extra,
  });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

function json(res: ServerResponse, value: unknown, status = 200): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(value));
}
