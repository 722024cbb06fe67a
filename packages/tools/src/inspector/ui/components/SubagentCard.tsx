import type { SubagentItem } from '../api.js';

/** A subagent's heading: its title, the state its parent mirrors, its description (its conversation nests below). */
export function SubagentCard({ it }: { it: SubagentItem }) {
  return (
    <>
      <div class="label">
        Subagent: {it.title ?? it.sessionId} <code class="muted">{it.sessionId}</code>{' '}
        {it.state !== undefined ? (
          <span class={`badge state-${it.state}`} data-testid="subagent-state">
            {it.state}
            {it.stopReason ? `: ${it.stopReason}` : ''}
          </span>
        ) : null}
      </div>
      {it.description ? <div class="muted">{it.description}</div> : null}
      {it.session === undefined ? <div class="muted">(no updates of its own yet)</div> : null}
    </>
  );
}
