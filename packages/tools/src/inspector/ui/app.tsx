import { render } from 'preact';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { diffLines } from 'diff';
import { getJson, ROW, type CaptureDiff, type DiffEntry, type DiffFrameRef, type FrameDetail, type MethodLatency, type RequestSpan, type RowTuple, type SessionItem, type SessionView, type SourceInfo, type TerminalItem, type ClientTerminalView } from './api.js';
import { renderMarkdown } from './markdown.js';

const ROW_H = 24;
/** Session items rendered at once. */
const ITEM_WINDOW = 200;
const OVERSCAN = 6;
const KINDS = ['request', 'notification', 'response', 'error', 'invalid'] as const;

/** One line of the timeline: a frame, or a run of chunk frames collapsed into one. */
interface DisplayRow {
  /** index into rows of the first frame */
  first: number;
  /** indexes of every frame of the row (one unless collapsed) */
  members: number[];
}

interface Data {
  /** string table and rows grow in place; `version` tells memos they changed */
  strings: string[];
  rows: RowTuple[];
  finished: boolean;
  /** every frame so far is validated and decoded (the session view can be asked for) */
  analysisComplete: boolean;
  index: Map<number, number>;
  version: number;
}

const emptyData = (): Data => ({ strings: [], rows: [], finished: false, analysisComplete: false, index: new Map(), version: 0 });

interface RowsEvent {
  rows: RowTuple[];
  changed: RowTuple[];
  strings: string[];
  finished?: boolean;
  analysisComplete?: boolean;
}

function fmtMs(ms: number | undefined): string {
  if (ms === undefined || ms < 0) return '';
  return ms < 10 ? ms.toFixed(2) : ms < 1000 ? ms.toFixed(1) : `${(ms / 1000).toFixed(2)}s`;
}

function fmtT(ms: number): string {
  return (ms / 1000).toFixed(3);
}

function fmtSize(n: number): string {
  return n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} kB` : `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** The page. */
