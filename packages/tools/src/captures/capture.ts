import { isUtf8 } from 'node:buffer';
import { closeSync, createReadStream, fsyncSync, mkdirSync, openSync, statSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import {
  devtoolsFrames,
  devtoolsHeader,
  devtoolsMessageLines,
  isDevtoolsExport,
  topLevelArrayLines,
  type DevtoolsExport,
} from './devtools-export.js';
import { isObj, type JsonObject } from '@acp-kit/protocol/internal';
import { isCaptureJsonExport, type CaptureJsonExport } from './json-export.js';
import type { CaptureFrame, CaptureSide, FrameDirection, FrameId, FrameKind } from './frame.js';

export type { CaptureFrame, CaptureSide, FrameDirection, FrameId, FrameKind } from './frame.js';

/** The leg a frame was on (`editor` when the capture does not say). */
export function frameSide(f: Pick<CaptureFrame, 'side'>): CaptureSide {
  return f.side ?? 'editor';
}

/** The first line of an acp-kit capture. */
export interface CaptureHeader {
  type: 'header';
  /** Format marker and version of this file format. */
  format: 'acp-kit-capture';
  formatVersion: 1;
  /** The acp-kit version that wrote it. */
  acpKit: string;
  /** The agent command line (command first). */
  agent: string[];
  /** Wall-clock start, ISO 8601 (frame `t` values count from here). */
  start: string;
  /** Where the capture came from when it was converted (e.g. `acp-devtools`). */
  source?: string;
}

/** Facts learnt while recording, written as they become known (after the frame that revealed them). */
export interface CaptureMeta {
  type: 'meta';
  /** The frame that revealed it. */
  seq: number;
  t: number;
  /** The protocol version the initialize response negotiated (on the editor's leg). */
  protocolVersion?: number;
  /** Bridge captures: the version negotiated on the agent's leg. */
  agentProtocolVersion?: number;
  /** The agent exited: its code or signal. */
  exitCode?: number | null;
  signal?: string | null;
}

/** Anything a capture file holds, line by line. */
export type CaptureEntry = CaptureHeader | CaptureMeta | ({ type: 'frame' } & CaptureFrame);

/**
 * The decoded JSON-RPC shape of one raw line, by `kind`: requests and notifications have a method,
 * answers an id, and every JSON-RPC kind carries its parsed object as `message` (left out by the
 * light `scanFrame`); `invalid` carries whatever parsed (undefined when not JSON).
 */
export type DecodedFrame =
  | { kind: 'request'; method: string; id?: FrameId; message?: Record<string, unknown> }
  | { kind: 'notification'; method: string; id?: undefined; message?: Record<string, unknown> }
  | { kind: 'response' | 'error'; method?: undefined; id?: FrameId; message?: Record<string, unknown> }
  | { kind: 'invalid'; method?: undefined; id?: undefined; message?: unknown };

/** A JSON-RPC id: string, number or `null` (anything else is no id). */
export function isFrameId(v: unknown): v is FrameId {
  return typeof v === 'string' || typeof v === 'number' || v === null;
}

const FRAME_KINDS: ReadonlySet<unknown> = new Set<FrameKind>([
  'request',
  'notification',
  'response',
  'error',
  'invalid',
]);
function isFrameKind(v: unknown): v is FrameKind {
  return FRAME_KINDS.has(v);
}

/** Classifies one raw line (lenient: a trailing `\r` or blanks are fine for JSON). */
export function decodeFrame(raw: string): DecodedFrame {
  let message: unknown;
  try {
    message = JSON.parse(raw);
  } catch {
    return { kind: 'invalid' };
  }
  if (!isObj(message)) return { kind: 'invalid', message };
  const hasId = 'id' in message;
  const id = hasId && isFrameId(message.id) ? message.id : undefined;
  if (typeof message.method === 'string') {
    return hasId
      ? { kind: 'request', method: message.method, id, message }
      : { kind: 'notification', method: message.method, message };
  }
  if (hasId && 'error' in message) return { kind: 'error', id, message };
  if (hasId && 'result' in message) return { kind: 'response', id, message };
  return { kind: 'invalid', message };
}

export { scanFrame } from './scan.js';

/**
 * The data root acp-kit uses (same rule as the agent runtime's session store): `$ACP_KIT_DATA_DIR`,
 * else `$XDG_DATA_HOME/acp-kit`, else `~/.local/share/acp-kit`.
 */
export function dataRoot(env: NodeJS.ProcessEnv = process.env): string {
  return env.ACP_KIT_DATA_DIR
    ? env.ACP_KIT_DATA_DIR
    : join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'acp-kit');
}

