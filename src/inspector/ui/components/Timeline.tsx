import { useCallback, useMemo, useState } from 'preact/hooks';
import { ROW } from '../api.js';
import type { Data, DisplayRow, OnSelect } from '../data.js';
import { displayIndexOf, displayRows, toggled, usedStrings } from '../display.js';
import { useSearch } from '../use-search.js';
import { RowList } from './RowList.js';
import { initialFilters, TimelineFilters, type FilterState } from './TimelineFilters.js';

/** Filters + the virtualised list of frames. */
export function Timeline(props: { data: Data; live: boolean; selected: Set<number>; focusSeq: number | undefined; onSelect: OnSelect; sourceId: string | undefined }) {
  const { data, live, selected, focusSeq, onSelect, sourceId } = props;
  const [f, setF] = useState<FilterState>(initialFilters);
  const [expanded, setExpanded] = useState<Set<number>>(new Set());
  const matches = useSearch(sourceId, f.query, data.rows.length);
  const onChange = useCallback((patch: Partial<FilterState>) => setF((cur) => ({ ...cur, ...patch })), []);

  const methods = useMemo(() => usedStrings(data, ROW.method).sort(), [data.version]);
  const sessions = useMemo(() => usedStrings(data, ROW.session), [data.version]);
  const display = useMemo(
    () => displayRows(data, { kinds: f.kinds, method: f.method, session: f.session, onlyViolations: f.onlyViolations, matches, expanded }),
    [data.version, f.kinds, f.method, f.session, f.onlyViolations, matches, expanded],
  );
  const activeIndex = useMemo(() => {
    const ri = focusSeq === undefined ? undefined : data.index.get(focusSeq);
    return ri === undefined ? undefined : displayIndexOf(display, ri);
  }, [display, focusSeq, data.index]);

  const rows = data.rows;
  const toggle = useCallback((d: DisplayRow) => {
    const seq = rows[d.first]?.[ROW.seq];
    if (seq !== undefined) setExpanded((cur) => toggled(cur, seq));
  }, [rows]);

  return (
    <section class="timeline" aria-label="Frames">
      <TimelineFilters f={f} onChange={onChange} methods={methods} sessions={sessions} rowCount={display.length} frameCount={rows.length} />
      <div class="thead row-cells" aria-hidden="true">
        <span class="c-seq">seq</span><span class="c-t">time s</span><span class="c-dir">dir</span><span class="c-kind">kind</span><span class="c-method">method</span><span class="c-id">id</span><span class="c-size">size</span><span class="c-lat">ms</span><span class="c-viol" />
      </div>
      <RowList data={data} display={display} live={live} selected={selected} activeIndex={activeIndex} focusSeq={focusSeq} expanded={expanded} onSelect={onSelect} onToggle={toggle} />
    </section>
  );
}
