import {
  AcpError,
  ErrorCode,
  isAbortError,
  type AnyContentBlock,
  type CreateElicitationResponse,
  type PermissionOutcome,
  type SessionUpdate,
} from '@acp-kit/protocol';
import { ConnectionClosedError } from '@acp-kit/protocol/rpc';
import type { FormElicitationQuestion, UrlElicitationAnswer, UrlElicitationQuestion } from './elicitation.js';
import type { AgentLogger } from './logger.js';
import type { AgentSession, PermissionQuestion, PermissionRequestOptions, Turn } from './types.js';

/** What a turn needs from its session. */
export interface TurnHost {
  readonly logger: AgentLogger;
  /** Persists and sends an update the author sent on the turn (the runtime's own kinds are dropped). */
  emit(update: SessionUpdate): void;
  /** Announces a permission question's `tool_call` subject as a tool call update when it is news. */
  announceSubject(question: PermissionQuestion): void;
  /** Sends a `state_update` (live only, never persisted; v1's encoder drops it: v1 has no such update). */
  sendState(state: 'running' | 'requires_action'): void;
  /** Sends `session/request_permission`; aborting `signal` sends `$/cancel_request` and rejects -32800. */
  askClient(question: PermissionQuestion, signal: AbortSignal): Promise<PermissionOutcome>;
  /** Sends a form `elicitation/create` (throws `ElicitationNotSupportedError` when not advertised). */
  elicitForm(question: FormElicitationQuestion, signal: AbortSignal): Promise<CreateElicitationResponse>;
  /** Sends a url `elicitation/create` (same). */
  elicitUrl(question: UrlElicitationQuestion, signal: AbortSignal): Promise<UrlElicitationAnswer>;
  whenWritable(): Promise<void>;
}

/** An error with `name: "AbortError"`, the reason a cancelled turn's signal carries. */
export function abortError(message: string): Error {
  const e = new Error(message);
  e.name = 'AbortError';
  return e;
}

/**
 * One prompt turn. `ended` flips before the turn's final message (v1 response / v2 idle) is
 * written, so anything the author sends afterwards is dropped (ACP-V1-CANCEL-07, ACP-V2-CANCEL-07).
 */
export class TurnRuntime implements Turn {
  readonly controller = new AbortController();
  ended = false;
  /** Set by `session/cancel`, `session/close`, `$/cancel_request` or the connection ending. */
  cancelRequested = false;
  private pendingPermissions = 0;
  /** Aborted when the turn ends: questions the author left open are withdrawn with it. */
  private readonly questions = new AbortController();

  constructor(
    readonly session: AgentSession,
    readonly prompt: readonly AnyContentBlock[],
    readonly userMessageId: string,
    private readonly host: TurnHost,
  ) {}

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  cancel(reason: string): void {
    if (this.ended || this.controller.signal.aborted) return;
    this.cancelRequested = true;
    this.controller.abort(abortError(reason));
  }

  /**
   * Marks the turn ended (before its final message is written): permission requests still open
   * are cancelled with `$/cancel_request`, so no client keeps asking about a finished turn
   * (ACP-V2-CANCEL-03/09).
   */
  finish(): void {
    this.ended = true;
    this.questions.abort(abortError('the turn ended'));
  }

  send(update: SessionUpdate): Promise<void> {
    if (this.ended) return Promise.resolve();
    this.host.emit(update);
    return this.host.whenWritable();
  }

  /** v2: the whole foreground waits on the user (a blocking permission request is pending). */
  get requiresAction(): boolean {
    return this.pendingPermissions > 0 && !this.ended && !this.signal.aborted;
  }

  async requestPermission(
    question: PermissionQuestion,
    options: PermissionRequestOptions = {},
  ): Promise<PermissionOutcome> {
    if (this.ended || this.signal.aborted) return { outcome: 'cancelled' };
    const offered = new Set(question.options.map((o) => o.optionId));
    this.host.announceSubject(question);
    return this.waitingOnUser(options, () => this.ask(question, offered));
  }

