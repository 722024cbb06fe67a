import type { FrameDetail } from '../api.js';

export function Tree(props: {
  value: unknown;
  path: string;
  marks: FrameDetail['marks'];
  depth: number;
  name?: string;
  changed?: Set<string>;
}) {
  const { value, path, marks, depth, name, changed } = props;
  const label =
    name !== undefined ? (
      <span class={`key${changed?.has(path) ? ' changed' : ''}`} data-changed={changed?.has(path) ? path : undefined}>
        {name}
        {marks.undeclared.includes(path) ? (
          <span class="badge undeclared" title="the schema does not declare this field">
            not in schema
          </span>
        ) : null}
        {marks.meta.includes(path) ? <span class="badge meta">_meta</span> : null}:{' '}
      </span>
    ) : null;
  if (value === null || typeof value !== 'object') {
    return (
      <div class="leaf">
        {label}
        <span class={`v-${value === null ? 'null' : typeof value}`}>{JSON.stringify(value)}</span>
      </div>
    );
  }
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  const sub = (k: string) => (Array.isArray(value) ? `${path}[${k}]` : path ? `${path}.${k}` : k);
  return (
    <details open={depth < 4}>
      <summary>
        {label}
        <span class="muted">{Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`}</span>
      </summary>
      <div class="children">
        {entries.map(([k, v]) => (
          <Tree key={k} name={k} value={v} path={sub(k)} marks={marks} depth={depth + 1} changed={changed} />
        ))}
      </div>
    </details>
  );
}
