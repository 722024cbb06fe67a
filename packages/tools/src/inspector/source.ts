import { closeSync, openSync, readSync, statSync, watch, type FSWatcher } from 'node:fs';
import { frameFrom, headerFrom, metaFrom, openCapture, type CaptureSide } from '../captures/capture.js';
import { isObj } from '@acp-kit/protocol/internal';
import { CaptureModel } from './model.js';

/**
 * Loads a saved capture (acp-kit NDJSON or acp-devtools export) into a finished, fully analyzed
 * model. Throws `CaptureFormatError` for files that are not captures.
 */
export async function loadCapture(path: string): Promise<CaptureModel> {
  const load = startLoad(path);
  await load.done;
  await load.model.whenAnalyzed();
  return load.model;
}

/** A saved capture being read by {@link startLoad}. */
export interface CaptureLoad {
  /** Grows while the file is read; finished at its end. */
  model: CaptureModel;
  /** Resolves once the file is known to be a capture (its first frame is indexed, or it has none). */
  ready: Promise<void>;
  /** Resolves when every frame is indexed (analysis continues in the background). */
  done: Promise<void>;
  /** Stops reading and analyzing. */
  stop(): void;
}

/**
 * Starts reading a saved capture into a model that can be served while it grows: frames are
 * indexed (timeline rows, pairing) as they are read, yielding to the event loop every few
 * milliseconds; validation and session building follow in the background
 * ({@link CaptureModel.analyzeInBackground}). `ready` rejects with `CaptureFormatError` for files
 * that are not captures.
 */
export function startLoad(path: string, sliceMs = 12, side: CaptureSide = 'editor'): CaptureLoad {
  const model = new CaptureModel();
  model.deferAnalysis = true;
  model.side = side;
  let stopped = false;
  let markReady!: () => void;
  let failReady!: (e: unknown) => void;
  const ready = new Promise<void>((res, rej) => {
    markReady = res;
    failReady = rej;
  });
  const done = (async () => {
    const r = openCapture(path);
    let metaCount = 0;
    // metas the reader found since the last call, in order
    const applyMetas = (): void => {
      for (const metas = r.metas(); metaCount < metas.length; metaCount++) {
        const m = metas[metaCount];
        if (m) model.meta(m);
      }
    };
    let sliceEnd = performance.now() + sliceMs;
    let n = 0;
    try {
      for await (const f of r) {
        if (stopped) return;
        model.header ??= r.header();
        // metas are written after the frame that revealed them: apply them before the next frame
        applyMetas();
        model.push(f);
        if (n++ === 0) markReady();
        // the clock is read every 64 frames; past the slice, let the server answer requests
        if (n % 64 === 0 && performance.now() >= sliceEnd) {
          await new Promise<void>((res) => setImmediate(res));
          sliceEnd = performance.now() + sliceMs;
        }
      }
    } catch (e) {
      failReady(e);
      throw e;
    }
    model.header ??= r.header();
    applyMetas();
    markReady();
    if (!stopped) model.finish();
  })();
  // `ready` carries the error to whoever awaits it; `done` must not be an unhandled rejection too
  done.catch(() => undefined);
  return {
    model,
    ready,
    done,
    stop: () => {
      stopped = true;
      model.stopAnalysis();
    },
  };
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

  constructor(
    readonly path: string,
    pollMs = 250,
  ) {
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
    let e: unknown;
    try {
      e = JSON.parse(line);
    } catch {
      return;
    }
    if (!isObj(e)) return;
    // read as openCapture reads a saved file: the same lenient field checks for a growing one
    if (e.type === 'header') this.model.header ??= headerFrom(e);
    else if (e.type === 'meta') this.model.meta(metaFrom(e));
    else {
      const f = frameFrom(e);
      if (f) this.model.push(f);
    }
  }
}