/** Where captures go by default: `<data root>/captures`. */
export function defaultCaptureDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(dataRoot(env), 'captures');
}

/** A fresh file name for a capture started at `date` (sortable, unique per process). */
export function defaultCapturePath(env: NodeJS.ProcessEnv = process.env, date = new Date()): string {
  const stamp = date.toISOString().replace(/[:.]/g, '-');
  return join(defaultCaptureDir(env), `${stamp}-${process.pid}.ndjson`);
}

/**
 * Appends a capture, one NDJSON line per entry, with synchronous writes: once
 * {@link CaptureWriter.frame} returns (or, between {@link CaptureWriter.cork} and
 * {@link CaptureWriter.uncork}, once `uncork` returns), the frames are in the kernel's page cache,
 * so they survive a `kill -9` of this process (the proxy records before it forwards).
 */
export class CaptureWriter {
  readonly path: string;
  private fd: number | undefined;
  private readonly t0: bigint;
  private seq = 0;
  /**
   * Lines held while corked, encoded straight into one reused buffer: one write for all of them,
   * and no per-frame array, join or Buffer allocation (the record path's cost per frame).
   */
  private buf: Buffer = Buffer.allocUnsafe(64 * 1024);
  /** Bytes of {@link buf} in use; only meaningful while corked. */
  private used = 0;
  private corked = false;

  /** Creates (or appends to) `path` and writes the header line. */
  constructor(
    path: string,
    header: Omit<CaptureHeader, 'type' | 'format' | 'formatVersion' | 'start'> & { start?: string },
  ) {
    this.path = path;
    // a capture holds whole conversations (prompts, files, tokens in them): private to the user
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    this.fd = openSync(path, 'a', 0o600);
    this.t0 = process.hrtime.bigint();
    const head: CaptureHeader = {
      type: 'header',
      format: 'acp-kit-capture',
      formatVersion: 1,
      acpKit: header.acpKit,
      agent: header.agent,
      start: header.start ?? new Date().toISOString(),
      ...(header.source ? { source: header.source } : {}),
    };
    this.line(head);
  }

  /** Milliseconds since the capture started (3 decimals). */
  now(): number {
    return Math.round(Number(process.hrtime.bigint() - this.t0) / 1000) / 1000;
  }

  /**
   * Records one frame and returns it (with its seq and time); `side` only for a bridge's legs.
   * `rawBytes`, the bytes `raw` was decoded from, lets a corked writer copy them escaped instead of
   * serialising `raw` again (the capture line is the same either way).
   */
  frame(
    dir: FrameDirection,
    raw: string,
    decoded: DecodedFrame = decodeFrame(raw),
    side?: CaptureSide,
    rawBytes?: Buffer,
    truncated?: number,
  ): CaptureFrame {
    const f: CaptureFrame = { seq: ++this.seq, t: this.now(), dir, raw, kind: decoded.kind };
    if (decoded.method !== undefined) f.method = decoded.method;
    if (decoded.id !== undefined) f.id = decoded.id;
    if (side !== undefined) f.side = side;
    if (truncated !== undefined) f.truncated = truncated;
    // the same line JSON.stringify(f) gives, without building it from the object (hot path)
    let tail = `,"kind":"${f.kind}"`;
    if (f.method !== undefined) tail += `,"method":${JSON.stringify(f.method)}`;
    if (f.id !== undefined) tail += `,"id":${JSON.stringify(f.id)}`;
    if (side !== undefined) tail += `,"side":"${side}"`;
    if (truncated !== undefined) tail += `,"truncated":${truncated}`;
    const head = `{"seq":${f.seq},"t":${f.t},"dir":"${dir}","raw":`;
    if (rawBytes !== undefined && this.corked && this.fd !== undefined && this.escaped(head, rawBytes))
      this.text(`${tail}}\n`);
    else this.text(`${head}${JSON.stringify(raw)}${tail}}\n`);
    return f;
  }

