import type { PermissionRequest, SessionInfo } from '../../protocol/model/session.js';
import type { SessionState } from '../../protocol/state/session-state.js';
import type { TimelineEntry } from '../../protocol/state/entities.js';

/** A permission request waiting for the user's pick. */
export interface PendingPermission {
  request: PermissionRequest;
  /** Resolves the request with an offered `optionId`, or `cancelled`. */
  answer(optionId: string): void;
}

/** A line the client itself adds to the feed (the prompt, decisions, stop reasons, errors). */
export interface Note {
  kind: 'prompt' | 'info' | 'error' | 'permission' | 'stop';
  text: string;
  /** for `stop` */
  ok?: boolean;
}

/** One item of the chat feed, in order. */
export type FeedItem = { id: number; entry: TimelineEntry } | { id: number; note: Note };

/** Output of a client-executed (v1) terminal, kept by the CLI's terminal service hook. */
export interface ClientTerminalView {
  command: string;
  output: string;
  exitCode?: number | null;
  signal?: string | null;
}

/** What the chat UI shows; owned and mutated by the controller, read by React on each tick. */
export interface ChatView {
  agentLabel: string;
  protocolVersion: number;
  sessionId: string;
  cwd: string;
  /** `undefined` until a session is attached (while picking or loading). */
  state: SessionState | undefined;
  /** Set while the user picks a session to resume. */
  picker: { sessions: SessionInfo[]; pick(sessionId: string | undefined): void } | undefined;
  /** Shown while no session is attached. */
  loading: string;
  feed: FeedItem[];
  /** Items before this index are final and rendered once (ink `<Static>`). */
  committed: number;
  running: boolean;
  /** Set after the first Ctrl-C of a turn. */
  cancelling: boolean;
  /** Set after Ctrl-C while idle: a second one exits. */
  exitArmed: boolean;
  permission: PendingPermission | undefined;
  clientTerminal(terminalId: string): ClientTerminalView | undefined;
}

/** What the UI can ask of the controller. */
export interface ChatActions {
  send(text: string): void;
  /** Ctrl-C: cancel the turn, or arm/confirm exit. */
  interrupt(): void;
  /** Ctrl-D / `/exit`. */
  exit(): void;
  /** Subscribe to view changes; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
}
