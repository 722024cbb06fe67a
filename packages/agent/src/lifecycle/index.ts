import { AcpError } from '@acp-kit/protocol';
import type { AgentLifecycle } from './types.js';
import { v1Lifecycle } from './v1.js';
import { v2Lifecycle } from './v2.js';

export type { AgentLifecycle, LifecycleSession, PromptJob, TurnEnd } from './types.js';

const LIFECYCLES: ReadonlyMap<number, AgentLifecycle> = new Map([v1Lifecycle, v2Lifecycle].map((l) => [l.version, l]));

/** The lifecycle of a negotiated protocol version: the one place the agent runtime chooses by version. */
export function lifecycleFor(version: number): AgentLifecycle {
  const lifecycle = LIFECYCLES.get(version);
  if (!lifecycle) throw AcpError.internal(`no agent lifecycle for protocol version ${version}`);
  return lifecycle;
}
