import type { FrameId } from '../../captures/capture.js';
import { isObj } from '@acp-kit/protocol/internal';

/**
 * Fields whose string values are identifiers one side chose and the other side repeats later
 * (session ids, message ids, tool call ids, terminal ids, plan ids). When the live peer chose a
 * different value than the recording, every later occurrence is rewritten consistently.
 */
export const ID_FIELDS: ReadonlySet<string> = new Set([
  'sessionId',
  'messageId',
  'toolCallId',
  'terminalId',
  'planId',
  'userMessageId',
]);

/** Fields holding absolute paths: a different live `cwd` maps the recorded root onto the live one. */
export const PATH_FIELDS: ReadonlySet<string> = new Set(['cwd', 'path', 'additionalDirectories', 'roots']);

/**
 * Recorded -> live value mapping for ids and path roots. It learns by walking a recorded message
 * and the live message that stands for it side by side ({@link ValueMap.learn}), and rewrites
 * later messages ({@link ValueMap.apply}). Values nobody remapped stay as recorded.
 */
export class ValueMap {
  private readonly ids = new Map<string, string>();
  /** recorded root -> live root, longest first when applied */
  private readonly roots = new Map<string, string>();

  /** The live value for a recorded id (the recorded one when not remapped). */
  id(recorded: string): string {
    return this.ids.get(recorded) ?? recorded;
  }

  /** Maps paths under `recorded` onto `live` (e.g. `--cwd`). */
  mapRoot(recorded: string, live: string): void {
    if (recorded !== live && recorded.length > 0) this.roots.set(stripSlash(recorded), stripSlash(live));
  }

  /** Number of remapped ids and roots (for logs). */
  get size(): number {
    return this.ids.size + this.roots.size;
  }

  /**
   * Walks `recorded` and `live` in parallel; where an id field differs, later recorded values
   * map to the live one; where a `cwd` differs, the recorded root maps to the live root.
   */
  learn(recorded: unknown, live: unknown, key?: string): void {
    if (typeof recorded === 'string' && typeof live === 'string') {
      if (key === undefined || recorded === live) return;
      if (ID_FIELDS.has(key)) this.ids.set(recorded, live);
      else if (key === 'cwd' && isAbsolute(recorded) && isAbsolute(live)) this.mapRoot(recorded, live);
      return;
    }
    if (Array.isArray(recorded) && Array.isArray(live)) {
      const n = Math.min(recorded.length, live.length);
      for (let i = 0; i < n; i++) this.learn(recorded[i], live[i], key);
      return;
    }
    if (isObj(recorded) && isObj(live)) {
      for (const k of Object.keys(recorded)) if (k in live) this.learn(recorded[k], live[k], k);
    }
  }

  /** A copy of `value` with remapped ids and roots; `changed` tells whether anything was rewritten. */
  apply(value: unknown): { value: unknown; changed: boolean } {
    if (this.ids.size === 0 && this.roots.size === 0) return { value, changed: false };
    let changed = false;
    const walk = (v: unknown, key: string | undefined): unknown => {
      if (typeof v === 'string') {
        if (key === undefined) return v;
        if (ID_FIELDS.has(key)) {
          const m = this.ids.get(v);
          if (m !== undefined) {
            changed = true;
            return m;
          }
          return v;
        }
        if (PATH_FIELDS.has(key)) {
          const m = this.mapPath(v);
          if (m !== v) changed = true;
          return m;
        }
        return v;
      }
      if (Array.isArray(v)) return v.map((x) => walk(x, key));
      if (isObj(v)) {
        const out: Record<string, unknown> = {};
        for (const [k, x] of Object.entries(v)) out[k] = walk(x, k);
        return out;
      }
      return v;
    };
    const out = walk(value, undefined);
    return { value: out, changed };
  }

  private mapPath(p: string): string {
    let best: [recorded: string, live: string] | undefined;
    for (const [root, live] of this.roots) {
      if ((p === root || p.startsWith(root + '/')) && (best === undefined || root.length > best[0].length))
        best = [root, live];
    }
    return best === undefined ? p : best[1] + p.slice(best[0].length);
  }
}

/**
 * JSON-RPC ids of requests one side sends: the recorded id is kept unless a request with that id
 * is still in flight on the live connection; then a fresh id is used and the answer is matched
 * back through this map.
 */
export class RequestIdMap {
  private readonly live = new Map<string, FrameId>();
  private readonly inFlight = new Set<string>();
  private fresh = 0;

  /** Picks the live id for a recorded request id and marks it in flight. */
  open(recorded: FrameId): FrameId {
    let id: FrameId = recorded;
    if (this.inFlight.has(key(id))) {
      do id = `replay-${++this.fresh}`;
      while (this.inFlight.has(key(id)));
    }
    this.live.set(key(recorded), id);
    this.inFlight.add(key(id));
    return id;
  }

  /** The live id a recorded id was sent with (undefined when it was never sent). */
  liveId(recorded: FrameId): FrameId | undefined {
    return this.live.get(key(recorded));
  }

  /** The answer to a live id arrived: the id may be reused. */
  close(liveId: FrameId): void {
    this.inFlight.delete(key(liveId));
  }
}

/** Map key of a JSON-RPC id (1 and "1" are different ids). */
export function key(id: FrameId | undefined): string {
  return typeof id === 'string' ? `s:${id}` : `n:${String(id)}`;
}

function isAbsolute(p: string): boolean {
  return p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p);
}

function stripSlash(p: string): string {
  return p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p;
}
