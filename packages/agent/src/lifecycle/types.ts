import type {
  TurnUsage,
  AnyContentBlock,
  AvailableCommand,
  AgentCapabilities,
  ClientCapabilities,
  ConfigOption,
  LoadSessionRequest,
  PromptResponse,
  ResumeSessionRequest,
  SessionSetupResult,
  StopReason,
  AnySessionUpdate,
  CurrentModeUpdate,
  ErrorObject,
  SessionUpdate,
  StateUpdate,
  ValidationFailure,
  ProtocolVersion,
} from '@acp-kit/protocol';
import type { ClientRequester } from '../client-requests.js';
import type { TurnRuntime } from '../turn.js';
import type { AgentDefinition, ClientServices } from '../types.js';

/** A `session/prompt` request waiting for its answer (held, running, or answered at insertion). */
export interface PromptJob {
  prompt: AnyContentBlock[];
  resolve(r: PromptResponse): void;
  reject(e: unknown): void;
  turn?: TurnRuntime;
  /** Stops listening for `$/cancel_request` of the prompt request. */
  detach(): void;
}

/** How a turn ended. */
export interface TurnEnd {
  stopReason: StopReason;
  error?: ErrorObject;
  /** v1: sent on the prompt result (unstable) */
  usage?: TurnUsage;
}

/** What a lifecycle sees of one open session. */
export interface LifecycleSession {
  readonly configOptions: readonly ConfigOption[];
  /** Sends an update that is not history (state snapshots, setup commands). */
  sendLive(update: AnySessionUpdate): void;
  /** The current foreground state as a `state_update`. */
  stateSnapshot(): StateUpdate;
}

/** Why a stored update an encoder turned into nothing is not replayed: a corrupt body, or `null` (a kind the version lacks). */
export type DroppedReason = ValidationFailure | null;

/**
 * Everything the agent runtime does differently per negotiated protocol version, in one object
 * per version ({@link lifecycleFor}), chosen once at `initialize`: the prompt lifecycle (v1: the
 * prompt is answered at the end of the turn and there is no `state_update`; v2: the prompt is
 * acknowledged at insertion, echoed, and the turn reported `running` / `requires_action` /
 * `idle`), which setups and restores look like, and what is advertised. Wire shapes are not here:
 * they stay in the codecs. Mirrors the client's `PromptLifecycle`.
 */
export interface AgentLifecycle {
  readonly version: ProtocolVersion;

  // ---- what the connection advertises and accepts ----------------------------

  /**
   * The capabilities the runtime fills in (`loadSession`, `session.*`, `logout`) for an agent
   * with (`durable`) or without a session store.
   */
  runtimeCapabilities(
    durable: boolean,
    definition: AgentDefinition,
  ): Pick<AgentCapabilities, 'loadSession' | 'session' | 'logout'>;
  /** Whether an MCP server of `type` may be passed to an agent advertising `mcp` (ACP-V2-SESS-03). */
  mcpServerAllowed(type: string, mcp: NonNullable<AgentCapabilities['mcp']>): boolean;
  /**
   * Whether several connections may attach to one open session ({@link SharedSessions}): v2 (the
   * prompt is answered at insertion, the turn is reported to whoever is attached); v1 no (its
   * prompt request is the turn, answered to the one client that sent it).
   */
  readonly sharesSessions: boolean;
  /** Whether `session/prompt` may carry no content block at all (v2 refuses it, ACP-V2-LIFE-14). */
  readonly allowsEmptyPrompt: boolean;
  /** The answer to `session/close` of a session that is not open here; throws when it is an error. */
  closeUnknownSession(sessionId: string): void;
  /** The client services (`fs/*`, `terminal/*`) this version offers a session. */
  clientServices(caps: ClientCapabilities, sessionId: string, request: ClientRequester): ClientServices;

  // ---- session setup and restore ---------------------------------------------

  /** The config options a client of this version may see (ACP-V1-CFG-01). */
  visibleConfig(list: readonly ConfigOption[], client: ClientCapabilities): ConfigOption[];
  /**
   * The `session/new` / `load` / `resume` result for `s`; `restored` tells a restore (whose
   * description must precede its response) from a new session (ACP-ALL-CMD-01).
   */
  setupResult(
    s: LifecycleSession,
    config: ConfigOption[],
    commands: AvailableCommand[] | undefined,
    restored: boolean,
  ): SessionSetupResult;
  /** Whether a restore replays the history; throws -32602 for a replay cursor this agent does not support. */
  replays(kind: 'load' | 'resume', request: LoadSessionRequest | ResumeSessionRequest): boolean;
  /** An update due before `u` in a replay (v2 primers, ACP-V2-RESUME-04); `primed` is the replay's memory. */
  replayPrimer(u: AnySessionUpdate, primed: Set<string>): AnySessionUpdate | undefined;
  /** Why a stored update encoded to nothing is dropped from a replay (logged when not `null`). */
  droppedReason(u: AnySessionUpdate): DroppedReason;
  /** Called once a session is restored or resumed (v2 reports its foreground state, ACP-V2-RESUME-08). */
  restored(s: LifecycleSession): void;

  // ---- prompt turns ----------------------------------------------------------

  /**
   * What goes out when a `current_mode_update` changed the mode option: v1 sends it as is; v2 has
   * no such update and sends the whole current option list instead.
   */
  modeChange(update: CurrentModeUpdate, configOptions: ConfigOption[]): SessionUpdate;
  /** The prompt's user message was inserted (v2 answers `{messageId}` now, ACP-V2-LIFE-03). */
  inserted(job: PromptJob, userMessageId: string): void;
  /** Before the author runs (v2: after the answer, echo the user message and report `running`). */
  beginTurn(s: LifecycleSession, userMessage: SessionUpdate): Promise<void>;
  /** The turn ended: v1 answers the prompt request, v2 reports `idle`. */
  endTurn(s: LifecycleSession, job: PromptJob, end: TurnEnd): void;
  /** `$/cancel_request` for the prompt request of the running turn `job`. */
  promptRequestCancelled(job: PromptJob): void;
  /** A held prompt is cancelled (`session/cancel`, `session/close`, connection end). */
  cancelHeld(job: PromptJob, reason: string): void;
}
