import { ROW } from '../api.js';
import type { DisplayRow } from '../data.js';
import type { RowStore } from '../row-store.js';
import { expandedFirst } from '../display.js';
import { fmtMs, fmtSize, fmtT } from '../format.js';

/** One line of the timeline: a frame, or a collapsed run with its count button. */
export function TimelineRow(props: {
  d: DisplayRow;
  index: number;
  store: RowStore;
  strings: string[];
  selected: Set<number>;
  expanded: Set<number>;
  growing: boolean;
  focusable: boolean;
}) {
  const { d, index: i, store, strings, selected, expanded } = props;
  const at = (field: number): number => store.get(d.first, field);
  const seq = at(ROW.seq);
  const n = d.members.length;
  let isSel = false;
  let viol = 0;
  let size = 0;
  for (const x of d.members) {
    if (!isSel && selected.has(store.get(x, ROW.seq))) isSel = true;
    viol += store.get(x, ROW.violations);
    size += store.get(x, ROW.size);
  }
  const kind = strings[at(ROW.kind)] ?? '';
  const upd = at(ROW.update) >= 0 ? strings[at(ROW.update)] : undefined;
  // a proxy chain's trace: the hop this frame was on
  const hop = at(ROW.hop) >= 0 ? strings[at(ROW.hop)] : undefined;
  // what the frame says in one line (the unstable methods and update kinds, src/inspector/frame-summary.ts)
  const summary = at(ROW.summary) >= 0 ? strings[at(ROW.summary)] : undefined;
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
      <span class="c-t">{fmtT(at(ROW.t))}</span>
      <span class={`c-dir dir-${at(ROW.dir)}`} title={at(ROW.dir) === 0 ? 'editor → agent' : 'agent → editor'}>
        {at(ROW.dir) === 0 ? 'E→A' : 'A→E'}
      </span>
      <span class="c-kind">{kind}</span>
      <span class="c-method">
        {n > 1 ? (
          <button class="run" aria-expanded={false} title="expand the run">
            ×{n}
          </button>
        ) : expandedFirst(d, store, expanded) ? (
          <button class="run" aria-expanded title="collapse the run">
            −
          </button>
        ) : null}
        {props.growing ? (
          <span class="live-dot" data-testid="live-run" title="still streaming">
            ●
          </span>
        ) : null}
        {hop ? (
          <span class="hop" data-testid="row-hop" title={`hop ${hop} of the proxy chain`}>
            {hop}
          </span>
        ) : null}
        {at(ROW.method) >= 0 ? strings[at(ROW.method)] : ''}
        {upd ? <span class="upd"> {upd}</span> : null}
        {summary ? (
          <span class="summary" data-testid="row-summary" title={summary}>
            {' '}
            {summary}
          </span>
        ) : null}
      </span>
      <span class="c-id">{at(ROW.id) >= 0 ? strings[at(ROW.id)] : ''}</span>
      <span class="c-size">{fmtSize(size)}</span>
      <span class="c-lat">{fmtMs(at(ROW.latency))}</span>
      <span class="c-viol">
        {viol ? (
          <span class="badge violation" data-testid="violation-badge" title={`${viol} violation(s)`}>
            ⚠ {viol}
          </span>
        ) : null}
      </span>
    </div>
  );
}