  /**
   * Appends `head` and the JSON string of `bytes` to the held buffer, escaping byte by byte
   * (V8's JSON.stringify of a quote-heavy line costs more than the rest of the frame). Only for
   * valid UTF-8 without control characters, where the result is byte for byte what
   * `JSON.stringify(bytes.toString())` gives; returns false (nothing appended) otherwise.
   */
  private escaped(head: string, bytes: Buffer): boolean {
    if (!isUtf8(bytes)) return false;
    const start = this.used;
    this.text(head);
    // worst case every byte escaped, plus the quotes
    const need = this.used + 2 * bytes.length + 2;
    if (need > this.buf.length) {
      const grown = Buffer.allocUnsafe(Math.max(need, this.buf.length * 2));
      this.buf.copy(grown, 0, 0, this.used);
      this.buf = grown;
    }
    const out = this.buf;
    let o = this.used;
    out[o++] = 34;
    // an indexed loop: for-of over a Buffer is several times slower on this hot path
    for (let i = 0; i < bytes.length; i++) {
      const c = bytes[i];
      if (c === undefined) break; // not reached: i < length
      if (c === 34 || c === 92) {
        out[o++] = 92;
        out[o++] = c;
      } else if (c < 32) {
        // JSON.stringify has its own short escapes for these: let it write the line
        this.used = start;
        return false;
      } else out[o++] = c;
    }
    out[o++] = 34;
    this.used = o;
    return true;
  }

  /**
   * Holds the following entries in memory until {@link uncork}, which writes them with one
   * synchronous write. The proxy corks around the complete lines of one input chunk and forwards
   * the chunk only after `uncork`, so the crash guarantee holds with one write per chunk.
   */
  cork(): void {
    this.corked = true;
  }

  /** Writes what was held since {@link cork} (one write) and stops holding. */
  uncork(): void {
    this.corked = false;
    const used = this.used;
    this.used = 0;
    if (used > 0 && this.fd !== undefined) writeAll(this.fd, this.buf, used);
    // a burst of huge lines must not pin a huge buffer for the rest of the session
    if (this.buf.length > 4 * 1024 * 1024) this.buf = Buffer.allocUnsafe(64 * 1024);
  }

  /** Records a fact learnt at the last frame. */
  meta(fields: Omit<CaptureMeta, 'type' | 'seq' | 't'>): void {
    this.line({ type: 'meta', seq: this.seq, t: this.now(), ...fields });
  }

  /** Writes anything still held, flushes to disk and closes; later writes are ignored. */
  close(): void {
    if (this.fd === undefined) return;
    this.uncork();
    try {
      fsyncSync(this.fd);
    } catch {
      /* not all files can be synced (pipes); the data was written */
    }
    closeSync(this.fd);
    this.fd = undefined;
  }

  private line(value: object): void {
    this.text(JSON.stringify(value) + '\n');
  }

  private text(text: string): void {
    if (this.fd === undefined) return;
    if (!this.corked) {
      writeAll(this.fd, Buffer.from(text, 'utf8'), -1);
      return;
    }
    // UTF-8 needs at most 3 bytes per UTF-16 unit: reserve that, so one write() call encodes it
    const need = this.used + text.length * 3;
    if (need > this.buf.length) {
      const grown = Buffer.allocUnsafe(Math.max(need, this.buf.length * 2));
      this.buf.copy(grown, 0, 0, this.used);
      this.buf = grown;
    }
    this.used += this.buf.write(text, this.used, 'utf8');
  }
}

/** Writes the first `length` bytes of `buf` (all when -1) to `fd` synchronously, to the end. */
function writeAll(fd: number, buf: Buffer, length: number): void {
  const end = length < 0 ? buf.length : length;
  let off = 0;
  while (off < end) off += writeSync(fd, buf, off, end - off);
}

/**
 * Numbers frames the way {@link CaptureWriter.frame} does: through `recorder` when there is one,
 * else in memory only (validation without recording still needs seq and time).
 */
export function frameStamper(
  recorder: CaptureWriter | undefined,
): (
  dir: FrameDirection,
  raw: string,
  decoded: DecodedFrame,
  side?: CaptureSide,
  rawBytes?: Buffer,
  truncated?: number,
) => CaptureFrame {
  if (recorder)
    return (dir, raw, decoded, side, rawBytes, truncated) =>
      recorder.frame(dir, raw, decoded, side, rawBytes, truncated);
  let seq = 0;
  const t0 = process.hrtime.bigint();
  return (dir, raw, d, side, _bytes, truncated) => {
    const f: CaptureFrame = {
      seq: ++seq,
      t: Math.round(Number(process.hrtime.bigint() - t0) / 1000) / 1000,
      dir,
      raw,
      kind: d.kind,
    };
    if (d.method !== undefined) f.method = d.method;
    if (d.id !== undefined) f.id = d.id;
    if (side !== undefined) f.side = side;
    if (truncated !== undefined) f.truncated = truncated;
    return f;
  };
}

