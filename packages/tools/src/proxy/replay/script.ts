import { numberAt, stringAt } from '@acp-kit/protocol/internal';
import {
  CaptureFormatError,
  decodeFrame,
  frameSide,
  openCapture,
  type CaptureFrame,
  type CaptureHeader,
  type DecodedFrame,
} from '../../captures/capture.js';

/** One recorded frame with its decoded JSON-RPC shape, as replay walks it. */
export interface ScriptFrame extends CaptureFrame {
  /** The parsed message (undefined for lines that are not JSON). */
  message?: Record<string, unknown>;
}

/** A capture loaded for replay. */
export interface ReplayScript {
  header: CaptureHeader | undefined;
  frames: ScriptFrame[];
  /** The protocol version the recorded initialize negotiated, when known. */
  protocolVersion?: number;
  /** Lines the reader skipped (a torn last line, unknown shapes). */
  skipped: Array<{ line: number; reason: string }>;
}

/** Turns frames (e.g. from {@link readCapture}) into a replay script. */
export function scriptFromFrames(frames: readonly CaptureFrame[], header?: CaptureHeader): ReplayScript {
  const out: ScriptFrame[] = [];
  let initId: CaptureFrame['id'];
  let protocolVersion: number | undefined;
  for (const f of frames) {
    const d: DecodedFrame = decodeFrame(f.raw);
    const sf: ScriptFrame = { ...f, kind: d.kind };
    if (d.method !== undefined) sf.method = d.method;
    if (d.id !== undefined) sf.id = d.id;
    if (d.kind !== 'invalid') sf.message = d.message;
    if (sf.dir === 'editor->agent' && sf.kind === 'request' && sf.method === 'initialize') initId = sf.id;
    else if (
      protocolVersion === undefined &&
      sf.dir === 'agent->editor' &&
      sf.kind === 'response' &&
      initId !== undefined &&
      sf.id === initId
    ) {
      protocolVersion = numberAt(sf.message, 'result', 'protocolVersion');
    }
    out.push(sf);
  }
  return { header, frames: out, protocolVersion, skipped: [] };
}

/**
 * Reads a capture (acp-kit NDJSON or acp-devtools export) for replay. Throws
 * {@link CaptureFormatError} for a file that is not a capture or holds no JSON-RPC frame at all.
 */
export async function loadReplayScript(path: string): Promise<ReplayScript> {
  const r = openCapture(path);
  const frames: CaptureFrame[] = [];
  // a bridge capture: the editor's leg is the conversation an editor had (docs/captures.md)
  for await (const f of r) if (frameSide(f) === 'editor') frames.push(f);
  const script = scriptFromFrames(frames, r.header());
  script.skipped = r.skipped();
  if (!script.frames.some((f) => f.kind !== 'invalid')) {
    throw new CaptureFormatError(
      `${path}: no JSON-RPC frames to replay${script.skipped.length > 0 ? ` (${script.skipped.length} unreadable line${script.skipped.length === 1 ? '' : 's'} skipped)` : ''}`,
    );
  }
  return script;
}

/** `session/update` kind and v2 `state_update` state of a frame, for milestones and messages. */
export function updateKind(message: Record<string, unknown> | undefined): { update?: string; state?: string } {
  return {
    update: stringAt(message, 'params', 'update', 'sessionUpdate'),
    state: stringAt(message, 'params', 'update', 'state'),
  };
}

/** A short name of what a frame is, for messages: `session/prompt` request, response to #3, … */
export function describeFrame(f: Pick<ScriptFrame, 'kind' | 'method' | 'id'>): string {
  switch (f.kind) {
    case 'request':
      return `${f.method} request`;
    case 'notification':
      return `${f.method} notification`;
    case 'response':
      return `response to #${String(f.id)}`;
    case 'error':
      return `error answer to #${String(f.id)}`;
    default:
      return 'a line that is not JSON-RPC';
  }
}
