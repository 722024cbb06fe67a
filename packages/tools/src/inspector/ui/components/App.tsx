import { useCallback, useEffect, useState } from 'preact/hooks';
import { useFrameStream } from '../use-frame-stream.js';
import { diffFromHash, useSources } from '../use-sources.js';
import { DiffView } from './DiffView.js';
import { FrameDetailPane } from './FrameDetailPane.js';
import { LatencyPane } from './LatencyPane.js';
import { SessionPane } from './SessionPane.js';
import { Timeline } from './Timeline.js';
import { TopBar } from './TopBar.js';

/** The page: the timeline of the source shown, its session, latency and frame detail, or the diff of two sources. */
export function App() {
  const { sources, sourceId, setSourceId } = useSources();
  const data = useFrameStream(sourceId, sources);
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [focusSeq, setFocusSeq] = useState<number | undefined>(undefined);
  const [tab, setTab] = useState<'session' | 'latency'>('session');
  // `#diff=<a>,<b>` (acp-kit inspect A B --diff) opens the diff of two sources
  const [diffWith, setDiffWith] = useState<string | undefined>(() => diffFromHash()?.b);

  // another source: nothing of the last one stays selected
  useEffect(() => {
    if (!sourceId) return;
    setSelected(new Set());
    setFocusSeq(undefined);
  }, [sourceId]);

  const select = useCallback((seqs: number[], focus?: number) => {
    setSelected(new Set(seqs));
    setFocusSeq(focus ?? seqs[0]);
  }, []);

  const live = sources.find((s) => s.id === sourceId)?.live ?? false;
  const diffing = !!(sourceId && diffWith && diffWith !== sourceId);
  return (
    <div class="app">
      <TopBar
        sources={sources}
        sourceId={sourceId}
        onSource={setSourceId}
        diffWith={diffWith}
        onDiffWith={setDiffWith}
        liveNow={live && !data.finished}
      />
      {diffing ? (
        <main class="diff-main">
          <DiffView
            a={sources.find((s) => s.id === sourceId)}
            b={sources.find((s) => s.id === diffWith)}
            onClose={() => setDiffWith(undefined)}
          />
        </main>
      ) : null}
      <main class="panes" hidden={diffing}>
        <Timeline
          data={data}
          live={live}
          selected={selected}
          focusSeq={focusSeq}
          onSelect={select}
          sourceId={sourceId}
        />
        <section class="right">
          <div class="tabs" role="tablist">
            <button role="tab" aria-selected={tab === 'session'} onClick={() => setTab('session')}>
              Session
            </button>
            <button role="tab" aria-selected={tab === 'latency'} onClick={() => setTab('latency')}>
              Latency
            </button>
          </div>
          <div class="tabpanel">
            {sourceId && tab === 'session' ? (
              <SessionPane sourceId={sourceId} data={data} selected={selected} onSelect={select} />
            ) : null}
            {sourceId && tab === 'latency' ? (
              <LatencyPane sourceId={sourceId} version={data.version + data.store.length} onSelect={select} />
            ) : null}
          </div>
          {sourceId && focusSeq !== undefined ? (
            <FrameDetailPane
              sourceId={sourceId}
              seq={focusSeq}
              onSelect={select}
              rowVersion={data.store.signature(data.store.indexOf(focusSeq) ?? -1)}
            />
          ) : (
            <div class="detail muted">Select a frame.</div>
          )}
        </section>
      </main>
    </div>
  );
}
