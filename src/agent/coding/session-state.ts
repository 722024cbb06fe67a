import type { Cost } from '../../protocol/index.js';
import type { AgentSession } from '../types.js';
import type { ConversationMessage } from './model.js';
import type { AgentMode } from './tool.js';

/** The coding agent's per-session state, kept in `session.data`. */
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

const KEY = 'acp-kit/coding-agent';

/** Gets (creating on first use) the coding agent's state of `session`. */
export function codingState(session: AgentSession, defaults: { mode?: AgentMode } = {}): CodingSessionState {
  let s = session.data.get(KEY) as CodingSessionState | undefined;
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
    session.data.set(KEY, s);
  }
  return s;
}
