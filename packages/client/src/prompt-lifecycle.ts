import {
  AcpError,
  type AnyContentBlock,
  type PermissionRequest,
  type AnySessionUpdate,
  type StateUpdate,
  type TurnUsage,
} from '@acp-kit/protocol';
import type { PromptResult, ClientSessionHost } from './client-session.js';

/** What a prompt lifecycle sees of its session: the host and the arrival bookkeeping. */
export interface PromptContext {
  readonly sessionId: string;
  readonly host: ClientSessionHost;
  /** Applies a synthesized update as if it had arrived now. */
  apply(update: AnySessionUpdate): void;
  /** Arrival number of the last applied update. */
  readonly seq: number;
  /** The last idle `state_update` applied, and when. */
  readonly lastIdle: { seq: number; update: StateUpdate } | undefined;
  /** Arrival number of the last `running` / `requires_action`. */
  readonly lastRunningSeq: number;
  /** Arrival number of the first update of this user message id. */
  userSeenAt(messageId: string): number | undefined;
  /** Whether any user message (echo) arrived at all. */
  readonly userEchoSeen: boolean;
  /** The foreground state of the session's state. */
  readonly foregroundState: string;
  /** The next idle `state_update` applied after now. */
  nextIdle(): Promise<StateUpdate>;
}

/**
 * How a prompt turn runs on one protocol version, the one place of the client's per-version
 * prompt behaviour: v1 ends the turn with the `session/prompt` response and shows it the v2 way
 * (echo, `running`, `idle`), v2 waits for the idle `state_update` after insertion. Chosen once per
 * session from the negotiated version.
 */
export interface PromptLifecycle {
  prompt(ctx: PromptContext, prompt: AnyContentBlock[]): Promise<PromptResult>;
  /**
   * The request a permission policy sees, given the merged tool call's title (`knownTitle`).
   * v1: a request has no title of its own: the codec takes the `toolCall` patch's title, but a
   * patch often carries only the id (ACP-V1-PERM-01), and then the merged title is the one to show.
   */
  permissionRequest(request: PermissionRequest, patchTitle: unknown, knownTitle: string | undefined): PermissionRequest;
}

/** A fresh lifecycle for one session on a connection of `version`. */
export function createPromptLifecycle(version: 1 | 2): PromptLifecycle {
  return version === 1 ? new V1PromptLifecycle() : new V2PromptLifecycle();
}

class V1PromptLifecycle implements PromptLifecycle {
  private prompts = 0;
  private localUserIds = 0;

  async prompt(ctx: PromptContext, prompt: AnyContentBlock[]): Promise<PromptResult> {
    // v1 agents do not echo the prompt: record it locally so the timeline is complete
    ctx.apply({ sessionUpdate: 'user_message', messageId: `_local_user_${++this.localUserIds}`, content: prompt });
    if (this.prompts++ === 0) ctx.apply({ sessionUpdate: 'state_update', state: 'running' });
    ctx.host.startTurn(ctx.sessionId);
    // The turn ends at the point of the response: idle is applied when the answer is read, so
    // updates the agent sends after it (even in the same read) come after idle, as on the wire.
    let ended = false;
    const end = (out: PromptResult): PromptResult => {
      ended = true;
      if (--this.prompts === 0) ctx.apply({ sessionUpdate: 'state_update', state: 'idle', ...out });
      return out;
    };
    return ctx.host
      .callAt(
        'session/prompt',
        { sessionId: ctx.sessionId, prompt },
        (res) => withUsage(end({ stopReason: res?.stopReason ?? null }), res?.usage),
        // a v1 agent ends a failed turn with a JSON-RPC error: the same outcome as v2's
        // `stopReason: "error"` idle, so both resolve alike
        (e) => end({ stopReason: 'error', error: e.toJSON() }),
      )
      .catch((e: unknown) => {
        // no answer at all (connection closed, write failed): the turn is over too, then reject
        if (!ended && --this.prompts === 0) {
          ctx.apply({
            sessionUpdate: 'state_update',
            state: 'idle',
            stopReason: 'error',
            error: AcpError.from(e).toJSON(),
          });
        }
        throw e;
      });
  }

  permissionRequest(
    request: PermissionRequest,
    patchTitle: unknown,
    knownTitle: string | undefined,
  ): PermissionRequest {
    return typeof patchTitle !== 'string' && typeof knownTitle === 'string' && knownTitle !== ''
      ? { ...request, title: knownTitle }
      : request;
  }
}

class V2PromptLifecycle implements PromptLifecycle {
  async prompt(ctx: PromptContext, prompt: AnyContentBlock[]): Promise<PromptResult> {
    const sentAt = ctx.seq;
    const res = await Promise.race([
      ctx.host.call('session/prompt', { sessionId: ctx.sessionId, prompt }),
      ctx.host.closedError,
    ]);
    const userMessageId = typeof res?.messageId === 'string' ? res.messageId : undefined;
    const idle = ctx.lastIdle;
    let done: StateUpdate | undefined;
    if (idle && ctx.foregroundState === 'idle') {
      // the whole turn may have finished before the response was read: accept an idle that
      // followed the echo of our message, or (agents that do not echo) a running/idle pair.
      // An agent that echoes may send the echo after the response (ACP-V2-LIFE-04): then the
      // running/idle pair seen so far belongs to an earlier turn (e.g. while this prompt was
      // held, ACP-V2-LIFE-13), so wait for the next idle.
      const seen = userMessageId !== undefined ? ctx.userSeenAt(userMessageId) : undefined;
      if (seen !== undefined && idle.seq > seen) done = idle.update;
      else if (seen === undefined && !ctx.userEchoSeen && ctx.lastRunningSeq > sentAt && idle.seq > ctx.lastRunningSeq)
        done = idle.update;
    }
    if (!done) done = await ctx.nextIdle();
    const out: PromptResult = { stopReason: done.stopReason ?? null };
    if (done.error) out.error = done.error;
    if (userMessageId !== undefined) out.userMessageId = userMessageId;
    return out;
  }

  permissionRequest(request: PermissionRequest): PermissionRequest {
    return request;
  }
}

/** The prompt result with the v1 turn usage (not part of the idle state update: it is no state). */
function withUsage(out: PromptResult, usage: TurnUsage | null | undefined): PromptResult {
  return usage ? { ...out, usage } : out;
}