/** A capture read back: header (synthesised for foreign formats), then entries in file order. */
export interface CaptureReader extends AsyncIterable<CaptureFrame> {
  /** The header (available after the first frame was read, or after {@link CaptureReader.load}). */
  header(): CaptureHeader | undefined;
  /** Meta lines seen so far. */
  metas(): CaptureMeta[];
  /** Lines that were skipped (a torn last line, unknown shapes), with their 1-based line number. */
  skipped(): Array<{ line: number; reason: string }>;
}

/** Thrown for a file that is not a capture acp-kit can read. */
export class CaptureFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CaptureFormatError';
  }
}

/**
 * Opens a capture for reading: an acp-kit NDJSON capture (streamed, so memory stays flat), a Rust
 * SDK conductor trace (`.jsons`, streamed, see {@link ConductorTrace}) or an acp-devtools export
 * (`{version, session, messages:[…]}`, one JSON document, mapped to frames). A torn or unparsable
 * line is skipped and listed in {@link CaptureReader.skipped}.
 */
export function openCapture(path: string): CaptureReader {
  const r = new CaptureFileReader(path);
  return {
    [Symbol.asyncIterator]: () => r.frames(),
    header: () => r.header,
    metas: () => r.metas,
    skipped: () => r.skipped,
  };
}

/**
 * What the first line that is not empty says the file is: NDJSON (acp-kit capture, a header first),
 * a Rust conductor trace (its first frame read already), one JSON document on that line (frames to
 * yield), or the start of a pretty-printed JSON document (collected to the end, then read whole).
 */
type CaptureStart =
  | { kind: 'ndjson' }
  | { kind: 'conductor'; trace: ConductorTrace; first: unknown }
  | { kind: 'whole'; frames: Iterable<CaptureFrame> }
  | { kind: 'document' };

/** One reading of a capture file (see {@link openCapture}): the frames, and what was learnt on the way. */
class CaptureFileReader {
  header: CaptureHeader | undefined;
  readonly metas: CaptureMeta[] = [];
  readonly skipped: Array<{ line: number; reason: string }> = [];

  constructor(private readonly path: string) {}

  async *frames(): AsyncGenerator<CaptureFrame> {
    const rl = createInterface({ input: createReadStream(this.path, { encoding: 'utf8' }), crlfDelay: Infinity });
    let lineNo = 0;
    let start: CaptureStart | undefined;
    // a pretty-printed JSON document: its lines, and the line it starts on
    const rest: string[] = [];
    let firstLine = 1;
    try {
      for await (const line of rl) {
        lineNo++;
        if (start === undefined) {
          if (line.trim() === '') continue;
          start = this.start(line, lineNo);
          if (start.kind === 'whole') {
            yield* start.frames;
            return;
          }
          if (start.kind === 'document') {
            firstLine = lineNo;
            rest.push(line);
          } else if (start.kind === 'conductor') {
            const f = start.trace.frame(start.first, lineNo, this.skipped);
            if (f) yield f;
          }
          continue;
        }
        if (start.kind === 'document') rest.push(line);
        else if (line !== '') {
          const f = this.frameLine(line, lineNo, start.kind === 'conductor' ? start.trace : undefined);
          if (f) yield f;
        }
      }
      if (start?.kind === 'document') yield* this.document(rest.join('\n'), firstLine);
    } finally {
      rl.close();
    }
  }

