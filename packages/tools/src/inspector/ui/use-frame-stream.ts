import { useEffect, useState } from 'preact/hooks';
import type { SourceInfo } from './api.js';
import { emptyData, type Data, type RowsEvent } from './data.js';

/**
 * Time the page spends taking in stream events per animation frame. A page of 5,000 rows costs
 * a few ms to parse and copy; past this budget the rest waits for the next frame, so a burst of
 * pages (a finished 100k-frame capture arrives as 20) never becomes one long task.
 */
const APPLY_SLICE_MS = 8;

/** Applies one stream event to `d` in place (the store and string table grow). */
function applyEvent(d: Data, e: RowsEvent): Data {
  for (const s of e.strings) d.strings.push(s);
  for (const r of e.changed) d.store.change(r);
  for (const r of e.rows) d.store.put(r);
  const finished = d.finished || e.finished === true;
  const analysisComplete = e.analysisComplete ?? d.analysisComplete;
  return finished === d.finished && analysisComplete === d.analysisComplete ? d : { ...d, finished, analysisComplete };
}

/**
 * The frames of one source: one stream for every source. A saved capture is indexed while it
 * streams, a live one grows. Events are queued as they arrive, unparsed, and taken in once per
 * animation frame within {@link APPLY_SLICE_MS}: the first page paints while later ones are still
 * on their way, and no update blocks the page for long. A source id not in `sources` opens no stream.
 */
export function useFrameStream(sourceId: string | undefined, sources: SourceInfo[]): Data {
  const [data, setData] = useState<Data>(emptyData);
  useEffect(() => {
    if (!sourceId) return;
    setData(emptyData());
    if (!sources.some((s) => s.id === sourceId)) return;
    let d = emptyData();
    let queued: string[] = [];
    let next = 0;
    let raf = 0;
    const apply = (): void => {
      raf = 0;
      const until = performance.now() + APPLY_SLICE_MS;
      for (let n = 0; next < queued.length && (n === 0 || performance.now() < until); n++) {
        const raw = queued[next++];
        // our own server's event stream (src/inspector/server.ts): its shape is trusted, not re-checked per row
        if (raw !== undefined) d = applyEvent(d, JSON.parse(raw) as RowsEvent);
      }
      if (next === queued.length) {
        queued = [];
        next = 0;
      } else raf = requestAnimationFrame(apply);
      d = { ...d, version: d.version + 1 };
      setData(d);
    };
    const es = new EventSource(`api/s/${sourceId}/events`);
    es.addEventListener('snapshot', (ev: MessageEvent<string>) => {
      // our own server's event stream, as above
      const r = JSON.parse(ev.data) as { strings: string[]; finished: boolean; analysisComplete: boolean };
      // a reconnect starts over: the snapshot is followed by every row again
      queued = [];
      next = 0;
      d = { ...emptyData(), strings: r.strings, finished: r.finished, analysisComplete: r.analysisComplete };
      raf ||= requestAnimationFrame(apply);
    });
    es.addEventListener('rows', (ev: MessageEvent<string>) => {
      queued.push(ev.data);
      raf ||= requestAnimationFrame(apply);
    });
    return () => {
      es.close();
      if (raf) cancelAnimationFrame(raf);
    };
    // the list is polled: only its first arrival (not every poll) reopens the stream
    // (deliberately not every dependency: a hooks linter would ask for `sources`)
  }, [sourceId, sources.length > 0]);
  return data;
}