function App() {
  const [sources, setSources] = useState<SourceInfo[]>([]);
  const [sourceId, setSourceId] = useState<string | undefined>(undefined);
  const [data, setData] = useState<Data>(emptyData);
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [focusSeq, setFocusSeq] = useState<number | undefined>(undefined);
  const [tab, setTab] = useState<'session' | 'latency'>('session');
  // `#diff=<a>,<b>` (acp-kit inspect A B --diff) opens the diff of two sources
  const [diffWith, setDiffWith] = useState<string | undefined>(() => diffFromHash()?.b);
  const dataRef = useRef<Data>(data);
  dataRef.current = data;

  // the source list (live proxies come and go)
  useEffect(() => {
    let stop = false;
    const load = async () => {
      try {
        const r = await getJson<{ sources: SourceInfo[] }>('api/sources');
        if (stop) return;
        // a poll that changes nothing must not re-render the page
        setSources((cur) => (JSON.stringify(cur) === JSON.stringify(r.sources) ? cur : r.sources));
        setSourceId((cur) => cur ?? diffFromHash()?.a ?? r.sources[0]?.id);
      } catch {
        /* server gone: keep what is shown */
      }
    };
    void load();
    const timer = setInterval(load, 2000);
    return () => {
      stop = true;
      clearInterval(timer);
    };
  }, []);

  const source = sources.find((s) => s.id === sourceId);
  const live = source?.live ?? false;

  // frames: one stream for every source. A saved capture is indexed while it streams, a live one
  // grows; rows arrive in pages and are applied once per animation frame, so the first page paints
  // while later ones are still parsed and no single update blocks the page for long.
  useEffect(() => {
    if (!sourceId) return;
    setData(emptyData());
    setSelected(new Set());
    setFocusSeq(undefined);
    if (!sources.some((s) => s.id === sourceId)) return;
    let d = emptyData();
    let queued: RowsEvent[] = [];
    let raf = 0;
    const apply = (): void => {
      raf = 0;
      const batch = queued;
      queued = [];
      let { finished, analysisComplete } = d;
      for (const e of batch) {
        for (const s of e.strings) d.strings.push(s);
        for (const r of e.changed) {
          const i = d.index.get(r[ROW.seq]);
          if (i !== undefined) d.rows[i] = r;
        }
        for (const r of e.rows) {
          const i = d.index.get(r[ROW.seq]);
          if (i !== undefined) d.rows[i] = r;
          else {
            d.index.set(r[ROW.seq], d.rows.length);
            d.rows.push(r);
          }
        }
        if (e.finished) finished = true;
        if (e.analysisComplete !== undefined) analysisComplete = e.analysisComplete;
      }
      d = { ...d, finished, analysisComplete, version: d.version + 1 };
      dataRef.current = d;
      setData(d);
    };
    const es = new EventSource(`api/s/${sourceId}/events`);
    es.addEventListener('snapshot', (ev: MessageEvent<string>) => {
      // our own server's event stream (src/inspector/server.ts): its shape is trusted, not re-checked per event
      const r = JSON.parse(ev.data) as { strings: string[]; finished: boolean; analysisComplete: boolean };
      // a reconnect starts over: the snapshot is followed by every row again
      queued = [];
      d = { ...emptyData(), strings: r.strings, finished: r.finished, analysisComplete: r.analysisComplete };
      queued.push({ rows: [], changed: [], strings: [] });
      raf ||= requestAnimationFrame(apply);
    });
    es.addEventListener('rows', (ev: MessageEvent<string>) => {
      // our own server's event stream, as above (rows arrive by the thousand: no per-row check)
      queued.push(JSON.parse(ev.data) as RowsEvent);
      raf ||= requestAnimationFrame(apply);
    });
    return () => {
      es.close();
      if (raf) cancelAnimationFrame(raf);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [sourceId, sources.length > 0]);

  const select = useCallback((seqs: number[], focus?: number) => {
    setSelected(new Set(seqs));
    setFocusSeq(focus ?? seqs[0]);
  }, []);

  return (
    <div class="app">
      <header class="top">
        <h1>acp-kit inspect</h1>
        <label>
          <span class="sr-only">Capture</span>
          <select aria-label="Capture" value={sourceId} onChange={(e) => setSourceId(e.currentTarget.value)} data-testid="source-select">
            {sources.map((s) => (
              <option value={s.id} key={s.id}>
                {s.name} · {s.frames} frames{s.live && !s.finished ? ' · live' : ''}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span class="sr-only">Compare with</span>
          <select aria-label="Compare with" value={diffWith ?? ''} onChange={(e) => setDiffWith(e.currentTarget.value || undefined)} data-testid="diff-select">
            <option value="">compare with…</option>
            {sources.filter((s) => s.id !== sourceId).map((s) => <option value={s.id} key={s.id}>diff with {s.name}</option>)}
          </select>
        </label>
        {live && !data.finished ? <span class="live-badge" data-testid="live-badge">● live</span> : null}
        <span class="muted">{source?.path}</span>
      </header>
      {sourceId && diffWith && diffWith !== sourceId ? (
        <main class="diff-main">
          <DiffView a={sources.find((s) => s.id === sourceId)} b={sources.find((s) => s.id === diffWith)} onClose={() => setDiffWith(undefined)} />
        </main>
      ) : null}
      <main class="panes" hidden={!!(sourceId && diffWith && diffWith !== sourceId)}>
        <Timeline data={data} live={live} selected={selected} focusSeq={focusSeq} onSelect={select} sourceId={sourceId} />
        <section class="right">
          <div class="tabs" role="tablist">
            <button role="tab" aria-selected={tab === 'session'} onClick={() => setTab('session')}>Session</button>
            <button role="tab" aria-selected={tab === 'latency'} onClick={() => setTab('latency')}>Latency</button>
          </div>
          <div class="tabpanel">
            {sourceId && tab === 'session' ? <SessionPane sourceId={sourceId} data={data} selected={selected} onSelect={select} /> : null}
            {sourceId && tab === 'latency' ? <LatencyPane sourceId={sourceId} version={data.version + data.rows.length} onSelect={select} /> : null}
          </div>
          {sourceId && focusSeq !== undefined ? <FrameDetailPane sourceId={sourceId} seq={focusSeq} onSelect={select} rowVersion={data.rows[data.index.get(focusSeq) ?? -1]} /> : <div class="detail muted">Select a frame.</div>}
        </section>
      </main>
    </div>
  );
}

/** Filters + the virtualised list of frames. */
function Timeline(props: { data: Data; live: boolean; selected: Set<number>; focusSeq: number | undefined; onSelect: (seqs: number[], focus?: number) => void; sourceId: string | undefined }) {
  const { data, live, selected, focusSeq, onSelect, sourceId } = props;
  const [kinds, setKinds] = useState<Set<string>>(new Set(KINDS));
  const [method, setMethod] = useState('');
  const [session, setSession] = useState('');
  const [onlyViolations, setOnlyViolations] = useState(false);
  const [query, setQuery] = useState('');
  const [matches, setMatches] = useState<Set<number> | undefined>(undefined);
  const [expanded, setExpanded] = useState<Set<number>>(new Set());
  const { strings, rows } = data;

  // full-text search runs on the server (the page only holds summaries)
  useEffect(() => {
    if (!sourceId || query.trim() === '') {
      setMatches(undefined);
      return;
    }
    let stop = false;
    const timer = setTimeout(() => {
      void getJson<{ seqs: number[] }>(`api/s/${sourceId}/search?q=${encodeURIComponent(query)}`).then((r) => {
        if (!stop) setMatches(new Set(r.seqs));
      });
    }, 200);
    return () => {
      stop = true;
      clearTimeout(timer);
    };
  }, [query, sourceId, query && rows.length]);

  const methods = useMemo(() => {
    const s = new Set<number>();
    for (const r of rows) if (r[ROW.method] >= 0) s.add(r[ROW.method]);
    return [...s].map((i) => strings[i]!).sort();
  }, [data.version]);
  const sessions = useMemo(() => {
    const s = new Set<number>();
    for (const r of rows) if (r[ROW.session] >= 0) s.add(r[ROW.session]);
    return [...s].map((i) => strings[i]!);
  }, [data.version]);

  const display = useMemo(() => {
    const out: DisplayRow[] = [];
    const methodIdx = method === '' ? -2 : strings.indexOf(method);
    const sessionIdx = session === '' ? -2 : strings.indexOf(session);
    const allKinds = kinds.size === KINDS.length;
    let runGroup = -1;
    let run: DisplayRow | undefined;
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!;
      if (!allKinds && !kinds.has(strings[r[ROW.kind]]!)) continue;
      if (methodIdx !== -2 && r[ROW.method] !== methodIdx) continue;
      if (sessionIdx !== -2 && r[ROW.session] !== sessionIdx) continue;
      if (onlyViolations && r[ROW.violations] === 0) continue;
      if (matches && !matches.has(r[ROW.seq])) continue;
      const g = r[ROW.group];
      if (g >= 0 && g === runGroup && run && !expanded.has(rows[run.first]![ROW.seq])) {
        run.members.push(i);
        continue;
      }
      run = { first: i, members: [i] };
      runGroup = g;
      out.push(run);
    }
    return out;
  }, [data.version, kinds, method, session, onlyViolations, matches, expanded]);

  // the display row holding the focused frame: a binary search (display rows are in frame order)
  const activeIndex = useMemo(() => {
    if (focusSeq === undefined) return undefined;
    const ri = data.index.get(focusSeq);
    if (ri === undefined) return undefined;
    let lo = 0;
    let hi = display.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const d = display[mid]!;
      if (ri < d.first) hi = mid - 1;
      else if (ri > d.members[d.members.length - 1]!) lo = mid + 1;
      else return d.members.includes(ri) ? mid : undefined;
    }
    return undefined;
  }, [display, focusSeq, data.index]);

  const toggle = useCallback((d: DisplayRow) => {
    const seq = rows[d.first]![ROW.seq];
    setExpanded((cur) => {
      const n = new Set(cur);
      if (n.has(seq)) n.delete(seq);
      else n.add(seq);
      return n;
    });
  }, [rows]);
  const toggleKind = (k: string) =>
    setKinds((cur) => {
      const n = new Set(cur);
      if (n.has(k)) n.delete(k);
      else n.add(k);
      return n;
    });

  return (
    <section class="timeline" aria-label="Frames">
      <div class="filters">
        <fieldset>
          <legend class="sr-only">Kinds</legend>
          {KINDS.map((k) => (
            <label key={k} class="chip">
              <input type="checkbox" checked={kinds.has(k)} onChange={() => toggleKind(k)} data-testid={`kind-${k}`} /> {k}
            </label>
          ))}
        </fieldset>
        <select aria-label="Method" data-testid="method-filter" value={method} onChange={(e) => setMethod(e.currentTarget.value)}>
          <option value="">all methods</option>
          {methods.map((m) => <option key={m} value={m}>{m}</option>)}
        </select>
        <select aria-label="Session" value={session} onChange={(e) => setSession(e.currentTarget.value)}>
          <option value="">all sessions</option>
          {sessions.map((s) => <option key={s} value={s}>{s}</option>)}
        </select>
        <label class="chip">
          <input type="checkbox" checked={onlyViolations} onChange={() => setOnlyViolations(!onlyViolations)} /> violations only
        </label>
        <input type="search" placeholder="search frames…" aria-label="Search frames" data-testid="search" value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
        <span class="muted" data-testid="row-count">{display.length} rows · {rows.length} frames</span>
      </div>
      <div class="thead row-cells" aria-hidden="true">
        <span class="c-seq">seq</span><span class="c-t">time s</span><span class="c-dir">dir</span><span class="c-kind">kind</span><span class="c-method">method</span><span class="c-id">id</span><span class="c-size">size</span><span class="c-lat">ms</span><span class="c-viol" />
      </div>
      <RowList data={data} display={display} live={live} selected={selected} activeIndex={activeIndex} focusSeq={focusSeq} expanded={expanded} onSelect={onSelect} onToggle={toggle} />
    </section>
  );
}

/**
 * The virtualised timeline: one tall spacer, and inside it one absolutely positioned window that
 * holds only the rows in view (plus a few). Rows have a fixed height and fixed-width cells, so a
 * scroll step lays out a few dozen small boxes and nothing else; the scroll position lives here,
 * so scrolling re-renders the rows and not the filters.
 */
function RowList(props: { data: Data; display: DisplayRow[]; live: boolean; selected: Set<number>; activeIndex: number | undefined; focusSeq: number | undefined; expanded: Set<number>; onSelect: (seqs: number[], focus?: number) => void; onToggle: (d: DisplayRow) => void }) {
  const { data, display, live, selected, activeIndex, focusSeq, expanded, onSelect, onToggle } = props;
  const { strings, rows } = data;
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);
  const listRef = useRef<HTMLDivElement>(null);

  useLayoutEffect(() => {
    const el = listRef.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setHeight(el.clientHeight));
    ro.observe(el);
    setHeight(el.clientHeight);
    return () => ro.disconnect();
  }, []);

  // keep the focused frame in view (selection from the session view or the keyboard)
  useEffect(() => {
    const el = listRef.current;
    if (!el || activeIndex === undefined) return;
    const top = activeIndex * ROW_H;
    if (top < el.scrollTop || top + ROW_H > el.scrollTop + el.clientHeight) el.scrollTop = Math.max(0, top - el.clientHeight / 3);
    const row = el.querySelector<HTMLElement>(`[data-index="${activeIndex}"]`);
    if (row && el.contains(document.activeElement)) row.focus({ preventScroll: true });
  }, [activeIndex, focusSeq]);

  const start = Math.max(0, Math.floor(scrollTop / ROW_H) - OVERSCAN);
  const end = Math.min(display.length, Math.ceil((scrollTop + height) / ROW_H) + OVERSCAN);
  const seqsOf = (d: DisplayRow) => d.members.map((i) => rows[i]![ROW.seq]);

  const onKey = (e: KeyboardEvent) => {
    if (display.length === 0) return;
    let i = activeIndex ?? -1;
    if (e.key === 'ArrowDown') i = Math.min(display.length - 1, i + 1);
    else if (e.key === 'ArrowUp') i = Math.max(0, i - 1);
    else if (e.key === 'PageDown') i = Math.min(display.length - 1, i + Math.floor(height / ROW_H));
    else if (e.key === 'PageUp') i = Math.max(0, i - Math.floor(height / ROW_H));
    else if (e.key === 'Home') i = 0;
    else if (e.key === 'End') i = display.length - 1;
    else if ((e.key === 'Enter' || e.key === ' ') && i >= 0 && display[i]!.members.length > 1) {
      onToggle(display[i]!);
      e.preventDefault();
      return;
    } else return;
    e.preventDefault();
    const d = display[i]!;
    onSelect(seqsOf(d), rows[d.first]![ROW.seq]);
  };
  // one listener for every row (rows come and go while scrolling)
  const onClick = (e: MouseEvent) => {
    const t = e.target;
    if (!(t instanceof Element)) return;
    const rowEl = t.closest<HTMLElement>('[data-index]');
    if (!rowEl) return;
    const d = display[Number(rowEl.dataset.index)];
    if (!d) return;
    if (t.closest('button.run')) onToggle(d);
    else onSelect(seqsOf(d), rows[d.first]![ROW.seq]);
  };

  const visible: preact.JSX.Element[] = [];
  for (let i = start; i < end; i++) {
    const d = display[i]!;
    const r = rows[d.first]!;
    const seq = r[ROW.seq];
    const n = d.members.length;
    let isSel = false;
    let viol = 0;
    let size = 0;
    for (const x of d.members) {
      const m = rows[x]!;
      if (!isSel && selected.has(m[ROW.seq])) isSel = true;
      viol += m[ROW.violations];
      size += m[ROW.size];
    }
    const growing = n > 1 && live && !data.finished && i === display.length - 1;
    const kind = strings[r[ROW.kind]]!;
    const upd = r[ROW.update] >= 0 ? strings[r[ROW.update]] : undefined;
    visible.push(
      <div
        key={i}
        id={`row-${seq}`}
        data-index={i}
        data-seq={seq}
        data-testid="timeline-row"
        role="option"
        aria-selected={isSel}
        tabIndex={i === (activeIndex ?? 0) ? 0 : -1}
        class={`row row-cells kind-${kind}${isSel ? ' selected' : ''}${viol ? ' has-violation' : ''}`}
      >
        <span class="c-seq">{seq}</span>
        <span class="c-t">{fmtT(r[ROW.t])}</span>
        <span class={`c-dir dir-${r[ROW.dir]}`} title={r[ROW.dir] === 0 ? 'editor → agent' : 'agent → editor'}>{r[ROW.dir] === 0 ? 'E→A' : 'A→E'}</span>
        <span class="c-kind">{kind}</span>
        <span class="c-method">
          {n > 1 ? (
            <button class="run" aria-expanded={false} title="expand the run">×{n}</button>
          ) : expandedFirst(d, rows, expanded) ? (
            <button class="run" aria-expanded title="collapse the run">−</button>
          ) : null}
          {growing ? <span class="live-dot" data-testid="live-run" title="still streaming">●</span> : null}
          {r[ROW.method] >= 0 ? strings[r[ROW.method]] : ''}
          {upd ? <span class="upd"> {upd}</span> : null}
        </span>
        <span class="c-id">{r[ROW.id] >= 0 ? strings[r[ROW.id]] : ''}</span>
        <span class="c-size">{fmtSize(size)}</span>
        <span class="c-lat">{fmtMs(r[ROW.latency])}</span>
        <span class="c-viol">{viol ? <span class="badge violation" data-testid="violation-badge" title={`${viol} violation(s)`}>⚠ {viol}</span> : null}</span>
      </div>,
    );
  }

  return (
    <div
      class="list"
      ref={listRef}
      role="listbox"
      aria-label="Timeline"
      aria-multiselectable="true"
      tabIndex={-1}
      data-testid="timeline"
      onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
      onKeyDown={onKey}
      onClick={onClick}
    >
      <div class="spacer" style={{ height: `${display.length * ROW_H}px` }}>
        <div class="window" style={{ transform: `translateY(${start * ROW_H}px)` }}>{visible}</div>
      </div>
    </div>
  );
}

function expandedFirst(d: DisplayRow, rows: RowTuple[], expanded: Set<number>): boolean {
  return d.members.length === 1 && expanded.has(rows[d.first]![ROW.seq]);
}

/** Raw JSON + tree, with schema marks and violations. */
function FrameDetailPane(props: { sourceId: string; seq: number; onSelect: (seqs: number[], focus?: number) => void; rowVersion: unknown }) {
  const { sourceId, seq, onSelect } = props;
  const [d, setD] = useState<FrameDetail | undefined>(undefined);
  const [view, setView] = useState<'tree' | 'raw'>('tree');
  useEffect(() => {
    let stop = false;
    void getJson<FrameDetail>(`api/s/${sourceId}/frame/${seq}`).then((r) => {
      if (!stop) setD(r);
    });
    return () => {
      stop = true;
    };
  }, [sourceId, seq, props.rowVersion]);
  if (!d || d.frame.seq !== seq) return <div class="detail muted">Loading frame {seq}…</div>;
  const f = d.frame;
  const pretty = d.json === undefined ? f.raw : JSON.stringify(d.json, null, 2);
  return (
    <section class="detail" aria-label={`Frame ${f.seq}`} data-testid="frame-detail">
      <h2>
        Frame {f.seq} <span class="muted">{f.dir} · {f.kind} {f.method ?? ''} {f.id !== undefined ? `id ${JSON.stringify(f.id)}` : ''} · t {fmtT(f.t)} s</span>
        {d.pair !== undefined ? (
          <button class="link" onClick={() => onSelect([f.seq, d.pair!], d.pair)}>
            {f.kind === 'request' ? 'answer' : 'request'}: #{d.pair}{d.latency !== undefined ? ` (${fmtMs(d.latency)} ms)` : ''}
          </button>
        ) : null}
      </h2>
      {d.violations.length > 0 ? (
        <ul class="violations" data-testid="violations">
          {d.violations.map((v, i) => (
            <li key={i} class="violation">
              <span class="badge violation">{v.requirement}</span> <span class="muted">[{v.rule}]</span> {v.message}{' '}
              {v.seqs.length > 1 ? <button class="link" onClick={() => onSelect(v.seqs, v.seqs[0])}>frames {v.seqs.join(', ')}</button> : null}
            </li>
          ))}
        </ul>
      ) : null}
      {d.marks.undeclared.length > 0 ? <p class="marks">Not in the v{d.protocolVersion} schema: {d.marks.undeclared.map((p) => <code key={p} class="badge undeclared">{p}</code>)}</p> : null}
      {d.marks.meta.length > 0 ? <p class="marks">_meta: {d.marks.meta.map((p) => <code key={p} class="badge meta">{p}</code>)}</p> : null}
      <div class="tabs" role="tablist">
        <button role="tab" aria-selected={view === 'tree'} onClick={() => setView('tree')}>Tree</button>
        <button role="tab" aria-selected={view === 'raw'} onClick={() => setView('raw')}>Raw</button>
      </div>
      {view === 'raw' || d.json === undefined ? <pre class="raw">{pretty}</pre> : <div class="tree"><Tree value={d.json} path="" marks={d.marks} depth={0} /></div>}
    </section>
  );
}

function Tree(props: { value: unknown; path: string; marks: FrameDetail['marks']; depth: number; name?: string; changed?: Set<string> }) {
  const { value, path, marks, depth, name, changed } = props;
  const label = name !== undefined ? (
    <span class={`key${changed?.has(path) ? ' changed' : ''}`} data-changed={changed?.has(path) ? path : undefined}>
      {name}
      {marks.undeclared.includes(path) ? <span class="badge undeclared" title="the schema does not declare this field">not in schema</span> : null}
      {marks.meta.includes(path) ? <span class="badge meta">_meta</span> : null}:{' '}
    </span>
  ) : null;
  if (value === null || typeof value !== 'object') {
    return <div class="leaf">{label}<span class={`v-${value === null ? 'null' : typeof value}`}>{JSON.stringify(value)}</span></div>;
  }
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  const sub = (k: string) => (Array.isArray(value) ? `${path}[${k}]` : path ? `${path}.${k}` : k);
  return (
    <details open={depth < 4}>
      <summary>{label}<span class="muted">{Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`}</span></summary>
      <div class="children">
        {entries.map(([k, v]) => <Tree key={k} name={k} value={v} path={sub(k)} marks={marks} depth={depth + 1} changed={changed} />)}
      </div>
    </details>
  );
}

/** The conversation rebuilt from the frames, with a replay scrubber. */
function SessionPane(props: { sourceId: string; data: Data; selected: Set<number>; onSelect: (seqs: number[], focus?: number) => void }) {
  const { sourceId, data, selected, onSelect } = props;
  const total = data.rows.length;
  const [pos, setPos] = useState<number | undefined>(undefined); // undefined = follow the end
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState(4);
  const [sessions, setSessions] = useState<SessionView[]>([]);
  const at = pos === undefined ? total : Math.min(pos, total);
  const uptoSeq = pos === undefined || at >= total ? undefined : at === 0 ? 0 : data.rows[at - 1]![ROW.seq];
  const inflight = useRef(false);
  const wanted = useRef<string>('');
  const [again, setAgain] = useState(0);

  useEffect(() => {
    // the timeline paints first: the session (a bigger answer) is asked for once the frames are in
    // the whole session is asked for once every frame is analyzed (a replay position needs only frames)
    if (data.version === 0 || (uptoSeq === undefined && !data.analysisComplete)) return;
    const q = uptoSeq === undefined ? '' : `?upto=${uptoSeq}`;
    const key = `${sourceId}${q}#${uptoSeq === undefined ? data.version : ''}`;
    wanted.current = key;
    const load = () => {
      if (inflight.current) return;
      inflight.current = true;
      void getJson<{ sessions: SessionView[] }>(`api/s/${sourceId}/sessions${q}`).then((r) => {
        inflight.current = false;
        setSessions(r.sessions);
        // a newer position was asked for while this one loaded
        if (wanted.current !== key) setAgain((x) => x + 1);
      }, () => {
        inflight.current = false;
      });
    };
    const timer = setTimeout(load, uptoSeq === undefined ? 100 : 0);
    return () => clearTimeout(timer);
  }, [sourceId, uptoSeq, uptoSeq === undefined ? data.version : 0, data.analysisComplete, again]);

  // play: advance through capture time at `speed`
  useEffect(() => {
    if (!playing) return;
    const tick = 100;
    const timer = setInterval(() => {
      setPos((cur) => {
        const i = cur === undefined ? 0 : cur;
        if (i >= total) {
          setPlaying(false);
          return undefined;
        }
        const tNow = i === 0 ? 0 : data.rows[i - 1]![ROW.t];
        const target = tNow + tick * speed;
        let j = i + 1;
        while (j < total && data.rows[j]![ROW.t] <= target) j++;
        return Math.min(j, total);
      });
    }, tick);
    return () => clearInterval(timer);
  }, [playing, speed, total]);

  const chosenRef = useRef<HTMLDivElement>(null);
  // reverse selection: bring the first item built by the selected frame into view
  useEffect(() => {
    const el = chosenRef.current?.querySelector<HTMLElement>('.item.selected');
    el?.scrollIntoView({ block: 'nearest' });
  }, [selected]);

  return (
    <div class="session" ref={chosenRef}>
      <div class="scrubber" aria-label="Replay">
        <button onClick={() => { if (!playing && (pos === undefined || pos >= total)) setPos(0); setPlaying(!playing); }} aria-label={playing ? 'Pause' : 'Play'} data-testid="play">{playing ? '❚❚' : '▶'}</button>
        <label>
          speed{' '}
          <select value={String(speed)} onChange={(e) => setSpeed(Number(e.currentTarget.value))} aria-label="Replay speed">
            {[1, 4, 16, 64, 256].map((s) => <option key={s} value={String(s)}>{s}×</option>)}
          </select>
        </label>
        <input type="range" min={0} max={total} value={at} aria-label="Replay position (frames)" data-testid="scrubber" onInput={(e) => { setPlaying(false); const v = Number(e.currentTarget.value); setPos(v >= total ? undefined : v); }} />
        <span class="muted" data-testid="scrub-label">{pos === undefined ? `all ${total} frames` : `frame ${at} / ${total}`}</span>
        {pos !== undefined ? <button class="link" onClick={() => { setPlaying(false); setPos(undefined); }}>end</button> : null}
      </div>
      {sessions.length === 0 ? <p class="muted">No session yet.</p> : null}
      {sessions.map((s) => <SessionBlock key={s.sessionId} s={s} selected={selected} onSelect={onSelect} />)}
    </div>
  );
}

function SessionBlock(props: { s: SessionView; selected: Set<number>; onSelect: (seqs: number[], focus?: number) => void }) {
  const { s, selected, onSelect } = props;
  const terminals = new Map(s.terminals.map((t) => [t.terminalId, t]));
  const clientTerminals = new Map(s.clientTerminals.map((t) => [t.terminalId, t]));
  const last = s.foreground[s.foreground.length - 1];
  // a long capture builds thousands of items: render a window of them (follows the end, or the selection)
  const [anchor, setAnchor] = useState<number | undefined>(undefined);
  const selIdx = selected.size === 0 ? -1 : s.items.findIndex((it) => it.seqs.some((x) => selected.has(x)));
  let from = anchor ?? Math.max(0, s.items.length - ITEM_WINDOW);
  if (selIdx >= 0 && (selIdx < from || selIdx >= from + ITEM_WINDOW)) from = Math.max(0, selIdx - ITEM_WINDOW / 2);
  const to = Math.min(s.items.length, from + ITEM_WINDOW);
  return (
    <article class="session-block" aria-label={`Session ${s.sessionId}`}>
      <header>
        <h2>{s.title ?? 'Session'} <code class="muted">{s.sessionId}</code> <span class="badge">v{s.protocolVersion}</span></h2>
        <div class="fg" data-testid="foreground">
          state: <strong class={`state-${last?.state ?? 'idle'}`}>{last?.state ?? 'idle'}</strong>
          {last?.stopReason ? <span class="muted"> ({last.stopReason})</span> : null}
          {s.usage ? <span class="usage"> · context {s.usage.used.toLocaleString()} / {s.usage.size.toLocaleString()} tokens{s.usage.cost ? ` · ${s.usage.cost.amount.toFixed(4)} ${s.usage.cost.currency}` : ''}</span> : null}
        </div>
        {s.foreground.length > 0 ? (
          <ol class="fg-strip" aria-label="Foreground state over time">
            {s.foreground.map((f, i) => (
              <li key={i}>
                <button class={`chip state-${f.state}`} onClick={() => onSelect([f.seq], f.seq)} title={`frame ${f.seq}, t ${fmtT(f.t)} s`}>
                  {f.state}{f.stopReason ? `: ${f.stopReason}` : ''}
                </button>
              </li>
            ))}
          </ol>
        ) : null}
      </header>
      {from > 0 ? <button class="link" onClick={() => setAnchor(Math.max(0, from - ITEM_WINDOW))}>▲ {from} earlier items</button> : null}
      {s.items.slice(from, to).map((it) => {
        const isSel = it.seqs.some((x) => selected.has(x));
        return (
          <div
            key={it.key}
            class={`item item-${it.kind}${it.kind === 'message' ? ` role-${String(it.role)}` : ''}${isSel ? ' selected' : ''}`}
            data-testid={`item-${it.kind}`}
            data-key={it.key}
            tabIndex={0}
            role="button"
            aria-pressed={isSel}
            onClick={(e) => { if (e.target instanceof Element && e.target.closest('a,summary,button')) return; onSelect(it.seqs, it.seqs[0]); }}
            onKeyDown={(e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); onSelect(it.seqs, it.seqs[0]); } }}
          >
            <Item it={it} terminals={terminals} clientTerminals={clientTerminals} />
            <span class="frames muted">{it.seqs.length} frame{it.seqs.length === 1 ? '' : 's'}</span>
          </div>
        );
      })}
      {to < s.items.length ? <button class="link" onClick={() => setAnchor(to + ITEM_WINDOW >= s.items.length ? undefined : to)}>▼ {s.items.length - to} later items</button> : null}
      {s.terminals.length > 0 ? <h3>Terminals</h3> : null}
      {s.terminals.map((t) => (
        <div key={t.terminalId} class={`item item-terminal${t.seqs.some((x) => selected.has(x)) ? ' selected' : ''}`} tabIndex={0} role="button" onClick={() => onSelect(t.seqs, t.seqs[0])}>
          <div class="label">terminal <code>{t.terminalId}</code> {String(t.command ?? '')}</div>
          <pre class="term">{t.outputText}</pre>
        </div>
      ))}
      {s.decodeErrors.length > 0 ? (
        <ul class="violations">{s.decodeErrors.map((e) => <li key={e.seq} class="violation"><button class="link" onClick={() => onSelect([e.seq], e.seq)}>frame {e.seq}</button>: could not decode: {e.message}</li>)}</ul>
      ) : null}
    </article>
  );
}

