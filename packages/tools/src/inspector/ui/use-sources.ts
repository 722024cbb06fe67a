import { useEffect, useState } from 'preact/hooks';
import { getJson, type SourceInfo } from './api.js';

/** `#diff=<a>,<b>`: the two source ids to compare (set by `acp-kit inspect A B --diff`). */
export function diffFromHash(): { a: string; b: string } | undefined {
  const m = /^#diff=([^,]+),(.+)$/.exec(location.hash);
  const a = m?.[1];
  const b = m?.[2];
  return a !== undefined && b !== undefined ? { a: decodeURIComponent(a), b: decodeURIComponent(b) } : undefined;
}

/**
 * The source list, polled every 2 s (live proxies come and go), and the source shown: the one
 * `#diff=` names first, else the first listed.
 */
export function useSources(): {
  sources: SourceInfo[];
  sourceId: string | undefined;
  setSourceId: (id: string) => void;
} {
  const [sources, setSources] = useState<SourceInfo[]>([]);
  const [sourceId, setSourceId] = useState<string | undefined>(undefined);
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
  return { sources, sourceId, setSourceId };
}
