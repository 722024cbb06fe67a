import { useCallback, useMemo, useRef, useState } from 'preact/hooks';
import { ROW } from '../api.js';
import type { Data, DisplayRow, OnSelect } from '../data.js';
import { displayRows, toggled, type DisplayRows } from '../display.js';
import { useSearch } from '../use-search.js';
import { RowList } from './RowList.js';
import { initialFilters, TimelineFilters, type FilterState } from './TimelineFilters.js';

/** Filters + the virtualised list of frames. */
export function Timeline(props: {
  data: Data;
  live: boolean;
  selected: Set<number>;
  focusSeq: number | undefined;
  onSelect: OnSelect;
  sourceId: string | undefined;
}) {
  const { data, live, selected, focusSeq, onSelect, sourceId } = props;
  const { store, strings } = data;
  const [f, setF] = useState<FilterState>(initialFilters);
  const [expanded, setExpanded] = useState<Set<number>>(new Set());
  const matches = useSearch(sourceId, f.query, store.length);
  const onChange = useCallback((patch: Partial<FilterState>) => setF((cur) => ({ ...cur, ...patch })), []);

  const methods = useMemo(() => [...store.methodIds].map((i) => strings[i] ?? '').sort(), [store, data.version]);
  const sessions = useMemo(() => [...store.sessionIds].map((i) => strings[i] ?? ''), [store, data.version]);
  // extended in place as frames arrive (see DisplayRows): the memo hands on the same object. A
  // reconnect or another source starts a new store at version 0: the store is part of every key.
  const built = useRef<DisplayRows | undefined>(undefined);
  const display = useMemo(() => {
    built.current = displayRows(built.current, data, {
      kinds: f.kinds,
      method: f.method,
      session: f.session,
      onlyViolations: f.onlyViolations,
      matches,
      expanded,
    });
    return built.current;
  }, [store, data.version, f.kinds, f.method, f.session, f.onlyViolations, matches, expanded]);
  const ri = focusSeq === undefined ? undefined : store.indexOf(focusSeq);
  const activeIndex = useMemo(
    () => (ri === undefined ? undefined : display.indexOfRow(ri)),
    [display, ri, display.count],
  );

  const toggle = useCallback(
    (d: DisplayRow) => setExpanded((cur) => toggled(cur, store.get(d.first, ROW.seq))),
    [store],
  );

  return (
    <section class="timeline" aria-label="Frames">
      <TimelineFilters
        f={f}
        onChange={onChange}
        methods={methods}
        sessions={sessions}
        rowCount={display.count}
        frameCount={store.length}
      />
      <div class="thead row-cells" aria-hidden="true">
        <span class="c-seq">seq</span>
        <span class="c-t">time s</span>
        <span class="c-dir">dir</span>
        <span class="c-kind">kind</span>
        <span class="c-method">method</span>
        <span class="c-id">id</span>
        <span class="c-size">size</span>
        <span class="c-lat">ms</span>
        <span class="c-viol" />
      </div>
      <RowList
        data={data}
        display={display}
        live={live}
        selected={selected}
        activeIndex={activeIndex}
        focusSeq={focusSeq}
        expanded={expanded}
        onSelect={onSelect}
        onToggle={toggle}
      />
    </section>
  );
}
