import { useState } from 'preact/hooks';
import type { SessionView } from '../api.js';
import { fmtT } from '../format.js';
import { Item } from './Item.js';
import { SessionFacts } from './SessionFacts.js';
import { SubagentCard } from './SubagentCard.js';
import { useProgressive } from '../use-progressive.js';

/** Session items rendered at once. */
const ITEM_WINDOW = 200;

/** The session's title, protocol version, foreground state and usage, and its states over time. */
function SessionHeader(props: { s: SessionView; onSelect: (seqs: number[], focus?: number) => void }) {
  const { s, onSelect } = props;
  const last = s.foreground[s.foreground.length - 1];
  return (
    <header>
      <h2>
        {s.title ?? 'Session'} <code class="muted">{s.sessionId}</code> <span class="badge">v{s.protocolVersion}</span>
      </h2>
      <div class="fg" data-testid="foreground">
        state: <strong class={`state-${last?.state ?? 'idle'}`}>{last?.state ?? 'idle'}</strong>
        {last?.stopReason ? <span class="muted"> ({last.stopReason})</span> : null}
        {s.usage ? (
          <span class="usage">
            {' '}
            · context {s.usage.used.toLocaleString()} / {s.usage.size.toLocaleString()} tokens
            {s.usage.cost ? ` · ${s.usage.cost.amount.toFixed(4)} ${s.usage.cost.currency}` : ''}
          </span>
        ) : null}
      </div>
      {s.foreground.length > 0 ? (
        <ol class="fg-strip" aria-label="Foreground state over time">
          {s.foreground.map((f, i) => (
            <li key={i}>
              <button
                class={`chip state-${f.state}`}
                onClick={() => onSelect([f.seq], f.seq)}
                title={`frame ${f.seq}, t ${fmtT(f.t)} s`}
              >
                {f.state}
                {f.stopReason ? `: ${f.stopReason}` : ''}
              </button>
            </li>
          ))}
        </ol>
      ) : null}
      <SessionFacts s={s} onSelect={onSelect} />
    </header>
  );
}

export function SessionBlock(props: {
  s: SessionView;
  selected: Set<number>;
  onSelect: (seqs: number[], focus?: number) => void;
  /** a subagent's session inside its parent's item: the parent's card already names it */
  nested?: boolean;
}) {
  const { s, selected, onSelect, nested } = props;
  const terminals = new Map(s.terminals.map((t) => [t.terminalId, t]));
  const clientTerminals = new Map(s.clientTerminals.map((t) => [t.terminalId, t]));
  // a long capture builds thousands of items: render a window of them (follows the end, or the selection)
  const [anchor, setAnchor] = useState<number | undefined>(undefined);
  const selIdx = selected.size === 0 ? -1 : s.items.findIndex((it) => it.seqs.some((x) => selected.has(x)));
  let from = anchor ?? Math.max(0, s.items.length - ITEM_WINDOW);
  if (selIdx >= 0 && (selIdx < from || selIdx >= from + ITEM_WINDOW)) from = Math.max(0, selIdx - ITEM_WINDOW / 2);
  const to = Math.min(s.items.length, from + ITEM_WINDOW);
  // a window the selection moved renders whole (the selected item is scrolled to); others fill in steps
  const shown = useProgressive(to - from, `${s.sessionId}|${anchor ?? 'end'}`, selIdx >= 0);
  return (
    <article class={`session-block${nested ? ' nested' : ''}`} aria-label={`Session ${s.sessionId}`}>
      {nested ? null : <SessionHeader s={s} onSelect={onSelect} />}
      {from > 0 ? (
        <button class="link" onClick={() => setAnchor(Math.max(0, from - ITEM_WINDOW))}>
          ▲ {from} earlier items
        </button>
      ) : null}
      {s.items.slice(from, from + shown).map((it) => {
        const isSel = it.seqs.some((x) => selected.has(x));
        return (
          <div
            key={it.key}
            class={`item item-${it.kind}${it.kind === 'message' ? ` role-${String(it.role)}` : ''}${isSel ? ' selected' : ''}`}
            data-testid={`item-${it.kind}`}
            data-key={it.key}
            tabIndex={0}
            role="button"
            aria-pressed={isSel}
            onClick={(e) => {
              if (e.target instanceof Element && e.target.closest('a,summary,button')) return;
              // a click on an item of a nested subagent session selects that item, not this one too
              if (e.target instanceof Element && e.target.closest('.item') !== e.currentTarget) return;
              onSelect(it.seqs, it.seqs[0]);
            }}
            onKeyDown={(e) => {
              if (e.target !== e.currentTarget) return;
              if (e.key === 'Enter' || e.key === ' ') {
                e.preventDefault();
                onSelect(it.seqs, it.seqs[0]);
              }
            }}
          >
            {it.kind === 'subagent' ? (
              <>
                <SubagentCard it={it} />
                {it.session ? <SessionBlock s={it.session} selected={selected} onSelect={onSelect} nested /> : null}
              </>
            ) : (
              <Item it={it} terminals={terminals} clientTerminals={clientTerminals} />
            )}
            <span class="frames muted">
              {it.seqs.length} frame{it.seqs.length === 1 ? '' : 's'}
            </span>
          </div>
        );
      })}
      {to < s.items.length ? (
        <button class="link" onClick={() => setAnchor(to + ITEM_WINDOW >= s.items.length ? undefined : to)}>
          ▼ {s.items.length - to} later items
        </button>
      ) : null}
      {s.terminals.length > 0 ? <h3>Terminals</h3> : null}
      {s.terminals.map((t) => (
        <div
          key={t.terminalId}
          class={`item item-terminal${t.seqs.some((x) => selected.has(x)) ? ' selected' : ''}`}
          tabIndex={0}
          role="button"
          onClick={() => onSelect(t.seqs, t.seqs[0])}
        >
          <div class="label">
            terminal <code>{t.terminalId}</code> {String(t.command ?? '')}
          </div>
          <pre class="term">{t.outputText}</pre>
        </div>
      ))}
      {s.decodeErrors.length > 0 ? (
        <ul class="violations">
          {s.decodeErrors.map((e) => (
            <li key={e.seq} class="violation">
              <button class="link" onClick={() => onSelect([e.seq], e.seq)}>
                frame {e.seq}
              </button>
              : could not decode: {e.message}
            </li>
          ))}
        </ul>
      ) : null}
    </article>
  );
}
