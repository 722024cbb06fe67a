/**
 * Client side of the inspector's JSON API (paths relative to the tokened page URL). The shapes are
 * the server's own (src/inspector/api-types.ts, src/captures/diff.ts, src/inspector/stats.ts).
 */

export { ROW } from '../api-types.js';
export type {
  ElicitationView,
  ClientTerminalView,
  FrameDetail,
  RowTuple,
  SessionItem,
  SessionMessageItem,
  SessionView,
  SubagentItem,
  SourceInfo,
  TerminalItem,
} from '../api-types.js';
export type { CaptureDiff, DiffEntry, DiffFrameRef, FieldDifference } from '../../captures/diff.js';
export type { MethodLatency, RequestSpan } from '../stats.js';

export async function getJson<T>(path: string): Promise<T> {
  const r = await fetch(path, { cache: 'no-store' });
  if (!r.ok) throw new Error(`${path}: HTTP ${r.status}`);
  // our own server's API (src/inspector/server.ts): the types above describe what it sends
  return (await r.json()) as T;
}
