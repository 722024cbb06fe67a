import { useMemo } from 'preact/hooks';
import { diffLines } from 'diff';

export function TextDiff(props: { path: string; oldText: string; newText: string }) {
  const parts = useMemo(() => diffLines(props.oldText, props.newText), [props.oldText, props.newText]);
  return (
    <div class="diff">
      <div>
        <code>{props.path}</code>
      </div>
      <pre class="patch">
        {parts.map((p, i) => {
          const sign = p.added ? '+' : p.removed ? '-' : ' ';
          const lines = p.value.replace(/\n$/, '').split('\n');
          return (
            <span key={i} class={p.added ? 'add' : p.removed ? 'del' : ''}>
              {lines.map((l) => `${sign}${l}\n`).join('')}
            </span>
          );
        })}
      </pre>
    </div>
  );
}
