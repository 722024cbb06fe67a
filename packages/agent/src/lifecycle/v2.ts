import {
  AcpError,
  type ConfigOptionUpdate,
  type MessageChunk,
  type MessageUpdate,
  type StateUpdate,
} from '@acp-kit/protocol';
import type { AgentLifecycle } from './types.js';

const nextTick = (): Promise<void> => new Promise((r) => setImmediate(r));

const WHOLE_MESSAGE_OF: Record<MessageChunk['sessionUpdate'], MessageUpdate['sessionUpdate']> = {
  user_message_chunk: 'user_message',
  agent_message_chunk: 'agent_message',
  agent_thought_chunk: 'agent_thought',
};

/**
 * ACP v2: a prompt is answered `{messageId}` at insertion, echoed as a `user_message`, and the
 * turn is reported by `state_update`s (`running`, `requires_action`, `idle` with the stop
 * reason). Prompts arriving during a turn are held and inserted in arrival order (ACP-V2-LIFE-13).
 */
export const v2Lifecycle: AgentLifecycle = {
  version: 2,

  runtimeCapabilities: (durable, definition) => ({
    loadSession: durable,
    // list and resume are baseline: served from the sessions' metadata even without a store
    session: { list: true, resume: true, close: true, delete: durable, additionalDirectories: true },
    // no marker: auth/logout exists exactly when there are auth methods (ACP-V2-AUTH-02)
    logout: (definition.authMethods?.length ?? 0) > 0,
  }),
  mcpServerAllowed: (type, mcp) =>
    type === 'stdio' ? !!mcp.stdio : type === 'http' ? !!mcp.http : type === 'acp' ? !!mcp.acp : false,
  sharesSessions: true,
  allowsEmptyPrompt: false,
  // closing an unknown or inactive session succeeds (ACP-ALL-CLOSE-02)
  closeUnknownSession: () => undefined,
  // v2 has no client services
  clientServices: () => ({}),

  visibleConfig: (list) => [...list],
  setupResult(_s, config, commands) {
    const res: ReturnType<AgentLifecycle['setupResult']> = { configOptions: config };
    if (commands) res.availableCommands = commands;
    return res;
  },
  replays(kind, request) {
    if (kind === 'load') return true;
    const from = 'replayFrom' in request ? request.replayFrom : undefined;
    if (from == null) return false;
    if (typeof from !== 'object' || from.type !== 'start') {
      const type: unknown = typeof from === 'object' ? from.type : undefined;
      throw AcpError.invalidParams(
        `params.replayFrom.type: unsupported replay cursor ${JSON.stringify(type)} (this agent supports "start")`,
        {
          path: 'params.replayFrom.type',
        },
      );
    }
    return true;
  },
  /**
   * The first chunk of each message is preceded by a whole-message update with the same id and
   * `content: []`, and the first content chunk of a tool call by a `tool_call_update` with
   * `content: []`: a client that already holds them (an earlier resume) replaces them instead of
   * appending a second copy (ACP-V2-RESUME-04). Whole updates count as primers themselves.
   */
  replayPrimer(u, primed) {
    switch (u.sessionUpdate) {
      case 'user_message_chunk':
      case 'agent_message_chunk':
      case 'agent_thought_chunk': {
        const whole = WHOLE_MESSAGE_OF[u.sessionUpdate];
        if (typeof u.messageId !== 'string') return undefined;
        const key = `${whole}\0${u.messageId}`;
        if (primed.has(key)) return undefined;
        primed.add(key);
        return { sessionUpdate: whole, messageId: u.messageId, content: [] };
      }
      case 'user_message':
      case 'agent_message':
      case 'agent_thought':
        if (typeof u.messageId === 'string' && u.content !== undefined)
          primed.add(`${u.sessionUpdate}\0${u.messageId}`);
        return undefined;
      case 'tool_call_update':
        if (typeof u.toolCallId === 'string' && u.content !== undefined) primed.add(`tool\0${u.toolCallId}`);
        return undefined;
      case 'tool_call_content_chunk': {
        if (typeof u.toolCallId !== 'string') return undefined;
        const key = `tool\0${u.toolCallId}`;
        if (primed.has(key)) return undefined;
        primed.add(key);
        return { sessionUpdate: 'tool_call_update', toolCallId: u.toolCallId, content: [] };
      }
      default:
        return undefined;
    }
  },
  // the v2 encoder shows every kind: nothing is dropped for lack of a kind
  droppedReason: () => null,
  // a restored session reports its foreground state (ACP-V2-RESUME-08)
  restored: (s) => s.sendLive(s.stateSnapshot()),

  modeChange(update, configOptions) {
    // v2 has no `current_mode_update`: the mode is the `category: "mode"` option, sent as the whole
    // current list (the encoder's own copy misses changes answered by `session/set_config_option`)
    const wire: ConfigOptionUpdate = { sessionUpdate: 'config_option_update', configOptions };
    if (update._meta != null) wire._meta = update._meta;
    return wire;
  },
  inserted(job, userMessageId) {
    job.detach();
    job.resolve({ messageId: userMessageId });
  },
  async beginTurn(s, userMessage) {
    // let the `{messageId}` response go out first, then echo and report running (ACP-V2-LIFE-03/04/05)
    await nextTick();
    s.sendLive(userMessage);
    s.sendLive({ sessionUpdate: 'state_update', state: 'running' });
  },
  endTurn(s, _job, end) {
    const idle: StateUpdate = { sessionUpdate: 'state_update', state: 'idle', stopReason: end.stopReason };
    if (end.error) idle.error = end.error;
    s.sendLive(idle);
  },
  // the request was answered at insertion: the turn goes on (cancel it with `session/cancel`)
  promptRequestCancelled: () => undefined,
  cancelHeld(job, reason) {
    job.detach();
    job.reject(AcpError.cancelled(`the held prompt was cancelled by ${reason}`));
  },
};