  /** Reads the first line that is not empty (line 1 in messages: what comes before it is blank). */
  private start(line: string, lineNo: number): CaptureStart {
    const path = this.path;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      // an acp-devtools export is one (possibly pretty-printed) JSON document, not NDJSON
      if (line.trimStart().startsWith('{')) return { kind: 'document' };
      throw new CaptureFormatError(
        `${path}: line 1 is not JSON; expected an acp-kit capture (NDJSON), an acp-devtools export or a Rust conductor trace (.jsons)`,
      );
    }
    if (isCaptureJsonExport(parsed) || isDevtoolsExport(parsed))
      return { kind: 'whole', frames: this.wholeDocument(parsed, line, lineNo) };
    if (isConductorEvent(parsed)) {
      const trace = new ConductorTrace(path);
      this.header = trace.header;
      return { kind: 'conductor', trace, first: parsed };
    }
    if (!isObj(parsed) || parsed.type !== 'header' || parsed.format !== 'acp-kit-capture')
      throw new CaptureFormatError(
        `${path}: line 1 is not a capture header (expected {"type":"header","format":"acp-kit-capture",…}, a Rust conductor trace event {"type":"request","ts":…} or an acp-devtools export)`,
      );
    this.header = headerFrom(parsed);
    return { kind: 'ndjson' };
  }

  /** One NDJSON line after the header: a frame, a meta line, or a skipped line. */
  private frameLine(line: string, lineNo: number, conductor: ConductorTrace | undefined): CaptureFrame | undefined {
    let e: unknown;
    try {
      e = JSON.parse(line);
    } catch {
      this.skipped.push({ line: lineNo, reason: 'not JSON (torn line)' });
      return undefined;
    }
    if (conductor) return conductor.frame(e, lineNo, this.skipped);
    const meta = isObj(e) && e.type === 'meta' ? metaFrom(e) : undefined;
    if (meta) {
      this.metas.push(meta);
      return undefined;
    }
    const f = isObj(e) ? frameFrom(e) : undefined;
    if (!f) this.skipped.push({ line: lineNo, reason: 'not a frame' });
    return f;
  }

  /** A JSON document read whole on one line: a `captures export --format json` or an acp-devtools export. */
  private *wholeDocument(
    parsed: CaptureJsonExport | DevtoolsExport,
    line: string,
    lineNo: number,
  ): Generator<CaptureFrame> {
    if (isCaptureJsonExport(parsed)) yield* this.mapJsonExport(parsed, line, lineNo);
    else yield* this.mapDevtools(parsed, line, lineNo);
  }

  /** A pretty-printed JSON document, collected from its first line to the end of the file. */
  private *document(text: string, firstLine: number): Generator<CaptureFrame> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new CaptureFormatError(
        `${this.path}: not JSON; expected an acp-kit capture (NDJSON) or an acp-devtools export`,
      );
    }
    if (isCaptureJsonExport(parsed)) {
      yield* this.mapJsonExport(parsed, text, firstLine);
      return;
    }
    if (!isDevtoolsExport(parsed))
      throw new CaptureFormatError(
        `${this.path}: JSON document without a messages array; expected an acp-devtools export {version, session, messages:[…]}`,
      );
    yield* this.mapDevtools(parsed, text, firstLine);
  }

  private *mapJsonExport(doc: CaptureJsonExport, text: string, firstLine: number): Generator<CaptureFrame> {
    if (doc.header) this.header = headerFrom(doc.header);
    for (const m of doc.metas) if (isObj(m) && m.type === 'meta') this.metas.push(metaFrom(m));
    let lines: number[] | undefined;
    for (const [i, e] of doc.frames.entries()) {
      const f = isObj(e) ? frameFrom(e) : undefined;
      if (f) yield f;
      else {
        // located only when needed: a clean export is not scanned twice
        lines ??= topLevelArrayLines(text, firstLine, 'frames');
        this.skipped.push({ line: lines[i] ?? firstLine, reason: `frames[${i}] is not a frame` });
      }
    }
  }

  private *mapDevtools(doc: DevtoolsExport, text: string, firstLine: number): Generator<CaptureFrame> {
    this.header = devtoolsHeader(doc);
    yield* devtoolsFrames(doc, this.header, devtoolsMessageLines(text, firstLine), this.skipped, decodeFrame);
  }
}

/**
 * A header line as read: fields of the wrong type get neutral values (lenient on input), fields
 * this version does not know are kept.
 */
export function headerFrom(h: JsonObject): CaptureHeader {
  const { source, ...rest } = h;
  const out: CaptureHeader = {
    ...rest,
    type: 'header',
    format: 'acp-kit-capture',
    formatVersion: 1,
    acpKit: typeof h.acpKit === 'string' ? h.acpKit : '',
    agent: Array.isArray(h.agent) ? h.agent.map(String) : [],
    start: typeof h.start === 'string' ? h.start : new Date(0).toISOString(),
  };
  if (typeof source === 'string') out.source = source;
  return out;
}

