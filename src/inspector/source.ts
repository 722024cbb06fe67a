import { closeSync, openSync, readSync, statSync, watch, type FSWatcher } from 'node:fs';
import type { CaptureFrame, CaptureHeader, CaptureMeta } from '../proxy/capture.js';
import { openCapture } from '../proxy/capture.js';
import { CaptureModel } from './model.js';

/**
 * Loads a saved capture (acp-kit NDJSON or acp-devtools export) into a finished model.
 * Throws `CaptureFormatError` for files that are not captures.
 */
export async function loadCapture(path: string): Promise<CaptureModel> {
  const model = new CaptureModel();
  const r = openCapture(path);
  let metaCount = 0;
  for await (const f of r) {
    model.header ??= r.header();
    const metas = r.metas();
    // metas are written after the frame that revealed them: apply them before the next frame
    while (metaCount < metas.length) model.meta(metas[metaCount++]!);
    model.push(f);
  }
  model.header ??= r.header();
  const metas = r.metas();
  while (metaCount < metas.length) model.meta(metas[metaCount++]!);
  model.finish();
  return model;
}

/**
 * Follows a capture file that a proxy is still writing: reads complete lines as they are appended
 * (a `fs.watch` event, with a slow poll as a safety net for filesystems without events) and pushes
 * them into the model. A torn last line stays buffered until its newline arrives.
 */
export class CaptureTail {
  readonly model = new CaptureModel();
  private offset = 0;
  private partial = '';
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(readonly path: string, pollMs = 250) {
    this.read();
    try {
      this.watcher = watch(path, () => this.read());
      this.watcher.on('error', () => undefined);
    } catch {
      /* no watch support: the poll below does the work */
    }
    this.timer = setInterval(() => this.read(), pollMs);
    this.timer.unref();
  }

  /** Reads whatever was appended since the last read. */
  read(): void {
    if (this.closed) return;
    let size: number;
    try {
      size = statSync(this.path).size;
    } catch {
      return;
    }
    if (size <= this.offset) return;
    const fd = openSync(this.path, 'r');
    try {
      const buf = Buffer.alloc(size - this.offset);
      let got = 0;
      while (got < buf.length) {
        const n = readSync(fd, buf, got, buf.length - got, this.offset + got);
        if (n === 0) break;
        got += n;
      }
      this.offset += got;
      // split on bytes: a multi-byte character is never cut because lines end in '\n'
      const text = this.partial + buf.subarray(0, got).toString('utf8');
      const lines = text.split('\n');
      this.partial = lines.pop() ?? '';
      for (const line of lines) this.line(line);
    } finally {
      closeSync(fd);
    }
  }

  /** Stops following the file. */
  close(): void {
    this.closed = true;
    this.watcher?.close();
    if (this.timer) clearInterval(this.timer);
  }

  private line(line: string): void {
    if (line.trim() === '') return;
    let e: Record<string, unknown>;
    try {
      e = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    if (e.type === 'header') this.model.header ??= e as unknown as CaptureHeader;
    else if (e.type === 'meta') this.model.meta(e as unknown as CaptureMeta);
    else if (typeof e.seq === 'number' && typeof e.raw === 'string' && (e.dir === 'editor->agent' || e.dir === 'agent->editor')) {
      const { type: _t, ...f } = e;
      this.model.push(f as unknown as CaptureFrame);
    }
  }
}
