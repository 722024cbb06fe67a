/** Client side of the inspector's JSON API (paths relative to the tokened page URL). */

export type RowTuple = [number, number, 0 | 1, number, number, number, number, number, number, number, number, number, number];
export const ROW = { seq: 0, t: 1, dir: 2, kind: 3, method: 4, id: 5, size: 6, session: 7, update: 8, group: 9, latency: 10, pair: 11, violations: 12 } as const;

export interface SourceInfo {
  id: string;
  name: string;
  path: string;
  live: boolean;
  agent: string[];
  frames: number;
  finished: boolean;
}

export interface Violation {
  rule: string;
  requirement: string;
  seqs: number[];
  message: string;
}

export interface CaptureFrame {
  seq: number;
  t: number;
  dir: 'editor->agent' | 'agent->editor';
  raw: string;
  kind: string;
  method?: string;
  id?: string | number | null;
}

export interface FrameDetail {
  frame: CaptureFrame;
  json: unknown;
  marks: { undeclared: string[]; meta: string[] };
  violations: Violation[];
  pair?: number;
  latency?: number;
  protocolVersion?: 1 | 2;
}

export interface SessionView {
  sessionId: string;
  protocolVersion: 1 | 2;
  title?: string;
  items: Array<Record<string, unknown> & { key: string; kind: string; seqs: number[] }>;
  terminals: Array<Record<string, unknown> & { terminalId: string; outputText: string; seqs: number[] }>;
  clientTerminals: Array<{ terminalId: string; command?: string; output: string; exitStatus: unknown; seqs: number[] }>;
  foreground: Array<{ seq: number; t: number; state: string; stopReason?: string | null }>;
  usage?: { used: number; size: number; cost?: { amount: number; currency: string } };
  decodeErrors: Array<{ seq: number; message: string }>;
}

export interface RequestSpan {
  seq: number;
  answerSeq?: number;
  method: string;
  dir: string;
  start: number;
  latency?: number;
  error: boolean;
}

export interface MethodLatency {
  method: string;
  count: number;
  open: number;
  p50?: number;
  p99?: number;
  max?: number;
}

export async function getJson<T>(path: string): Promise<T> {
  const r = await fetch(path, { cache: 'no-store' });
  if (!r.ok) throw new Error(`${path}: HTTP ${r.status}`);
  // our own server's API (src/inspector/server.ts): the interfaces above describe what it sends
  return (await r.json()) as T;
}

/** `GET api/diff?a=&b=`: diffCaptures' result (src/proxy/diff.ts, documented in docs/captures.md). */
export interface DiffFrameRef {
  seq: number;
  t: number;
  dir: string;
  kind: string;
  method?: string;
}

export interface FieldDifference {
  path: string;
  a?: unknown;
  b?: unknown;
}

export type DiffEntry =
  | { type: 'changed'; a: DiffFrameRef; b: DiffFrameRef; fields: FieldDifference[]; moreFields?: number }
  | { type: 'removed' | 'added'; count: number; first: DiffFrameRef; last: DiffFrameRef; afterOtherSeq: number };

export interface CaptureDiff {
  equal: boolean;
  alignment: 'lcs' | 'runs' | 'none';
  a: { frames: number; version: { offered: number | null; negotiated: number | null } };
  b: { frames: number; version: { offered: number | null; negotiated: number | null } };
  versionsEqual: boolean;
  capabilities: FieldDifference[];
  summary: { aligned: number; changed: number; removed: number; added: number };
  differences: DiffEntry[];
  truncated: number;
  latency: Array<{ method: string; dir: string; a: { count: number; p50: number } | null; b: { count: number; p50: number } | null; deltaP50Ms: number | null }>;
}