type AnyRec = Record<string, unknown>;

/** `v` when it is a JSON object: the page shows whatever a capture holds, well-formed or not. */
function rec(v: unknown): AnyRec | undefined {
  return isRec(v) ? v : undefined;
}

function isRec(v: unknown): v is AnyRec {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The elements of `v` when it is an array, else none. */
function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function Markdown(props: { text: string }) {
  const html = useMemo(() => renderMarkdown(props.text), [props.text]);
  return <div class="md" dangerouslySetInnerHTML={{ __html: html }} />;
}

function Blocks(props: { blocks: unknown }) {
  // consecutive text blocks are one text (chunks split words anywhere)
  const parts: Array<{ text: string } | { block: AnyRec | undefined }> = [];
  for (const b of list(props.blocks).map(rec)) {
    if (b?.type === 'text' && typeof b.text === 'string') {
      const last = parts[parts.length - 1];
      if (last && 'text' in last) last.text += b.text;
      else parts.push({ text: b.text });
    } else parts.push({ block: b });
  }
  return (
    <div class="blocks">
      {parts.map((p, i) =>
        'text' in p ? (
          <Markdown key={i} text={p.text} />
        ) : (
          <div key={i} class="block-other"><span class="badge">{String(p.block?.type)}</span> {String(p.block?.uri ?? p.block?.name ?? p.block?.mimeType ?? '')}</div>
        ),
      )}
    </div>
  );
}

function Item(props: { it: SessionItem; terminals: Map<string, TerminalItem>; clientTerminals: Map<string, ClientTerminalView> }) {
  const { it } = props;
  if (it.kind === 'message') {
    const role = String(it.role);
    if (role === 'thought') {
      return (
        <details class="thought">
          <summary>Thought</summary>
          <Blocks blocks={it.content} />
        </details>
      );
    }
    return (
      <>
        <div class="label">{role === 'user' ? 'User' : 'Agent'}</div>
        <Blocks blocks={it.content} />
      </>
    );
  }
  if (it.kind === 'tool_call') {
    const content = list(it.content);
    return (
      <>
        <div class="label">
          <span class="badge">{String(it.toolKind)}</span> {String(it.title ?? it.name ?? it.toolCallId)}{' '}
          <span class={`badge status status-${String(it.status)}`} data-testid="tool-status">{String(it.status)}</span>
        </div>
        {content.map((raw, i) => {
          const c = rec(raw);
          if (!c) return <pre key={i} class="raw">{JSON.stringify(raw, null, 2)}</pre>;
          // Markdown, as an editor shows it: agents fence file text and command output in it
          if (c.type === 'content') return <Blocks key={i} blocks={[c.content]} />;
          if (c.type === 'diff') return <TextDiff key={i} path={String(c.path)} oldText={typeof c.oldText === 'string' ? c.oldText : ''} newText={String(c.newText ?? '')} />;
          if (c.type === 'file_changes') {
            const text = rec(c.patch)?.text;
            const patch = typeof text === 'string' ? text : undefined;
            return (
              <div key={i} class="diff">
                {list(c.changes).map(rec).map((ch, j) => <div key={j}><span class="badge">{String(ch?.operation)}</span> <code>{String(ch?.path)}</code></div>)}
                {patch ? <pre class="patch">{patch.split('\n').map((l, j) => <span key={j} class={l.startsWith('+') && !l.startsWith('+++') ? 'add' : l.startsWith('-') && !l.startsWith('---') ? 'del' : ''}>{l}{'\n'}</span>)}</pre> : null}
              </div>
            );
          }
          if (c.type === 'terminal') {
            const id = String(c.terminalId);
            const t = props.terminals.get(id);
            const ct = props.clientTerminals.get(id);
            return <div key={i}><div class="muted">terminal {id} {ct?.command ?? String(t?.command ?? '')}</div><pre class="term">{t?.outputText ?? ct?.output ?? ''}</pre></div>;
          }
          return <pre key={i} class="raw">{JSON.stringify(c, null, 2)}</pre>;
        })}
        {it.rawInput !== undefined ? <details><summary>input</summary><pre class="raw">{JSON.stringify(it.rawInput, null, 2)}</pre></details> : null}
        {it.rawOutput !== undefined ? <details><summary>output</summary><pre class="raw">{JSON.stringify(it.rawOutput, null, 2)}</pre></details> : null}
      </>
    );
  }
  if (it.kind === 'plan') {
    const entries = list(rec(it.plan)?.entries).map(rec);
    return (
      <>
        <div class="label">Plan</div>
        <ul class="plan">{entries.map((e, i) => <li key={i} class={`plan-${String(e?.status)}`}><span class="badge">{String(e?.status)}</span> {String(e?.content)}</li>)}</ul>
      </>
    );
  }
  if (it.kind === 'permission') {
    return (
      <>
        <div class="label">Permission: {it.title} <span class="badge" data-testid="permission-outcome">{it.outcome}</span></div>
        <ul class="options">
          {it.options.map((o) => (
            <li key={o.optionId} class={o.optionId === it.optionId ? 'chosen' : ''}>{o.optionId === it.optionId ? '✓ ' : ''}{o.name} <span class="muted">({o.kind})</span></li>
          ))}
        </ul>
      </>
    );
  }
  if (it.kind === 'compaction') {
    return (
      <>
        <div class="label">Compaction <span class="badge">{String(it.status)}</span></div>
        <Blocks blocks={it.summary} />
      </>
    );
  }
  return <pre class="raw">{JSON.stringify(it, null, 2)}</pre>;
}

function TextDiff(props: { path: string; oldText: string; newText: string }) {
  const parts = useMemo(() => diffLines(props.oldText, props.newText), [props.oldText, props.newText]);
  return (
    <div class="diff">
      <div><code>{props.path}</code></div>
      <pre class="patch">
        {parts.map((p, i) => {
          const sign = p.added ? '+' : p.removed ? '-' : ' ';
          const lines = p.value.replace(/\n$/, '').split('\n');
          return <span key={i} class={p.added ? 'add' : p.removed ? 'del' : ''}>{lines.map((l) => `${sign}${l}\n`).join('')}</span>;
        })}
      </pre>
    </div>
  );
}

/** Per-method latency and a waterfall of requests over time. */
function LatencyPane(props: { sourceId: string; version: number; onSelect: (seqs: number[], focus?: number) => void }) {
  const [d, setD] = useState<{ spans: RequestSpan[]; table: MethodLatency[] } | undefined>(undefined);
  useEffect(() => {
    let stop = false;
    const timer = setTimeout(() => void getJson<{ spans: RequestSpan[]; table: MethodLatency[] }>(`api/s/${props.sourceId}/latency`).then((r) => { if (!stop) setD(r); }), 150);
    return () => {
      stop = true;
      clearTimeout(timer);
    };
  }, [props.sourceId, props.version]);
  if (!d) return <p class="muted">Loading…</p>;
  const MAX = 500;
  const spans = d.spans.slice(0, MAX);
  const end = Math.max(1, ...spans.map((s) => s.start + (s.latency ?? 0)));
  return (
    <div class="latency">
      <table data-testid="latency-table">
        <thead><tr><th scope="col">method</th><th scope="col">count</th><th scope="col">p50 ms</th><th scope="col">p99 ms</th><th scope="col">max ms</th><th scope="col">open</th></tr></thead>
        <tbody>
          {d.table.map((m) => <tr key={m.method}><td>{m.method}</td><td>{m.count}</td><td>{fmtMs(m.p50)}</td><td>{fmtMs(m.p99)}</td><td>{fmtMs(m.max)}</td><td>{m.open || ''}</td></tr>)}
        </tbody>
      </table>
      <h3>Waterfall{d.spans.length > MAX ? ` (first ${MAX} of ${d.spans.length})` : ''}</h3>
      <div class="waterfall" role="list">
        {spans.map((s) => (
          <div key={s.seq} class="wf-row" role="listitem">
            <button class="link wf-label" onClick={() => props.onSelect(s.answerSeq !== undefined ? [s.seq, s.answerSeq] : [s.seq], s.seq)}>#{s.seq} {s.method}</button>
            <div class="wf-track">
              <div class={`wf-bar${s.error ? ' error' : ''}${s.latency === undefined ? ' open' : ''}`} style={{ left: `${(s.start / end) * 100}%`, width: `${Math.max(0.3, ((s.latency ?? end - s.start) / end) * 100)}%` }} title={`${fmtMs(s.latency)} ms`} />
            </div>
            <span class="wf-ms">{s.latency === undefined ? 'open' : fmtMs(s.latency)}</span>
          </div>
        ))}
      </div>
    </div>
  );
}

/** `#diff=<a>,<b>`: the two source ids to compare (set by `acp-kit inspect A B --diff`). */
function diffFromHash(): { a: string; b: string } | undefined {
  const m = /^#diff=([^,]+),(.+)$/.exec(location.hash);
  return m ? { a: decodeURIComponent(m[1]!), b: decodeURIComponent(m[2]!) } : undefined;
}

function fmtValue(v: unknown): string {
  if (v === undefined) return '(absent)';
  const s = JSON.stringify(v);
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
}

function refLabel(r: DiffFrameRef): string {
  return `#${r.seq} ${r.dir === 'editor->agent' ? 'E→A' : 'A→E'} ${r.kind}${r.method ? ` ${r.method}` : ''}`;
}

/**
 * Two sources compared (diffCaptures): versions, capabilities, latency deltas, then the
 * differences in capture order: aligned frames side by side with their differing fields, and the
 * runs of frames only one side has.
 */
function DiffView(props: { a: SourceInfo | undefined; b: SourceInfo | undefined; onClose: () => void }) {
  const { a, b } = props;
  const [d, setD] = useState<CaptureDiff | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    if (!a || !b) return;
    let stop = false;
    setError(undefined);
    getJson<CaptureDiff>(`api/diff?a=${encodeURIComponent(a.id)}&b=${encodeURIComponent(b.id)}`).then(
      (r) => { if (!stop) setD(r); },
      (e: Error) => { if (!stop) setError(e.message); },
    );
    return () => {
      stop = true;
    };
  }, [a?.id, b?.id, a?.frames, b?.frames]);
  if (!a || !b) return <p class="muted">Pick two sources.</p>;
  return (
    <section class="diff-view" aria-label={`Diff of ${a.name} and ${b.name}`} data-testid="diff-view">
      <header class="diff-head">
        <h2>Diff <span class="del-fg">A: {a.name}</span> ↔ <span class="add-fg">B: {b.name}</span></h2>
        <button onClick={props.onClose}>close diff</button>
      </header>
      {error ? <p class="violation">Could not compare: {error}</p> : null}
      {!d ? <p class="muted">Comparing…</p> : (
        <>
          <p data-testid="diff-summary">
            {d.equal ? <span class="badge status-completed">equal</span> : <span class="badge violation">different</span>}{' '}
            {d.summary.aligned} aligned frames, {d.summary.changed} changed, {d.summary.removed} only in A, {d.summary.added} only in B
            <span class="muted"> (alignment: {d.alignment}; A {d.a.frames} frames, B {d.b.frames} frames)</span>
          </p>
          <table class="diff-table" data-testid="diff-versions">
            <thead><tr><th scope="col" /><th scope="col">A</th><th scope="col">B</th></tr></thead>
            <tbody>
              <tr class={d.versionsEqual ? '' : 'changed'}><th scope="row">protocol version offered</th><td>{String(d.a.version.offered)}</td><td>{String(d.b.version.offered)}</td></tr>
              <tr class={d.versionsEqual ? '' : 'changed'}><th scope="row">protocol version negotiated</th><td>{String(d.a.version.negotiated)}</td><td>{String(d.b.version.negotiated)}</td></tr>
              {d.capabilities.map((c) => <tr key={c.path} class="changed" data-testid="diff-capability"><th scope="row"><code>{c.path}</code></th><td class="del">{fmtValue(c.a)}</td><td class="add">{fmtValue(c.b)}</td></tr>)}
            </tbody>
          </table>
          {d.latency.length > 0 ? (
            <table class="diff-table" data-testid="diff-latency">
              <thead><tr><th scope="col">method</th><th scope="col">dir</th><th scope="col">A count · p50 ms</th><th scope="col">B count · p50 ms</th><th scope="col">Δ p50 ms</th></tr></thead>
              <tbody>
                {d.latency.map((l) => (
                  <tr key={`${l.dir} ${l.method}`}>
                    <td>{l.method}</td><td>{l.dir === 'editor->agent' ? 'E→A' : 'A→E'}</td>
                    <td>{l.a ? `${l.a.count} · ${fmtMs(l.a.p50)}` : '–'}</td><td>{l.b ? `${l.b.count} · ${fmtMs(l.b.p50)}` : '–'}</td>
                    <td class={l.deltaP50Ms === null ? '' : l.deltaP50Ms > 0 ? 'del-fg' : 'add-fg'}>{l.deltaP50Ms === null ? '' : `${l.deltaP50Ms > 0 ? '+' : l.deltaP50Ms < 0 ? '−' : ''}${fmtMs(Math.abs(l.deltaP50Ms))}`}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
          <h3>Differences{d.truncated ? ` (first ${d.differences.length}; ${d.truncated} more not listed)` : ''}</h3>
          {d.differences.length === 0 ? <p class="muted">No frame differences (timing never counts).</p> : null}
          <ol class="diff-entries">
            {d.differences.map((e, i) => <DiffEntryView key={i} e={e} a={a.id} b={b.id} />)}
          </ol>
        </>
      )}
    </section>
  );
}

function DiffEntryView(props: { e: DiffEntry; a: string; b: string }) {
  const { e } = props;
  const [open, setOpen] = useState(false);
  if (e.type !== 'changed') {
    const side = e.type === 'removed' ? 'A' : 'B';
    return (
      <li class={`diff-entry ${e.type}`} data-testid={`diff-${e.type}`}>
        <span class={`badge ${e.type === 'removed' ? 'del-fg' : 'add-fg'}`}>{e.type === 'removed' ? '−' : '+'} {e.count} frame{e.count === 1 ? '' : 's'} only in {side}</span>{' '}
        {refLabel(e.first)}{e.count > 1 ? ` … ${refLabel(e.last)}` : ''} <span class="muted">(after #{e.afterOtherSeq} of {side === 'A' ? 'B' : 'A'})</span>
      </li>
    );
  }
  return (
    <li class="diff-entry changed" data-testid="diff-changed">
      <div class="diff-pair">
        <div class="del-fg">A {refLabel(e.a)}</div>
        <div class="add-fg">B {refLabel(e.b)}</div>
      </div>
      <table class="diff-table fields">
        <tbody>
          {e.fields.map((f) => (
            <tr key={f.path} data-testid="diff-field">
              <th scope="row"><code>{f.path}</code></th>
              <td class="del">{fmtValue(f.a)}</td>
              <td class="add">{fmtValue(f.b)}</td>
            </tr>
          ))}
          {e.moreFields ? <tr><td colSpan={3} class="muted">{e.moreFields} more fields differ</td></tr> : null}
        </tbody>
      </table>
      <button class="link" aria-expanded={open} onClick={() => setOpen(!open)}>{open ? 'hide frames' : 'show both frames'}</button>
      {open ? (
        <div class="diff-pair frames">
          <DiffFrame source={props.a} seq={e.a.seq} changed={new Set(e.fields.map((f) => f.path))} />
          <DiffFrame source={props.b} seq={e.b.seq} changed={new Set(e.fields.map((f) => f.path))} />
        </div>
      ) : null}
    </li>
  );
}

/** One side of an aligned pair: the frame's tree, the differing fields highlighted. */
function DiffFrame(props: { source: string; seq: number; changed: Set<string> }) {
  const [d, setD] = useState<FrameDetail | undefined>(undefined);
  useEffect(() => {
    let stop = false;
    void getJson<FrameDetail>(`api/s/${props.source}/frame/${props.seq}`).then((r) => { if (!stop) setD(r); });
    return () => {
      stop = true;
    };
  }, [props.source, props.seq]);
  if (!d) return <div class="muted">Loading frame {props.seq}…</div>;
  return <div class="tree">{d.json === undefined ? <pre class="raw">{d.frame.raw}</pre> : <Tree value={d.json} path="" marks={{ undeclared: [], meta: [] }} depth={0} changed={props.changed} />}</div>;
}

render(<App />, document.getElementById('app')!);
