import type { AuthStatus } from '@acp-kit/protocol';
import type { CloseInfo } from '@acp-kit/protocol/rpc';
import type { ElicitationEvent } from './elicitations.js';

/** Something the agent did wrong that the connection survived (never thrown into the app). */
export interface ClientProblem {
  /**
   * `parse`: a non-JSON line on the agent's stdout; `invalid-message` / `unknown-response`:
   * JSON-RPC misuse; `invalid-update`: a `session/update` that failed to decode;
   * `unknown-session`: an update or request for a session this client does not know;
   * `handler-error`: a local handler failed.
   */
  kind: 'parse' | 'invalid-message' | 'unknown-response' | 'handler-error' | 'invalid-update' | 'unknown-session';
  message: string;
  sessionId?: string;
  detail?: unknown;
}

/** Events of a {@link ClientConnection}. */
export interface ClientEvents {
  problem: (problem: ClientProblem) => void;
  /** The agent process's stderr, as it arrives (ACP-ALL-TRANS-07). */
  stderr: (text: string) => void;
  /** The connection ended (agent exit, EOF, or `close()`). */
  close: (info: CloseInfo) => void;
  /** An elicitation was asked, answered or completed (issue 26). */
  elicitation: (event: ElicitationEvent) => void;
  /** The agent's auth state changed (unstable `auth/status_update`; a state not known here reads as `unknown`). */
  authStatus: (status: AuthStatus) => void;
}

/** A minimal typed event emitter; listener errors are swallowed so they never break the protocol loop. */
export class Emitter<E extends { [K in keyof E]: (...args: never[]) => void }> {
  private readonly listeners = new Map<keyof E, Set<(...args: never[]) => void>>();

  /** Adds a listener; returns the function that removes it. */
  on<K extends keyof E>(event: K, listener: E[K]): () => void {
    const set = this.listeners.get(event) ?? new Set();
    this.listeners.set(event, set);
    set.add(listener);
    return () => set.delete(listener);
  }

  emit<K extends keyof E>(event: K, ...args: Parameters<E[K]>): void {
    const set = this.listeners.get(event);
    if (!set) return;
    for (const l of [...set]) {
      try {
        // trust point: `on` stored an E[K] for this key, but TypeScript cannot relate a listener
        // kept in the per-key set to Parameters<E[K]> across the generic key
        (l as (...a: Parameters<E[K]>) => void)(...args);
      } catch {
        /* a listener's failure is its own business */
      }
    }
  }
}
