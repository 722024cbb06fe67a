import type { SourceInfo } from '../api.js';

/** The page's header: the source shown, the one to compare it with, and whether it is live. */
export function TopBar(props: {
  sources: SourceInfo[];
  sourceId: string | undefined;
  onSource: (id: string) => void;
  diffWith: string | undefined;
  onDiffWith: (id: string | undefined) => void;
  liveNow: boolean;
}) {
  const { sources, sourceId, diffWith, liveNow } = props;
  const source = sources.find((s) => s.id === sourceId);
  return (
    <header class="top">
      <h1>acp-kit inspect</h1>
      <label>
        <span class="sr-only">Capture</span>
        <select
          aria-label="Capture"
          value={sourceId}
          onChange={(e) => props.onSource(e.currentTarget.value)}
          data-testid="source-select"
        >
          {sources.map((s) => (
            <option value={s.id} key={s.id}>
              {s.name} · {s.frames} frames{s.live && !s.finished ? ' · live' : ''}
            </option>
          ))}
        </select>
      </label>
      <label>
        <span class="sr-only">Compare with</span>
        <select
          aria-label="Compare with"
          value={diffWith ?? ''}
          onChange={(e) => props.onDiffWith(e.currentTarget.value || undefined)}
          data-testid="diff-select"
        >
          <option value="">compare with…</option>
          {sources
            .filter((s) => s.id !== sourceId)
            .map((s) => (
              <option value={s.id} key={s.id}>
                diff with {s.name}
              </option>
            ))}
        </select>
      </label>
      {liveNow ? (
        <span class="live-badge" data-testid="live-badge">
          ● live
        </span>
      ) : null}
      <span class="muted">{source?.path}</span>
    </header>
  );
}
