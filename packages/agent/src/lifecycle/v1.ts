import {
  codecFor,
  type UpdateEncoder,
  AcpError,
  V1_STOP_REASONS,
  type AnySessionUpdate,
  getValidator,
  type WireValidator,
} from '@acp-kit/protocol';
import { createClientRequests } from '../client-requests.js';
import { modesOf } from '../config-options.js';
import type { AgentLifecycle, DroppedReason } from './types.js';

/** The v2 encoder and schema a dropped stored update is checked against (made on first need). */
let neutralCheck: { encoder: UpdateEncoder; validator: WireValidator } | undefined;

/**
 * ACP v1: the `session/prompt` request stays open for the whole turn and is answered with its
 * `stopReason`; there is no `state_update` (the encoder drops it) and no live echo of the prompt.
 * Prompts arriving during a turn are queued and run after it.
 */
export const v1Lifecycle: AgentLifecycle = {
  version: 1,

  runtimeCapabilities: (durable, definition) => ({
    loadSession: durable,
    session: { list: durable, resume: durable, close: true, delete: durable, additionalDirectories: true },
    // a marker of its own in v1 (`auth.logout`)
    logout: !!definition.logout,
  }),
  // v1 requires stdio support of every agent; `sse` is v1 only
  mcpServerAllowed: (type, mcp) =>
    type === 'stdio'
      ? true
      : type === 'http'
        ? !!mcp.http
        : type === 'sse'
          ? !!mcp.sse
          : type === 'acp'
            ? !!mcp.acp
            : false,
  sharesSessions: false,
  allowsEmptyPrompt: true,
  closeUnknownSession(sessionId) {
    throw AcpError.sessionNotFound(sessionId);
  },
  clientServices: (caps, sessionId, request) => createClientRequests(caps, sessionId, request),

  visibleConfig: (list, client) => (client.booleanConfigOptions ? [...list] : list.filter((o) => o.type !== 'boolean')),
  setupResult(s, config, commands, restored) {
    const res: ReturnType<AgentLifecycle['setupResult']> = {};
    if (config.length > 0) res.configOptions = config;
    const modes = modesOf(s.configOptions);
    if (modes) res.modes = modes;
    if (commands) {
      // v1 results cannot carry commands: an update, for a restored session before the response
      // (everything describing it precedes the response), for a new one right after it (the
      // client learns the id from the response) (ACP-ALL-CMD-01)
      const update: AnySessionUpdate = { sessionUpdate: 'available_commands_update', availableCommands: commands };
      if (restored) s.sendLive(update);
      else setImmediate(() => s.sendLive(update));
    }
    return res;
  },
  // `session/load` replays everything (ACP-V1-LOAD-02/03); v1 `session/resume` nothing
  replays: (kind) => kind === 'load',
  replayPrimer: () => undefined,
  droppedReason(u): DroppedReason {
    // v1 drops what it cannot show: tell a corrupt body (checked in the v2 shape, the closest to
    // the neutral model) from a kind v1 simply lacks
    const v2 = (neutralCheck ??= { encoder: codecFor(2).createUpdateEncoder(), validator: getValidator(2) });
    let failure: ReturnType<WireValidator['update']> = null;
    try {
      for (const w of v2.encoder.encode(u)) failure ||= v2.validator.update(w);
    } catch (e) {
      failure = { path: 'update', message: e instanceof Error ? e.message : String(e) };
    }
    return failure === 'unknown' ? null : failure;
  },
  restored: () => undefined,

  modeChange: (update) => update,
  inserted: () => undefined,
  beginTurn: async () => undefined,
  endTurn(_s, job, end) {
    job.detach();
    if (end.stopReason === 'error') {
      // v1 has no `error` stop reason: the prompt fails with the cause
      const e = end.error ?? { code: -32603, message: 'unknown failure' };
      job.reject(
        new AcpError(
          e.code,
          e.code === -32603 && !e.message.startsWith('Internal error')
            ? `Internal error: prompt turn failed: ${e.message}`
            : e.message,
          e.data,
        ),
      );
    } else {
      // custom (`_x`) and unknown reasons do not exist in v1: reported as `end_turn`
      const stopReason = V1_STOP_REASONS.includes(end.stopReason) ? end.stopReason : 'end_turn';
      job.resolve(end.usage ? { stopReason, usage: end.usage } : { stopReason });
    }
  },
  // the request is the turn: cancelling it cancels the turn
  promptRequestCancelled(job) {
    job.turn?.cancel('prompt request cancelled by $/cancel_request');
  },
  cancelHeld(job) {
    job.detach();
    job.resolve({ stopReason: 'cancelled' });
  },
};
