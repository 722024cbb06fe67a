import { ROW, type RowTuple } from '../api.js';
import type { DisplayRow } from '../data.js';
import { expandedFirst } from '../display.js';
import { fmtMs, fmtSize, fmtT } from '../format.js';

/** One line of the timeline: a frame, or a collapsed run with its count button. */
export function TimelineRow(props: { d: DisplayRow; index: number; rows: RowTuple[]; strings: string[]; selected: Set<number>; expanded: Set<number>; growing: boolean; focusable: boolean }) {
  const { d, index: i, rows, strings, selected, expanded } = props;
  const r = rows[d.first];
  if (!r) return null;
  const seq = r[ROW.seq];
  const n = d.members.length;
  let isSel = false;
  let viol = 0;
  let size = 0;
  for (const x of d.members) {
    const m = rows[x];
    if (!m) continue;
    if (!isSel && selected.has(m[ROW.seq])) isSel = true;
    viol += m[ROW.violations];
    size += m[ROW.size];
  }
  const kind = strings[r[ROW.kind]] ?? '';
  const upd = r[ROW.update] >= 0 ? strings[r[ROW.update]] : undefined;
  return (
    <div
      id={`row-${seq}`}
      data-index={i}
      data-seq={seq}
      data-testid="timeline-row"
      role="option"
      aria-selected={isSel}
      tabIndex={props.focusable ? 0 : -1}
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
        {props.growing ? <span class="live-dot" data-testid="live-run" title="still streaming">●</span> : null}
        {r[ROW.method] >= 0 ? strings[r[ROW.method]] : ''}
        {upd ? <span class="upd"> {upd}</span> : null}
      </span>
      <span class="c-id">{r[ROW.id] >= 0 ? strings[r[ROW.id]] : ''}</span>
      <span class="c-size">{fmtSize(size)}</span>
      <span class="c-lat">{fmtMs(r[ROW.latency])}</span>
      <span class="c-viol">{viol ? <span class="badge violation" data-testid="violation-badge" title={`${viol} violation(s)`}>⚠ {viol}</span> : null}</span>
    </div>
  );
}
