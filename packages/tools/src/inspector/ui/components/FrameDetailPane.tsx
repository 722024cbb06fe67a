import { useEffect, useState } from 'preact/hooks';
import { getJson, type FrameDetail } from '../api.js';
import { fmtMs, fmtT } from '../format.js';
import { Tree } from './Tree.js';

/** Raw JSON + tree, with schema marks and violations. */
export function FrameDetailPane(props: {
  sourceId: string;
  seq: number;
  onSelect: (seqs: number[], focus?: number) => void;
  rowVersion: string;
}) {
  const { sourceId, seq, onSelect } = props;
  const [d, setD] = useState<FrameDetail | undefined>(undefined);
  const [view, setView] = useState<'tree' | 'raw'>('tree');
  useEffect(() => {
    let stop = false;
    void getJson<FrameDetail>(`api/s/${sourceId}/frame/${seq}`).then((r) => {
      if (!stop) setD(r);
    });
    return () => {
      stop = true;
    };
  }, [sourceId, seq, props.rowVersion]);
  if (!d || d.frame.seq !== seq) return <div class="detail muted">Loading frame {seq}…</div>;
  const f = d.frame;
  const pair = d.pair;
  const pretty = d.json === undefined ? f.raw : JSON.stringify(d.json, null, 2);
  return (
    <section class="detail" aria-label={`Frame ${f.seq}`} data-testid="frame-detail">
      <h2>
        Frame {f.seq}{' '}
        <span class="muted">
          {f.dir} · {f.kind} {f.method ?? ''} {f.id !== undefined ? `id ${JSON.stringify(f.id)}` : ''} · t {fmtT(f.t)} s
        </span>
        {pair !== undefined ? (
          <button class="link" onClick={() => onSelect([f.seq, pair], pair)}>
            {f.kind === 'request' ? 'answer' : 'request'}: #{pair}
            {d.latency !== undefined ? ` (${fmtMs(d.latency)} ms)` : ''}
          </button>
        ) : null}
      </h2>
      {d.summary !== undefined ? (
        <p class="frame-summary" data-testid="frame-summary">
          {d.summary}
        </p>
      ) : null}
      {f.hop ? <HopPath hop={f.hop} dir={f.dir} /> : null}
      {d.violations.length > 0 ? (
        <ul class="violations" data-testid="violations">
          {d.violations.map((v, i) => (
            <li key={i} class="violation">
              <span class="badge violation">{v.requirement}</span> <span class="muted">[{v.rule}]</span> {v.message}{' '}
              {v.seqs.length > 1 ? (
                <button class="link" onClick={() => onSelect(v.seqs, v.seqs[0])}>
                  frames {v.seqs.join(', ')}
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
      {d.marks.undeclared.length > 0 ? (
        <p class="marks">
          Not in the v{d.protocolVersion} schema:{' '}
          {d.marks.undeclared.map((p) => (
            <code key={p} class="badge undeclared">
              {p}
            </code>
          ))}
        </p>
      ) : null}
      {d.marks.meta.length > 0 ? (
        <p class="marks">
          _meta:{' '}
          {d.marks.meta.map((p) => (
            <code key={p} class="badge meta">
              {p}
            </code>
          ))}
        </p>
      ) : null}
      <div class="tabs" role="tablist">
        <button role="tab" aria-selected={view === 'tree'} onClick={() => setView('tree')}>
          Tree
        </button>
        <button role="tab" aria-selected={view === 'raw'} onClick={() => setView('raw')}>
          Raw
        </button>
      </div>
      {view === 'raw' || d.json === undefined ? (
        <pre class="raw">{pretty}</pre>
      ) : (
        <div class="tree">
          <Tree value={d.json} path="" marks={d.marks} depth={0} />
        </div>
      )}
    </section>
  );
}

/**
 * Where a frame of a proxy chain's trace travelled: the hop's two programs (client side first in
 * the trace's name), in the frame's direction, e.g. `Proxy(1) → Agent`.
 */
function HopPath(props: { hop: string; dir: string }) {
  const cut = props.hop.indexOf('-', props.hop.indexOf(')') + 1 || 0);
  const a = cut > 0 ? props.hop.slice(0, cut) : props.hop;
  const b = cut > 0 ? props.hop.slice(cut + 1) : '';
  const [from, to] = props.dir === 'editor->agent' ? [a, b] : [b, a];
  return (
    <p class="hop-path" data-testid="hop-path">
      hop <span class="hop">{from}</span> → <span class="hop">{to}</span>
    </p>
  );
}
