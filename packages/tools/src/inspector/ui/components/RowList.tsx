import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ROW } from '../api.js';
import { OVERSCAN, ROW_H, type Data, type DisplayRow, type OnSelect } from '../data.js';
import { seqsOf, type DisplayRows } from '../display.js';
import { TimelineRow } from './TimelineRow.js';

/** The row a navigation key moves to from `i` (-1: none active), or undefined for other keys. */
function keyTarget(key: string, i: number, count: number, pageRows: number): number | undefined {
  if (key === 'ArrowDown') return Math.min(count - 1, i + 1);
  if (key === 'ArrowUp') return Math.max(0, i - 1);
  if (key === 'PageDown') return Math.min(count - 1, i + pageRows);
  if (key === 'PageUp') return Math.max(0, i - pageRows);
  if (key === 'Home') return 0;
  if (key === 'End') return count - 1;
  return undefined;
}

/**
 * The list's height in pixels, followed as the page is resized. The observer reports the first
 * size too, after the browser's own layout: reading clientHeight here forced a layout of the whole
 * page inside the script's first task.
 */
function useHeight(ref: { current: HTMLElement | null }): number {
  const [height, setHeight] = useState(600);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    // the content box: clientHeight without a read (the list has no padding)
    const ro = new ResizeObserver((entries) =>
      setHeight(entries[entries.length - 1]?.contentRect.height ?? el.clientHeight),
    );
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  return height;
}

/** Keeps the focused frame in view (selection from the session view or the keyboard). */
function useKeepInView(
  listRef: { current: HTMLElement | null },
  activeIndex: number | undefined,
  focusSeq: number | undefined,
): void {
  useEffect(() => {
    const el = listRef.current;
    if (!el || activeIndex === undefined) return;
    const top = activeIndex * ROW_H;
    if (top < el.scrollTop || top + ROW_H > el.scrollTop + el.clientHeight)
      el.scrollTop = Math.max(0, top - el.clientHeight / 3);
    const row = el.querySelector<HTMLElement>(`[data-index="${activeIndex}"]`);
    if (row && el.contains(document.activeElement)) row.focus({ preventScroll: true });
  }, [activeIndex, focusSeq]);
}

/**
 * The virtualised timeline: one tall spacer, and inside it one absolutely positioned window that
 * holds only the rows in view (plus a few). Rows have a fixed height and fixed-width cells, so a
 * scroll step lays out a few dozen small boxes and nothing else; the scroll position lives here,
 * so scrolling re-renders the rows and not the filters.
 */
export function RowList(props: {
  data: Data;
  display: DisplayRows;
  live: boolean;
  selected: Set<number>;
  activeIndex: number | undefined;
  focusSeq: number | undefined;
  expanded: Set<number>;
  onSelect: OnSelect;
  onToggle: (d: DisplayRow) => void;
}) {
  const { data, display, selected, activeIndex, focusSeq, expanded, onSelect, onToggle } = props;
  const { strings, store } = data;
  const count = display.count;
  const [scrollTop, setScrollTop] = useState(0);
  const listRef = useRef<HTMLDivElement>(null);
  const height = useHeight(listRef);

  useKeepInView(listRef, activeIndex, focusSeq);

  const start = Math.max(0, Math.floor(scrollTop / ROW_H) - OVERSCAN);
  const end = Math.min(count, Math.ceil((scrollTop + height) / ROW_H) + OVERSCAN);
  const choose = (d: DisplayRow): void => {
    onSelect(seqsOf(store, d), store.get(d.first, ROW.seq));
  };

  const onKey = (e: KeyboardEvent) => {
    if (count === 0) return;
    const i = activeIndex ?? -1;
    const active = display.row(i);
    if ((e.key === 'Enter' || e.key === ' ') && active && active.members.length > 1) {
      onToggle(active);
      e.preventDefault();
      return;
    }
    const target = display.row(keyTarget(e.key, i, count, Math.floor(height / ROW_H)) ?? -1);
    if (!target) return;
    e.preventDefault();
    choose(target);
  };
  // one listener for every row (rows come and go while scrolling)
  const onClick = (e: MouseEvent) => {
    const t = e.target;
    if (!(t instanceof Element)) return;
    const rowEl = t.closest<HTMLElement>('[data-index]');
    if (!rowEl) return;
    const d = display.row(Number(rowEl.dataset.index));
    if (!d) return;
    if (t.closest('button.run')) onToggle(d);
    else choose(d);
  };

  const visible: preact.JSX.Element[] = [];
  for (let i = start; i < end; i++) {
    const d = display.row(i);
    if (!d) continue;
    const growing = d.members.length > 1 && props.live && !data.finished && i === count - 1;
    visible.push(
      <TimelineRow
        key={i - start}
        d={d}
        index={i}
        store={store}
        strings={strings}
        selected={selected}
        expanded={expanded}
        growing={growing}
        focusable={i === (activeIndex ?? 0)}
      />,
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
      <div class="spacer" style={{ height: `${count * ROW_H}px` }}>
        <div class="window" style={{ transform: `translateY(${start * ROW_H}px)` }}>
          {visible}
        </div>
      </div>
    </div>
  );
}
