import type { CaptureHeader } from './capture.js';
import type { CaptureFrame, FrameDirection } from './frame.js';
import { isObj, type JsonObject } from '@acp-kit/protocol/internal';

/**
 * An acp-devtools session export, as its `acp-devtools export` writes it (public repository
 * maksugr/acp-devtools, packages/core/src/storage/export.ts: `SessionExport`, read back by its
 * `parseExport`): `{version: 1, exportedAt, tool: {name, version}, session: {id, name, agentCommand,
 * clientName, startedAt, endedAt}, messages: [{seq, timestamp, direction, kind, method?, rpcId?, raw,
 * payload, parseError?}]}`. Times are epoch milliseconds, `direction` is `editor-to-agent` or
 * `agent-to-editor`, `agentCommand` the agent's command line joined with spaces, `raw` the line as
 * it passed (its `\r` and empty lines dropped by acp-devtools).
 */
export interface DevtoolsExport extends JsonObject {
  session?: unknown;
  messages: unknown[];
}

/** True for a parsed JSON document that has the shape of an acp-devtools export (a `messages` array). */
export function isDevtoolsExport(v: unknown): v is DevtoolsExport {
  return isObj(v) && Array.isArray(v.messages) && v.type !== 'header';
}

const DIRECTIONS: Readonly<Record<string, FrameDirection>> = {
  'editor-to-agent': 'editor->agent',
  'agent-to-editor': 'agent->editor',
};

/** The capture header of an export: its agent command and start; `source` says where it came from. */
export function devtoolsHeader(doc: DevtoolsExport): CaptureHeader {
  const session = isObj(doc.session) ? doc.session : {};
  const first = doc.messages.find((m) => isObj(m) && typeof m.timestamp === 'number');
  const startMs =
    typeof session.startedAt === 'number' ? session.startedAt : isObj(first) ? first.timestamp : undefined;
  // the export keeps only the joined command line: split at the spaces it was joined with
  const agent = typeof session.agentCommand === 'string' ? session.agentCommand.split(' ').filter((w) => w !== '') : [];
  const start =
    typeof startMs === 'number' && Number.isFinite(startMs)
      ? new Date(startMs).toISOString()
      : new Date(0).toISOString();
  return {
    type: 'header',
    format: 'acp-kit-capture',
    formatVersion: 1,
    acpKit: 'acp-devtools',
    agent,
    start,
    source: 'acp-devtools',
  };
}

/**
 * The frames of an export, in its order. A message that cannot be a frame (no `raw` nor `payload`,
 * an unknown direction) is skipped and reported at the line of the file where it starts:
 * `lines[i]` for `messages[i]` (see {@link devtoolsMessageLines}).
 */
export function* devtoolsFrames(
  doc: DevtoolsExport,
  header: CaptureHeader,
  lines: readonly number[],
  skipped: Array<{ line: number; reason: string }>,
  decode: (raw: string) => { kind: CaptureFrame['kind']; method?: string; id?: CaptureFrame['id'] },
): Generator<CaptureFrame> {
  const startMs = Date.parse(header.start);
  let seq = 0;
  for (const [i, m] of doc.messages.entries()) {
    const line = lines[i] ?? lines[lines.length - 1] ?? 1;
    if (!isObj(m)) {
      skipped.push({ line, reason: `messages[${i}] is not an object` });
      continue;
    }
    const dir = typeof m.direction === 'string' ? DIRECTIONS[m.direction] : undefined;
    if (!dir) {
      skipped.push({
        line,
        reason: `messages[${i}]: direction ${JSON.stringify(m.direction)} is neither "editor-to-agent" nor "agent-to-editor"`,
      });
      continue;
    }
    const raw =
      typeof m.raw === 'string'
        ? m.raw
        : m.payload !== undefined && m.payload !== null
          ? JSON.stringify(m.payload)
          : undefined;
    if (raw === undefined) {
      skipped.push({ line, reason: `messages[${i}] has neither raw nor payload` });
      continue;
    }
    const d = decode(raw);
    seq = typeof m.seq === 'number' ? m.seq : seq + 1;
    const t = typeof m.timestamp === 'number' && Number.isFinite(startMs) ? m.timestamp - startMs : 0;
    const f: CaptureFrame = { seq, t, dir, raw, kind: d.kind };
    if (d.method !== undefined) f.method = d.method;
    if (d.id !== undefined) f.id = d.id;
    yield f;
  }
}

/**
 * The 1-based line (counted from `firstLine`, the line `text` starts at) where each element of the
 * top-level `messages` array of the JSON document `text` starts: acp-devtools pretty-prints its
 * exports (one message over many lines) or, with `--no-pretty`, writes one line.
 */
export function devtoolsMessageLines(text: string, firstLine: number): number[] {
  return topLevelArrayLines(text, firstLine, 'messages');
}

/** The 1-based line (from `firstLine`) where each element of the top-level array `key` of the JSON document `text` starts. */
export function topLevelArrayLines(text: string, firstLine: number, arrayKey: string): number[] {
  const lines: number[] = [];
  let line = firstLine;
  let depth = 0;
  let key = '';
  let inMessages = false;
  let expectValue = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) line++;
    else if (c === 34 /* " */) {
      const start = i;
      for (i++; i < text.length && text.charCodeAt(i) !== 34; i++) if (text.charCodeAt(i) === 92) i++;
      if (depth === 1) key = text.slice(start + 1, i);
      else if (inMessages && depth === 2 && expectValue) {
        lines.push(line);
        expectValue = false;
      }
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (inMessages && depth === 2 && expectValue) {
        lines.push(line);
        expectValue = false;
      }
      depth++;
      if (depth === 2 && c === 91 && key === arrayKey) {
        inMessages = true;
        expectValue = true;
      }
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      depth--;
      if (depth === 1) inMessages = false;
    } else if (c === 44 /* , */ && inMessages && depth === 2) expectValue = true;
    else if (inMessages && depth === 2 && expectValue && c > 32) {
      // a number, true, false or null as an element
      lines.push(line);
      expectValue = false;
    }
  }
  return lines;
}