/** A meta line as read: known fields of the wrong type are left out, unknown ones kept. */
export function metaFrom(o: JsonObject): CaptureMeta {
  const { protocolVersion, agentProtocolVersion, exitCode, signal, ...rest } = o;
  const out: CaptureMeta = {
    ...rest,
    type: 'meta',
    seq: typeof o.seq === 'number' ? o.seq : 0,
    t: typeof o.t === 'number' ? o.t : 0,
  };
  if (typeof protocolVersion === 'number') out.protocolVersion = protocolVersion;
  if (typeof agentProtocolVersion === 'number') out.agentProtocolVersion = agentProtocolVersion;
  if (typeof exitCode === 'number' || exitCode === null) out.exitCode = exitCode;
  if (typeof signal === 'string' || signal === null) out.signal = signal;
  return out;
}

/**
 * A frame line as read, or `undefined` when it has no `seq`, `raw` and `dir`. A missing time
 * reads as 0, a missing or unknown kind is taken from the raw line.
 */
export function frameFrom(o: JsonObject): CaptureFrame | undefined {
  const { type: _type, seq, t, dir, raw, kind, method, id, side, hop, truncated, ...rest } = o;
  if (typeof seq !== 'number' || typeof raw !== 'string' || (dir !== 'editor->agent' && dir !== 'agent->editor'))
    return undefined;
  const f: CaptureFrame = {
    ...rest,
    seq,
    t: typeof t === 'number' ? t : 0,
    dir,
    raw,
    kind: isFrameKind(kind) ? kind : decodeFrame(raw).kind,
  };
  if (typeof method === 'string') f.method = method;
  if (id !== undefined && isFrameId(id)) f.id = id;
  // an unknown side is no leg this reader knows: the frame keeps the editor's leg
  if (side === 'agent' || side === 'editor') f.side = side;
  if (typeof hop === 'string') f.hop = hop;
  if (typeof truncated === 'number') f.truncated = truncated;
  return f;
}

/**
 * The trace events of the Rust SDK's conductor (`agent-client-protocol-conductor`, `trace_to_path`):
 * one JSON object per line, `{"type":"request"|"response"|"notification", "ts": seconds since the
 * trace started, "from", "to", …}` (format: agentclientprotocol/rust-sdk,
 * src/agent-client-protocol-conductor/src/trace.rs, `TraceEvent`).
 */
interface ConductorEvent extends JsonObject {
  type: 'request' | 'response' | 'notification';
  ts: number;
  from: string;
  to: string;
}

function isConductorEvent(v: unknown): v is ConductorEvent {
  return (
    isObj(v) &&
    (v.type === 'request' || v.type === 'response' || v.type === 'notification') &&
    typeof v.ts === 'number' &&
    typeof v.from === 'string' &&
    typeof v.to === 'string'
  );
}

/**
 * Maps conductor trace events to frames. Components are `Client`, `Proxy(n)`, `Agent` (older
 * conductors: `client`, `proxy:n`, `agent`); a message travelling towards the agent
 * (`Client` -> `Proxy(0)` -> … -> `Agent`) is `editor->agent`, the other way `agent->editor`.
 * The conductor already unwraps its `_proxy/successor` envelopes, so each event is the ACP message
 * on one hop. MCP-over-ACP events (`protocol: "mcp"`) and their responses are skipped: they are
 * MCP, not ACP.
 */
class ConductorTrace {
  readonly header: CaptureHeader;
  private seq = 0;
  private readonly mcpIds = new Set<string>();

  constructor(path: string) {
    let start = new Date(0).toISOString();
    try {
      // the trace holds no wall clock; the file's creation time is the best start we have
      start = statSync(path).birthtime.toISOString();
    } catch {
      /* keep the epoch */
    }
    this.header = {
      type: 'header',
      format: 'acp-kit-capture',
      formatVersion: 1,
      acpKit: 'rust-conductor',
      agent: [],
      start,
      source: 'rust-conductor',
    };
  }

