import { isObj, type JsonObject } from '@acp-kit/protocol/internal';

/**
 * The document `acp-kit captures export --format json` writes: the capture's header (null when it
 * had none), its meta entries and its frames, each as the NDJSON capture has them. Every reader of
 * captures takes it back ({@link openCapture}).
 */
export interface CaptureJsonExport {
  header: JsonObject | null;
  metas: unknown[];
  frames: unknown[];
}

/** Whether a parsed JSON document is a {@link CaptureJsonExport}. */
export function isCaptureJsonExport(v: unknown): v is CaptureJsonExport {
  return (
    isObj(v) &&
    Array.isArray(v.frames) &&
    Array.isArray(v.metas) &&
    (v.header === null || (isObj(v.header) && v.header.format === 'acp-kit-capture'))
  );
}
