import { useEffect, useState } from 'preact/hooks';

/**
 * Items added per task while a list fills. The session's window of 200 items (Markdown each)
 * rendered and laid out at once was one task of 40+ ms of CPU at 100k frames; in steps of this
 * size each task stays a few ms and the first items show sooner.
 */
const STEP = 25;

/**
 * How many of `total` items to render: {@link STEP} at first (and again when `resetKey` changes),
 * one more step per task (a zero timeout, so the browser paints and handles input between
 * steps) until all are. `all`: render everything now (a selected item must be there to scroll to).
 */
export function useProgressive(total: number, resetKey: string, all: boolean): number {
  const [shown, setShown] = useState({ key: resetKey, n: STEP });
  const n = all ? total : shown.key === resetKey ? shown.n : STEP;
  useEffect(() => {
    if (all || n >= total) return;
    const timer = setTimeout(() => setShown({ key: resetKey, n: n + STEP }), 0);
    return () => clearTimeout(timer);
  }, [all, n, total, resetKey]);
  return Math.min(n, total);
}
