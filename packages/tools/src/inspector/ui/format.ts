import type { DiffFrameRef } from './api.js';

export function fmtMs(ms: number | undefined): string {
  if (ms === undefined || ms < 0) return '';
  return ms < 10 ? ms.toFixed(2) : ms < 1000 ? ms.toFixed(1) : `${(ms / 1000).toFixed(2)}s`;
}

export function fmtT(ms: number): string {
  return (ms / 1000).toFixed(3);
}

export function fmtSize(n: number): string {
  return n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} kB` : `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function fmtValue(v: unknown): string {
  if (v === undefined) return '(absent)';
  const s = JSON.stringify(v);
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
}

export function refLabel(r: DiffFrameRef): string {
  return `#${r.seq} ${r.dir === 'editor->agent' ? 'E→A' : 'A→E'} ${r.kind}${r.method ? ` ${r.method}` : ''}`;
}
