import { useEffect, useState } from 'preact/hooks';
import { getJson, type MethodLatency, type RequestSpan } from '../api.js';
import { fmtMs } from '../format.js';

/** Per-method latency and a waterfall of requests over time. */
export function LatencyPane(props: {
  sourceId: string;
  version: number;
  onSelect: (seqs: number[], focus?: number) => void;
}) {
  const [d, setD] = useState<{ spans: RequestSpan[]; table: MethodLatency[] } | undefined>(undefined);
  useEffect(() => {
    let stop = false;
    const timer = setTimeout(
      () =>
        void getJson<{ spans: RequestSpan[]; table: MethodLatency[] }>(`api/s/${props.sourceId}/latency`).then((r) => {
          if (!stop) setD(r);
        }),
      150,
    );
    return () => {
      stop = true;
      clearTimeout(timer);
    };
  }, [props.sourceId, props.version]);
  if (!d) return <p class="muted">Loading…</p>;
  const MAX = 500;
  const spans = d.spans.slice(0, MAX);
  const end = Math.max(1, ...spans.map((s) => s.start + (s.latency ?? 0)));
  return (
    <div class="latency">
      <table data-testid="latency-table">
        <thead>
          <tr>
            <th scope="col">method</th>
            <th scope="col">count</th>
            <th scope="col">p50 ms</th>
            <th scope="col">p99 ms</th>
            <th scope="col">max ms</th>
            <th scope="col">open</th>
          </tr>
        </thead>
        <tbody>
          {d.table.map((m) => (
            <tr key={m.method}>
              <td>{m.method}</td>
              <td>{m.count}</td>
              <td>{fmtMs(m.p50)}</td>
              <td>{fmtMs(m.p99)}</td>
              <td>{fmtMs(m.max)}</td>
              <td>{m.open || ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>Waterfall{d.spans.length > MAX ? ` (first ${MAX} of ${d.spans.length})` : ''}</h3>
      <div class="waterfall" role="list">
        {spans.map((s) => (
          <div key={s.seq} class="wf-row" role="listitem">
            <button
              class="link wf-label"
              onClick={() => props.onSelect(s.answerSeq !== undefined ? [s.seq, s.answerSeq] : [s.seq], s.seq)}
            >
              #{s.seq} {s.method}
            </button>
            <div class="wf-track">
              <div
                class={`wf-bar${s.error ? ' error' : ''}${s.latency === undefined ? ' open' : ''}`}
                style={{
                  left: `${(s.start / end) * 100}%`,
                  width: `${Math.max(0.3, ((s.latency ?? end - s.start) / end) * 100)}%`,
                }}
                title={`${fmtMs(s.latency)} ms`}
              />
            </div>
            <span class="wf-ms">{s.latency === undefined ? 'open' : fmtMs(s.latency)}</span>
          </div>
        ))}
      </div>
    </div>
  );
}
