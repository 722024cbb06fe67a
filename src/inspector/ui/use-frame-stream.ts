import { useEffect, useState } from 'preact/hooks';
import { ROW, type SourceInfo } from './api.js';
import { emptyData, type Data, type RowsEvent } from './data.js';

/** Applies queued stream events to `d` in place; returns the new state object for the page. */
function applyEvents(d: Data, batch: RowsEvent[]): Data {
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
  return { ...d, finished, analysisComplete, version: d.version + 1 };
}

/**
 * The frames of one source: one stream for every source. A saved capture is indexed while it
 * streams, a live one grows; rows arrive in pages and are applied once per animation frame, so
 * the first page paints while later ones are still parsed and no single update blocks the page
 * for long. A source id not in `sources` opens no stream.
 */
export function useFrameStream(sourceId: string | undefined, sources: SourceInfo[]): Data {
  const [data, setData] = useState<Data>(emptyData);
  useEffect(() => {
    if (!sourceId) return;
    setData(emptyData());
    if (!sources.some((s) => s.id === sourceId)) return;
    let d = emptyData();
    let queued: RowsEvent[] = [];
    let raf = 0;
    const apply = (): void => {
      raf = 0;
      const batch = queued;
      queued = [];
      d = applyEvents(d, batch);
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
    // the list is polled: only its first arrival (not every poll) reopens the stream
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [sourceId, sources.length > 0]);
  return data;
}
