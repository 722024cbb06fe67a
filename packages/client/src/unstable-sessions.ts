import { AcpError, ErrorCode, type AgentMethod } from '@acp-kit/protocol';

/** The capability (as each version spells it) that gates an unstable session method. */
const GATES: Partial<Record<AgentMethod, string>> = {
  'session/fork': 'fork',
  'session/archive': 'archive',
  'session/unarchive': 'archive',
  'session/status': 'status',
  'session/set_title': 'title',
};

/**
 * Refuses an unstable session method the agent does not advertise, before anything is sent,
 * naming the capability it lacks (v1 `sessionCapabilities.<x>`, v2 `session.<x>`).
 */
export function requireUnstable(method: AgentMethod, version: 1 | 2 | undefined, supported: boolean): void {
  if (supported) return;
  const gate = GATES[method] ?? method;
  const name = version === 2 ? `session.${gate}` : `sessionCapabilities.${gate}`;
  throw new AcpError(
    ErrorCode.MethodNotFound,
    `the agent does not advertise the ${name} capability, so ${method} (unstable) is not available`,
  );
}
