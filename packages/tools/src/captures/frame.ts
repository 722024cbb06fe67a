/**
 * What one recorded frame is: plain types with no imports, so the inspector's page (a browser
 * bundle type-checked without Node's types) shares them with the proxy that records frames.
 */

/** Which way a frame travelled through the proxy. */
export type FrameDirection = 'editor->agent' | 'agent->editor';

/**
 * Which leg of the connection a frame was on. A plain proxy has one leg (both sides see the same
 * bytes); the bridge has two: the editor's (in the editor's version) and the agent's (in the
 * agent's version). A frame without `side` is on the editor's leg.
 */
export type CaptureSide = 'editor' | 'agent';

/** The JSON-RPC kind of a frame; `invalid` = not a JSON-RPC object (not JSON, an array, no method/id). */
export type FrameKind = 'request' | 'notification' | 'response' | 'error' | 'invalid';

/** A JSON-RPC id as it appeared on the wire. */
export type FrameId = string | number | null;

/** One line that passed the proxy, as recorded (one NDJSON line of a capture, without `type`). */
export interface CaptureFrame {
  /** 1-based, in the order the proxy forwarded frames (both directions share the counter). */
  seq: number;
  /** Milliseconds since the capture started, monotonic clock. */
  t: number;
  dir: FrameDirection;
  /** The line exactly as text, without its `\n` (a `\r` before it is kept). */
  raw: string;
  kind: FrameKind;
  method?: string;
  id?: FrameId;
  /** The leg (bridge captures only; absent = `editor`, see {@link CaptureSide}). */
  side?: CaptureSide;
  /**
   * Traces of a proxy chain (Rust conductor): the hop the frame was on, its two adjacent
   * endpoints client-ward first (e.g. `Client-Proxy(0)`). Each hop is its own conversation, with
   * its own request ids; `dir` is the direction on that hop.
   */
  hop?: string;
  /**
   * Set when the line was longer than the proxy records whole: its length in bytes (`raw` holds
   * only its start, `kind` is `invalid`). The line itself was forwarded unchanged.
   */
  truncated?: number;
}
