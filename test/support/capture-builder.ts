// Hand-built captures with synthetic times, for tests of capture readers, stats and diff.
import { writeFileSync } from 'node:fs';
import { decodeFrame, type CaptureFrame, type FrameDirection } from '../../packages/tools/src/proxy/index.js';

/** Editor to agent / agent to editor. */
export const E2A: FrameDirection = 'editor->agent';
export const A2E: FrameDirection = 'agent->editor';

/** Frames from `[t, dir, message]` rows (a string message is a raw line as is), seq 1, 2, 3, … */
export function frames(rows: ReadonlyArray<readonly [number, FrameDirection, unknown]>): CaptureFrame[] {
  return rows.map(([t, dir, message], i) => {
    const raw = typeof message === 'string' ? message : JSON.stringify(message);
    const d = decodeFrame(raw);
    const f: CaptureFrame = { seq: i + 1, t, dir, raw, kind: d.kind };
    if (d.method !== undefined) f.method = d.method;
    if (d.id !== undefined) f.id = d.id;
    return f;
  });
}

/** Writes frames as an acp-kit capture file (header + one line per frame). */
export function writeCaptureFile(path: string, list: readonly CaptureFrame[], agent: string[] = ['test-agent']): void {
  const header = {
    type: 'header',
    format: 'acp-kit-capture',
    formatVersion: 1,
    acpKit: '0.0.0-test',
    agent,
    start: '2026-11-20T10:00:00.000Z',
  };
  writeFileSync(path, [header, ...list].map((l) => JSON.stringify(l)).join('\n') + '\n');
}

export const rpc = {
  req: (id: number | string, method: string, params: unknown) => ({ jsonrpc: '2.0', id, method, params }),
  note: (method: string, params: unknown) => ({ jsonrpc: '2.0', method, params }),
  ok: (id: number | string, result: unknown) => ({ jsonrpc: '2.0', id, result }),
  err: (id: number | string, code: number, message: string) => ({ jsonrpc: '2.0', id, error: { code, message } }),
  update: (sessionId: string, update: Record<string, unknown>) => ({
    jsonrpc: '2.0',
    method: 'session/update',
    params: { sessionId, update },
  }),
};
