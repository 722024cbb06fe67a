import { useEffect, useState } from 'preact/hooks';
import { getJson } from './api.js';

/**
 * The seqs of the frames whose text holds `query`, undefined when there is no query. The search
 * runs on the server (the page only holds summaries), 200 ms after the last keystroke, and again
 * when more frames arrived (`frames`).
 */
export function useSearch(sourceId: string | undefined, query: string, frames: number): Set<number> | undefined {
  const [matches, setMatches] = useState<Set<number> | undefined>(undefined);
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
  }, [query, sourceId, query && frames]);
  return matches;
}
