import type { TurnTokenUsage } from '@acp-kit/protocol/internal';
import type {
  AvailableCommand,
  CreateElicitationRequest,
  CreateElicitationResponse,
  PermissionRequest,
  SessionInfo,
  SessionState,
  TimelineEntry,
} from '@acp-kit/protocol';

/** A permission request waiting for the user's pick. */
export interface PendingPermission {
  request: PermissionRequest;
  /** Resolves the request with an offered `optionId`, or `cancelled`. */
  answer(optionId: string): void;
}

/** An elicitation (a form or a URL) waiting for the user's answer. */
export interface PendingElicitation {
  request: CreateElicitationRequest;
  /** Who asks (ACP-ALL-ELIC-06): the agent's name and version. */
  agentLabel: string;
  /** Answers it (`accept` with the form's content, `decline` or `cancel`). */
  answer(response: CreateElicitationResponse): void;
}

/** A line the client itself adds to the feed (the prompt, decisions, stop reasons, errors). */
export interface Note {
  kind: 'prompt' | 'info' | 'error' | 'permission' | 'stop' | 'output';
  text: string;
  /** for `stop` */
  ok?: boolean;
  /** for `output`: what produced it (the command line or the tool call title) */
  title?: string;
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
  /** The built-in agent's model (`demo`, `openai:gpt-4o-mini`, ...), shown in the header; unknown for other agents. */
  model?: string;
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
  /** `Date.now()` when the running turn started (for the elapsed time next to the spinner). */
  turnStartedAt: number | undefined;
  /**
   * Prompts typed while a turn runs, oldest first, shown as queued until their turn starts: held
   * by the client and sent one by one after the running turn ends (v1 and v2; the 2.4.0 schemas
   * have no steering). Esc takes the latest back.
   */
  queued: string[];
  /** The text typed in the input line (owned here so that Ctrl-C can clear it). */
  draft: string;
  /**
   * The latest turn's token counts the agent reported as `_meta["acp-kit/usage"]` (models without a
   * known context window, where no `usage_update` can be sent).
   */
  turnTokens: TurnTokenUsage | undefined;
  /** Set while a dropped remote connection is being re-established (`--agent-url`): what the client is doing. */
  connection?: string;
  /** Set after the first Ctrl-C of a turn. */
  cancelling: boolean;
  /** Set after Ctrl-C while idle: a second one exits. */
  exitArmed: boolean;
  permission: PendingPermission | undefined;
  /** The agent's question (form or url elicitation) shown instead of the input line. */
  elicitation: PendingElicitation | undefined;
  /**
   * Permission answers by tool call id, shown inside their tool call right under its title: a note
   * appended to the feed showed below the tool's output, which arrives before the feed moves on.
   */
  decisions: Map<string, Note>;
  clientTerminal(terminalId: string): ClientTerminalView | undefined;
}

/** What the UI can ask of the controller. */
export interface ChatActions {
  /** Sends a prompt, or queues it while a turn runs. */
  send(text: string): void;
  /** Replaces the input line's text. */
  setDraft(text: string): void;
  /** Esc in the permission picker: answers with the request's reject option. */
  rejectPermission(): void;
  /** Esc while messages are queued: removes the latest queued one. */
  unqueue(): void;
  /** Ctrl-O: shows the whole output of the latest command (the feed shows only its last lines). */
  expandOutput(): void;
  /** Ctrl-C: clears the input line and cancels the turn, or arms/confirms exit. */
  interrupt(): void;
  /** Ctrl-D / `/exit`. */
  exit(): void;
  /** Subscribe to view changes; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
}

/** The chat's own slash commands, listed in the `/` menu after the agent's (an agent command of the same name wins). */
export const CHAT_COMMANDS: readonly AvailableCommand[] = [
  { name: 'exit', description: 'leave the chat (as Ctrl-D)' },
  { name: 'quit', description: 'leave the chat (as Ctrl-D)' },
];

/**
 * The chat's session settings (ui/chat-config.ts): they win over an agent command of the same name,
 * since they change the session through the protocol (set_config_option / set_mode), not a prompt.
 */
export const CHAT_CONFIG_COMMANDS: readonly AvailableCommand[] = [
  { name: 'mode', description: 'list the modes, or set one: /mode <id>', input: { hint: 'mode id' } },
  { name: 'model', description: 'list the models, or set one: /model <id>', input: { hint: 'model id' } },
  {
    name: 'config',
    description: 'list the config options, or set one: /config <id>=<value>',
    input: { hint: 'id=value' },
  },
];

/**
 * The `/` menu: the agent's commands (minus the ones the chat's own replace), then the chat's own.
 * `now`: chat commands offered only at this moment (ui/chat-cancel.ts: `/cancel-tool` while a
 * running tool call advertises `capabilities.cancel`); like the settings commands they win over an
 * agent command of the same name.
 */
export function slashMenu(
  agentCommands: readonly AvailableCommand[],
  now: readonly AvailableCommand[] = [],
): AvailableCommand[] {
  const own = [...CHAT_CONFIG_COMMANDS, ...now];
  const agent = agentCommands.filter((a) => !own.some((c) => c.name === a.name));
  return [...agent, ...own, ...CHAT_COMMANDS.filter((c) => !agentCommands.some((a) => a.name === c.name))];
}
