/**
 * `acp-kit/inspector`: a local web inspector for captures (saved or live): the frames, their
 * schema and rule violations, latency, and the session they build, decoded through the v1/v2
 * codecs into the neutral model.
 * @packageDocumentation
 */
export { startInspector, CONTENT_SECURITY_POLICY, type InspectorOptions, type InspectorHandle } from './server.js';
export { CaptureModel, ROW, type RowTuple, type FrameDetail, type ModelEvent } from './model.js';
export {
  SessionViewBuilder,
  type SessionView,
  type SessionItem,
  type EntityItem,
  type TerminalItem,
  type PermissionView,
  type ForegroundChange,
  type ClientTerminalView,
} from './session-view.js';
export { loadCapture, CaptureTail } from './source.js';
export { registerLive, listLive, liveDir, type LiveRegistration } from './live.js';
export { latencyTable, type MethodLatency, type RequestSpan } from './stats.js';
/** Nearest-rank percentile: the proxy's, re-exported here for the inspector's earlier users. */
export { percentile } from '../captures/latency.js';
export { markFields, type FieldMarks } from './undeclared.js';
