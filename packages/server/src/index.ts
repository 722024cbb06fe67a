/**
 * `acp-kit/server`: ACP over the network (the Streamable HTTP & WebSocket transport RFD): one
 * `/acp` endpoint, bearer tokens, Origin checks and limits; the agent runs in-process or as a
 * stdio process per connection.
 */
export {
  startAcpServer,
  isLoopbackHost,
  type AcpServer,
  type AcpServerOptions,
  type Readiness,
  type AgentHost,
  type AgentHostContext,
  type AgentHostFactory,
} from './server.js';
export { inProcessAgent, stdioAgent, type InProcessAgentOptions } from './hosts.js';
export { cwdRootsCheck, type CwdRootsOptions } from './cwd-roots.js';
export type { CwdCheck } from './guard.js';
export { HttpServerConnection } from './http-connection.js';
export {
  WebSocketTransport,
  connectWebSocketTransport,
  type WebSocketTransportOptions,
  type WebSocketClientOptions,
} from '@acp-kit/protocol/websocket';
export {
  HttpClientTransport,
  HEADER_CONNECTION_ID,
  HEADER_SESSION_ID,
  type HttpClientTransportOptions,
} from '@acp-kit/protocol/http';
export { ClusterNode, type ClusterOptions } from './cluster/node.js';
export { NOT_OWNER, OWNER_STOPPED } from './cluster/error-codes.js';
export { TELEMETRY_SCOPE, type RequestLogRecord, type TelemetryOptions } from './observability/telemetry.js';
export { timedSessionStore } from './observability/instruments.js';