  /**
   * Puts a form to the user (`elicitation/create`, form mode) and waits for the answer: `accept`
   * with `content`, `decline` or `cancel` (ACP-ALL-ELIC-08: never assume `accept`). Cancelling the
   * turn (`session/cancel`, `session/close`) withdraws it with `$/cancel_request` and resolves
   * `cancel` (ACP-V2-CANCEL-09, ACP-V2-CLOSE-02). Throws `ElicitationNotSupportedError` when the
   * client did not advertise form mode (ACP-ALL-ELIC-01).
   */
  elicit(
    question: FormElicitationQuestion,
    options: PermissionRequestOptions = {},
  ): Promise<CreateElicitationResponse> {
    return this.elicitation(options, (signal) => this.host.elicitForm(question, signal), {});
  }

  /** Sends the user to a URL (url mode, ACP-ALL-ELIC-05: never falls back to a form); as {@link elicit}. */
  elicitUrl(question: UrlElicitationQuestion, options: PermissionRequestOptions = {}): Promise<UrlElicitationAnswer> {
    // minted here, so a question withdrawn before it was answered still reports its id
    const q = { ...question, elicitationId: question.elicitationId ?? this.session.newId('elicitation') };
    return this.elicitation(options, (signal) => this.host.elicitUrl(q, signal), { elicitationId: q.elicitationId });
  }

  private async elicitation<T extends CreateElicitationResponse, X>(
    options: PermissionRequestOptions,
    ask: (signal: AbortSignal) => Promise<T>,
    extra: X,
  ): Promise<T | (CreateElicitationResponse & X)> {
    const cancelled = { action: 'cancel' as const, ...extra };
    if (this.ended || this.signal.aborted) return cancelled;
    return this.waitingOnUser(options, async () => {
      try {
        return await ask(AbortSignal.any([this.signal, this.questions.signal]));
      } catch (e) {
        // withdrawn by us ($/cancel_request), answered -32800, or the connection ended: `cancel`
        if (
          this.signal.aborted ||
          this.questions.signal.aborted ||
          isAbortError(e) ||
          e instanceof ConnectionClosedError
        )
          return cancelled;
        if (e instanceof AcpError && e.code === ErrorCode.RequestCancelled) return cancelled;
        throw e;
      }
    });
  }

  /**
   * Runs `work` while the user is asked: in v2 the state is `requires_action` while a blocking
   * question is pending (while several are: until the last is answered), then `running`
   * (ACP-V2-LIFE-07, ACP-V2-ELIC-01).
   */
  private async waitingOnUser<T>(options: PermissionRequestOptions, work: () => Promise<T>): Promise<T> {
    // a question other work of the turn does not wait on leaves the state `running` (ACP-V2-LIFE-07)
    if (options.blocking === false) return work();
    this.pendingPermissions++;
    if (this.pendingPermissions === 1) this.host.sendState('requires_action');
    try {
      return await work();
    } finally {
      this.pendingPermissions--;
      // resumed: `running` once no blocking question is left (answering one of several is not resumption)
      if (this.pendingPermissions === 0 && !this.ended && !this.signal.aborted) this.host.sendState('running');
    }
  }

  private async ask(question: PermissionQuestion, offered: ReadonlySet<string>): Promise<PermissionOutcome> {
    try {
      const outcome = await this.host.askClient(question, AbortSignal.any([this.signal, this.questions.signal]));
      // (checked at run time: the client may answer anything)
      if (outcome?.outcome === 'selected' && typeof outcome.optionId === 'string' && offered.has(outcome.optionId)) {
        return { outcome: 'selected', optionId: outcome.optionId };
      }
      if (outcome?.outcome !== 'cancelled') {
        // never treat an unknown outcome or an option we did not offer as approval (ACP-V2-PERM-06)
        this.host.logger.warn(
          `permission answer ${JSON.stringify(outcome)} is not one of the offered options; treated as cancelled`,
        );
      }
      return { outcome: 'cancelled' };
    } catch (e) {
      // cancelled by us ($/cancel_request) or the client answered -32800, or the connection ended
      if (this.signal.aborted || this.questions.signal.aborted || isAbortError(e) || e instanceof ConnectionClosedError)
        return { outcome: 'cancelled' };
      if (e instanceof AcpError && e.code === ErrorCode.RequestCancelled) return { outcome: 'cancelled' };
      throw e;
    }
  }
}
