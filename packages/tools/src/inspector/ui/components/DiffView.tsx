import { useEffect, useState } from 'preact/hooks';
import { getJson, type CaptureDiff, type SourceInfo } from '../api.js';
import { fmtMs, fmtValue } from '../format.js';
import { DiffEntryView } from './DiffEntryView.js';

/** Per method and direction: how often each side called it and its median latency, with the change. */
function LatencyTable(props: { latency: CaptureDiff['latency'] }) {
  return (
    <table class="diff-table" data-testid="diff-latency">
      <thead>
        <tr>
          <th scope="col">method</th>
          <th scope="col">dir</th>
          <th scope="col">A count · p50 ms</th>
          <th scope="col">B count · p50 ms</th>
          <th scope="col">Δ p50 ms</th>
        </tr>
      </thead>
      <tbody>
        {props.latency.map((l) => (
          <tr key={`${l.dir} ${l.method}`}>
            <td>{l.method}</td>
            <td>{l.dir === 'editor->agent' ? 'E→A' : 'A→E'}</td>
            <td>{l.a ? `${l.a.count} · ${fmtMs(l.a.p50)}` : '–'}</td>
            <td>{l.b ? `${l.b.count} · ${fmtMs(l.b.p50)}` : '–'}</td>
            <td class={l.deltaP50Ms === null ? '' : l.deltaP50Ms > 0 ? 'del-fg' : 'add-fg'}>
              {l.deltaP50Ms === null
                ? ''
                : `${l.deltaP50Ms > 0 ? '+' : l.deltaP50Ms < 0 ? '−' : ''}${fmtMs(Math.abs(l.deltaP50Ms))}`}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * Two sources compared (diffCaptures): versions, capabilities, latency deltas, then the
 * differences in capture order: aligned frames side by side with their differing fields, and the
 * runs of frames only one side has.
 */
export function DiffView(props: { a: SourceInfo | undefined; b: SourceInfo | undefined; onClose: () => void }) {
  const { a, b } = props;
  const [d, setD] = useState<CaptureDiff | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    if (!a || !b) return;
    let stop = false;
    setError(undefined);
    getJson<CaptureDiff>(`api/diff?a=${encodeURIComponent(a.id)}&b=${encodeURIComponent(b.id)}`).then(
      (r) => {
        if (!stop) setD(r);
      },
      (e: Error) => {
        if (!stop) setError(e.message);
      },
    );
    return () => {
      stop = true;
    };
  }, [a?.id, b?.id, a?.frames, b?.frames]);
  if (!a || !b) return <p class="muted">Pick two sources.</p>;
  return (
    <section class="diff-view" aria-label={`Diff of ${a.name} and ${b.name}`} data-testid="diff-view">
      <header class="diff-head">
        <h2>
          Diff <span class="del-fg">A: {a.name}</span> ↔ <span class="add-fg">B: {b.name}</span>
        </h2>
        <button onClick={props.onClose}>close diff</button>
      </header>
      {error ? <p class="violation">Could not compare: {error}</p> : null}
      {!d ? (
        <p class="muted">Comparing…</p>
      ) : (
        <>
          <p data-testid="diff-summary">
            {d.equal ? (
              <span class="badge status-completed">equal</span>
            ) : (
              <span class="badge violation">different</span>
            )}{' '}
            {d.summary.aligned} aligned frames, {d.summary.changed} changed, {d.summary.removed} only in A,{' '}
            {d.summary.added} only in B
            <span class="muted">
              {' '}
              (alignment: {d.alignment}; A {d.a.frames} frames, B {d.b.frames} frames)
            </span>
          </p>
          <table class="diff-table" data-testid="diff-versions">
            <thead>
              <tr>
                <th scope="col" />
                <th scope="col">A</th>
                <th scope="col">B</th>
              </tr>
            </thead>
            <tbody>
              <tr class={d.versionsEqual ? '' : 'changed'}>
                <th scope="row">protocol version offered</th>
                <td>{String(d.a.version.offered)}</td>
                <td>{String(d.b.version.offered)}</td>
              </tr>
              <tr class={d.versionsEqual ? '' : 'changed'}>
                <th scope="row">protocol version negotiated</th>
                <td>{String(d.a.version.negotiated)}</td>
                <td>{String(d.b.version.negotiated)}</td>
              </tr>
              {d.capabilities.map((c) => (
                <tr key={c.path} class="changed" data-testid="diff-capability">
                  <th scope="row">
                    <code>{c.path}</code>
                  </th>
                  <td class="del">{fmtValue(c.a)}</td>
                  <td class="add">{fmtValue(c.b)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {d.latency.length > 0 ? <LatencyTable latency={d.latency} /> : null}
          <h3>Differences{d.truncated ? ` (first ${d.differences.length}; ${d.truncated} more not listed)` : ''}</h3>
          {d.differences.length === 0 ? <p class="muted">No frame differences (timing never counts).</p> : null}
          <ol class="diff-entries">
            {d.differences.map((e, i) => (
              <DiffEntryView key={i} e={e} a={a.id} b={b.id} />
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
