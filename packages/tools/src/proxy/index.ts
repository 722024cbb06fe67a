/**
 * `acp-kit/proxy`: a transparent stdio proxy between an editor and an ACP agent, its capture
 * format (record, read, redact), a validator for captures (schema + stateful rules), and capture
 * statistics and diffs.
 * @packageDocumentation
 */
export { startProxy, type ProxyOptions, type ProxyHandle, type ProxyResult } from './proxy.js';
export type { AgentCommandOptions } from './agent-process.js';
export {
  CaptureWriter,
  CaptureFormatError,
  openCapture,
  readCapture,
  decodeFrame,
  scanFrame,
  frameSide,
  dataRoot,
  defaultCaptureDir,
  defaultCapturePath,
  describeSkipped,
  emptyCaptureProblem,
  type SkippedLine,
  type CaptureEntry,
  type CaptureFrame,
  type CaptureHeader,
  type CaptureMeta,
  type CaptureReader,
  type CaptureSide,
  type DecodedFrame,
  type FrameDirection,
  type FrameId,
  type FrameKind,
} from '../captures/capture.js';
export { CaptureValidator, type Violation, type ViolationRule } from '../captures/validate.js';
export { redactMessage, redactRaw } from '../captures/redact.js';
export {
  startBridge,
  type BridgeOptions,
  type BridgeMode,
  type BridgeHandle,
  type BridgeRoute,
} from './bridge/index.js';
export {
  replayAsAgent,
  replayAsClient,
  loadReplayScript,
  scriptFromFrames,
  REPLAY_MISMATCH_CODE,
  type ReplayAgentOptions,
  type ReplayAgentResult,
  type ReplayClientOptions,
  type ReplayClientResult,
  type ReplayDivergence,
  type ReplayPermission,
  type ReplayScript,
  type ScriptFrame,
} from './replay/index.js';
export {
  RequestPairer,
  oppositeDirection,
  percentile,
  summarizeLatencies,
  type AnsweredRequest,
  type LatencySummary,
  type PendingRequest,
} from '../captures/latency.js';
export {
  CaptureStatsCollector,
  captureStats,
  type CaptureStats,
  type ErrorCodeStats,
  type MethodStats,
  type TurnStats,
} from '../captures/stats.js';
// per-hop latency of a proxy chain's trace (acp-kit stats)
export { hopLatencies, type HopLatency } from '../captures/hop-latency.js';
export {
  diffCaptures,
  type CaptureDiff,
  type DiffEntry,
  type DiffFrameRef,
  type FieldDifference,
  type MethodLatencyDelta,
  type VersionInfo,
} from '../captures/diff.js';
// MCP over ACP for proxy components: inject an MCP server into session/new and serve it here
export {
  injectMcpServer,
  agentAdvertisesMcpOverAcp,
  type McpInjection,
  type McpInjectionSource,
  type McpInjectionNotify,
} from '../mcp-over-acp/index.js';
// proxy chains: the conductor and the component API (packages/tools/src/conductor)
export * from '../conductor/index.js';
