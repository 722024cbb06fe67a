import { useState } from 'preact/hooks';
import type { DiffEntry } from '../api.js';
import { fmtValue, refLabel } from '../format.js';
import { DiffFrame } from './DiffFrame.js';

export function DiffEntryView(props: { e: DiffEntry; a: string; b: string }) {
  const { e } = props;
  const [open, setOpen] = useState(false);
  if (e.type !== 'changed') {
    const side = e.type === 'removed' ? 'A' : 'B';
    return (
      <li class={`diff-entry ${e.type}`} data-testid={`diff-${e.type}`}>
        <span class={`badge ${e.type === 'removed' ? 'del-fg' : 'add-fg'}`}>
          {e.type === 'removed' ? '−' : '+'} {e.count} frame{e.count === 1 ? '' : 's'} only in {side}
        </span>{' '}
        {refLabel(e.first)}
        {e.count > 1 ? ` … ${refLabel(e.last)}` : ''}{' '}
        <span class="muted">
          (after #{e.afterOtherSeq} of {side === 'A' ? 'B' : 'A'})
        </span>
      </li>
    );
  }
  return (
    <li class="diff-entry changed" data-testid="diff-changed">
      <div class="diff-pair">
        <div class="del-fg">A {refLabel(e.a)}</div>
        <div class="add-fg">B {refLabel(e.b)}</div>
      </div>
      <table class="diff-table fields">
        <tbody>
          {e.fields.map((f) => (
            <tr key={f.path} data-testid="diff-field">
              <th scope="row">
                <code>{f.path}</code>
              </th>
              <td class="del">{fmtValue(f.a)}</td>
              <td class="add">{fmtValue(f.b)}</td>
            </tr>
          ))}
          {e.moreFields ? (
            <tr>
              <td colSpan={3} class="muted">
                {e.moreFields} more fields differ
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
      <button class="link" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? 'hide frames' : 'show both frames'}
      </button>
      {open ? (
        <div class="diff-pair frames">
          <DiffFrame source={props.a} seq={e.a.seq} changed={new Set(e.fields.map((f) => f.path))} />
          <DiffFrame source={props.b} seq={e.b.seq} changed={new Set(e.fields.map((f) => f.path))} />
        </div>
      ) : null}
    </li>
  );
}
