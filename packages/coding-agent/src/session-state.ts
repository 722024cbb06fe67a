import type { Cost } from '@acp-kit/protocol';
import type { AgentSession } from '@acp-kit/agent';
import type { ConversationMessage } from './model.js';
import type { AgentMode } from './tool.js';

/** The coding agent's per-session state, kept beside the session (it lives as long as the session object). */
export interface CodingSessionState {
  /** Conversation replayed to the model on every request (follow-up prompts have context). */
  history: ConversationMessage[];
  /** Tool names the user answered `allow_always` for. */
  alwaysAllow: Set<string>;
  /** Tool names the user answered `reject_always` for. */
  alwaysReject: Set<string>;
  mode: AgentMode;
  /** Cumulative cost of the session (ACP-ALL-USAGE-01), when the model reports cost. */
  cost: Cost | null;
  /** Model requests made in this session (all turns). */
  modelRequests: number;
  /** Set once the session has a title (sent from the first prompt, or restored). */
  titled: boolean;
}

// keyed by the session object, typed: no untyped `session.data` slot to read back
const states = new WeakMap<AgentSession, CodingSessionState>();

/** Gets (creating on first use) the coding agent's state of `session`. */
export function codingState(session: AgentSession, defaults: { mode?: AgentMode } = {}): CodingSessionState {
  let s = states.get(session);
  if (!s) {
    s = {
      history: [],
      alwaysAllow: new Set(),
      alwaysReject: new Set(),
      mode: defaults.mode ?? 'ask',
      cost: null,
      modelRequests: 0,
      titled: false,
    };
    states.set(session, s);
  }
  return s;
}
