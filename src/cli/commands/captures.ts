import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { errnoCode } from '@acp-kit/agent/internal';
// single modules, not proxy/index.js: the barrel would load the `diff` package (capture diffs) too
import {
  CaptureFormatError,
  defaultCaptureDir,
  describeSkipped,
  emptyCaptureProblem,
  openCapture,
  type CaptureFrame,
  type SkippedLine,
  redactRaw,
} from '@acp-kit/tools/captures';
import { stringAt } from '@acp-kit/protocol/internal';
import { usageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { resultLine } from '../render/ndjson-events.js';

/** Flags of `acp-kit captures export`. */
export interface CapturesExportFlags {
  format?: 'ndjson' | 'json';
}

const write = (s: string): void => void process.stdout.write(s);

const FORMATS_HINT =
  'Pass one of the three formats acp-kit reads: an acp-kit capture (.ndjson, from acp-kit proxy --record), an acp-devtools export (.json) or a Rust SDK conductor trace (.jsons).';

/** A capture that cannot be read: a usage error (exit 2) naming the file and what is wrong with it. */
function fail(path: string, e: unknown): never {
  if (e instanceof CaptureFormatError) throw usageError(e.message, FORMATS_HINT);
  const code = errnoCode(e);
  if (code === 'ENOENT')
    throw usageError(`no such capture file: ${path}`, 'acp-kit captures list shows the recorded captures.');
  if (code === 'EISDIR')
    throw usageError(
      `${path} is a directory, not a capture file`,
      'Pass one capture file (acp-kit captures list shows the recorded captures).',
    );
  if (code === 'EACCES' || code === 'EPERM')
    throw usageError(
      `cannot read ${path}: permission denied`,
      "Check the file's permissions, or run as a user who may read it.",
    );
  if (code !== undefined)
    throw usageError(`cannot read ${path}: ${e instanceof Error ? e.message : code}`, FORMATS_HINT);
  throw e;
}

/**
 * After a capture was read to its end: a usage error (exit 2) when it held no frame (empty, or every
 * line skipped), so that no command reports "clean" on nothing; otherwise notes skipped lines on stderr.
 */
export function requireFrames(path: string, frames: number, skipped: readonly SkippedLine[]): void {
  const problem = emptyCaptureProblem(path, frames, skipped);
  if (problem !== undefined) throw usageError(problem, FORMATS_HINT);
  const note = describeSkipped(skipped);
  if (note !== undefined) process.stderr.write(`${path}: ${note}\n`);
}

/** `captures list`: the files of the default capture folder, newest last. */
export async function capturesListCommand(flags: { json?: boolean }): Promise<number> {
  const dir = defaultCaptureDir();
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith('.ndjson') || n.endsWith('.json') || n.endsWith('.jsons'))
      .sort();
  } catch {
    names = [];
  }
  if (names.length === 0 && !flags.json) {
    process.stderr.write(`no captures in ${dir} (record one with acp-kit proxy --record -- <agent command>)\n`);
    return ExitCode.Ok;
  }
  for (const name of names) {
    const path = join(dir, name);
    const size = statSync(path).size;
    const r = openCapture(path);
    let frames = 0;
    try {
      for await (const _ of r) frames++;
    } catch {
      /* listed with what was read */
    }
    const h = r.header();
    const row = { path, size, agent: h?.agent.join(' ') ?? '', frames, start: h?.start ?? '' };
    write(
      flags.json
        ? `${JSON.stringify({ type: 'capture', ...row })}\n`
        : `${row.start}  ${String(frames).padStart(6)} frames  ${String(size).padStart(9)} B  ${row.agent}  ${path}\n`,
    );
  }
  if (flags.json) write(resultLine(ExitCode.Ok, { captures: names.length }));
  return ExitCode.Ok;
}

function describe(f: CaptureFrame): string {
  // bridge captures: the agent leg is marked, the editor leg reads as a plain capture
  // proxy-chain traces: the hop is marked (each message is there once per hop it crossed)
  const arrow = `${f.side === 'agent' ? '[agent leg] ' : ''}${f.hop !== undefined ? `[hop ${f.hop}] ` : ''}${f.dir === 'editor->agent' ? 'editor -> agent' : 'agent -> editor'}`;
  const id = f.id !== undefined ? ` #${JSON.stringify(f.id)}` : '';
  let what = `${f.kind}${f.method ? ` ${f.method}` : ''}${id}`;
  if (f.method === 'session/update') {
    try {
      const kind = stringAt(JSON.parse(f.raw), 'params', 'update', 'sessionUpdate');
      if (kind !== undefined) what += ` ${kind}`;
    } catch {
      /* shown as is */
    }
  }
  if (f.kind === 'invalid') what += ` ${JSON.stringify(f.raw.length > 80 ? `${f.raw.slice(0, 80)}…` : f.raw)}`;
  return `${String(f.seq).padStart(6)}  ${(f.t / 1000).toFixed(3).padStart(9)}s  ${arrow}  ${what}  (${Buffer.byteLength(f.raw)} B)\n`;
}

/** `captures show FILE`: one readable line per frame. */
export async function capturesShowCommand(path: string): Promise<number> {
  const r = openCapture(path);
  let frames = 0;
  try {
    let first = true;
    for await (const f of r) {
      frames++;
      if (first) {
        const h = r.header();
        if (h)
          write(
            `capture of ${h.agent.join(' ') || '(unknown agent)'}, started ${h.start}${h.source ? `, from ${h.source}` : ''}\n`,
          );
        first = false;
      }
      write(describe(f));
    }
  } catch (e) {
    fail(path, e);
  }
  requireFrames(path, frames, r.skipped());
  const pv = r.metas().find((m) => m.protocolVersion !== undefined)?.protocolVersion;
  if (pv !== undefined) write(`protocol version ${pv}\n`);
  return ExitCode.Ok;
}

/** `captures export FILE`: NDJSON (default) or one JSON document, secrets redacted. */
export async function capturesExportCommand(path: string, flags: CapturesExportFlags): Promise<number> {
  const format = flags.format ?? 'ndjson';
  if (format !== 'ndjson' && format !== 'json')
    throw usageError(`--format must be ndjson or json (got ${JSON.stringify(format)})`);
  const r = openCapture(path);
  const frames: CaptureFrame[] = [];
  let headerWritten = false;
  let count = 0;
  try {
    for await (const f of r) {
      count++;
      const red = { ...f, raw: redactRaw(f.raw) };
      if (format === 'json') frames.push(red);
      else {
        if (!headerWritten) {
          headerWritten = true;
          write(`${JSON.stringify(r.header())}\n`);
        }
        write(`${JSON.stringify(red)}\n`);
      }
    }
  } catch (e) {
    fail(path, e);
  }
  requireFrames(path, count, r.skipped());
  if (format === 'json')
    write(`${JSON.stringify({ header: r.header() ?? null, metas: r.metas(), frames }, null, 2)}\n`);
  else {
    if (!headerWritten && r.header()) write(`${JSON.stringify(r.header())}\n`);
    for (const m of r.metas()) write(`${JSON.stringify(m)}\n`);
  }
  return ExitCode.Ok;
}

/** Re-export for the validate command. */
export { fail as captureReadFailure };