  frame(event: unknown, line: number, skipped: Array<{ line: number; reason: string }>): CaptureFrame | undefined {
    if (!isConductorEvent(event)) {
      skipped.push({
        line,
        reason: 'not a conductor trace event (type request/response/notification with ts, from, to)',
      });
      return undefined;
    }
    const from = componentRank(event.from);
    const to = componentRank(event.to);
    if (from === undefined || to === undefined || from === to) {
      skipped.push({ line, reason: `unknown components ${JSON.stringify(event.from)} -> ${JSON.stringify(event.to)}` });
      return undefined;
    }
    const dir: FrameDirection = from < to ? 'editor->agent' : 'agent->editor';
    // the conductor traces a forwarded message once per hop, with that hop's ids: the hop keeps
    // each hop's conversation apart (validate, stats and diff judge hop by hop)
    const hop = from < to ? `${event.from}-${event.to}` : `${event.to}-${event.from}`;
    const idKey = `${JSON.stringify(event.id ?? null)}`;
    if (event.protocol === 'mcp') {
      if (event.type === 'request') this.mcpIds.add(idKey);
      skipped.push({
        line,
        reason: `MCP-over-ACP ${String(event.type)} ${typeof event.method === 'string' ? event.method : ''}`.trimEnd(),
      });
      return undefined;
    }
    let message: Record<string, unknown>;
    if (event.type === 'response') {
      if (this.mcpIds.delete(idKey)) {
        skipped.push({ line, reason: 'MCP-over-ACP response' });
        return undefined;
      }
      message = {
        jsonrpc: '2.0',
        id: event.id ?? null,
        [event.is_error === true ? 'error' : 'result']: event.payload ?? null,
      };
    } else {
      // the conductor initializes proxies with `_proxy/initialize` (same params and answer as
      // `initialize`; see tests/trace_snapshot.rs), the RFD's name and acp-kit's conductor with
      // `proxy/initialize`: it is the initialize of the chain
      const method =
        event.method === '_proxy/initialize' || event.method === 'proxy/initialize' ? 'initialize' : event.method;
      message = { jsonrpc: '2.0', ...(event.type === 'request' ? { id: event.id ?? null } : {}), method };
      if (event.params !== undefined && event.params !== null) message.params = event.params;
    }
    const raw = JSON.stringify(message);
    const d = decodeFrame(raw);
    const f: CaptureFrame = { seq: ++this.seq, t: Math.round(event.ts * 1e6) / 1000, dir, raw, kind: d.kind, hop };
    if (d.method !== undefined) f.method = d.method;
    if (d.id !== undefined) f.id = d.id;
    return f;
  }
}

/** Position in the conductor chain: client 0, proxy n at n + 1, agent last. */
function componentRank(name: string): number | undefined {
  const s = name.trim().toLowerCase();
  if (s === 'client') return 0;
  if (s === 'agent') return Number.MAX_SAFE_INTEGER;
  const m = /^proxy(?:\((\d+)\)|:(\d+))$/.exec(s);
  return m ? 1 + Number(m[1] ?? m[2]) : undefined;
}

/** A line the reader skipped, with its 1-based line number and why. */
export interface SkippedLine {
  line: number;
  reason: string;
}

/** `N lines skipped; the first, line L: reason` (undefined when none was skipped). */
export function describeSkipped(skipped: readonly SkippedLine[]): string | undefined {
  const first = skipped[0];
  if (!first) return undefined;
  return `${skipped.length} line${skipped.length === 1 ? '' : 's'} skipped; ${skipped.length === 1 ? '' : 'the first, '}line ${first.line}: ${first.reason}`;
}

/**
 * Why a capture that was read to its end holds nothing to work on (no frame at all: an empty file,
 * only a header, every line skipped), naming `path`; undefined when it has frames. Tools must not
 * report "clean" on nothing.
 */
export function emptyCaptureProblem(path: string, frames: number, skipped: readonly SkippedLine[]): string | undefined {
  if (frames > 0) return undefined;
  const why = describeSkipped(skipped);
  return why ? `${path}: no frames: ${why}` : `${path}: no frames (an empty capture: nothing was recorded in it)`;
}

/** Reads a whole capture into memory (for small captures and tests). */
export async function readCapture(path: string): Promise<{
  header: CaptureHeader | undefined;
  frames: CaptureFrame[];
  metas: CaptureMeta[];
  skipped: Array<{ line: number; reason: string }>;
}> {
  const r = openCapture(path);
  const frames: CaptureFrame[] = [];
  for await (const f of r) frames.push(f);
  return { header: r.header(), frames, metas: r.metas(), skipped: r.skipped() };
}
