import { getValidator, formatFailure, type ValidationFailure } from '@acp-kit/protocol';
import { decodeFrame, type CaptureFrame, type FrameDirection } from './capture.js';
import { at, isObj, type JsonObject } from '@acp-kit/protocol/internal';
import type { Violation } from './violation.js';
import { CapabilityRules } from './capability-rules.js';
import { ElicitationRules } from './elicitation-rules.js';

export type { Violation, ViolationRule } from './violation.js';

interface Pending {
  seq: number;
  /** Who sent the request. */
  dir: FrameDirection;
  method: string;
  sessionId?: string;
  /** For permission requests: the session/cancel that made them due. */
  cancelSeq?: number;
}

interface SessionState {
  /** v1: the prompt in flight. */
  prompt?: { seq: number; id: unknown; cancelSeq?: number };
  /** v1: the last prompt answered, until the next prompt starts. */
  ended?: { promptSeq: number; responseSeq: number };
  /** After a load/resume-with-replay response, until the next prompt: updates now are late replay. */
  loaded?: { requestSeq: number; responseSeq: number; method: string };
  /** v2: agent message ids of the foreground work since it last became running. */
  workMessages: Set<string>;
  /** v2: the last idle, with the messages of the work it ended (until running again). */
  idle?: { seq: number; messages: Set<string> };
  /** v2: foreground state. */
  running: boolean;
  /** v2: a session/cancel not yet acknowledged by an idle. */
  cancelSeq?: number;
}

/** A schema failure, for {@link CaptureValidatorOptions.attribute}. */
export interface SchemaFailureContext {
  /** The protocol version the frame was checked against. */
  version: 1 | 2;
  /** The method of the call, or of the request a result answers (absent for a frame with none). */
  method?: string;
  /** The `sessionUpdate` kind, for a failure inside a session/update. */
  kind?: string;
  /** What failed: `path` is `jsonrpc`, `error`, `method` or `the message` for the JSON-RPC envelope. */
  failure: ValidationFailure;
}

/** Settings of a {@link CaptureValidator}. */
export interface CaptureValidatorOptions {
  /** The version to assume until an initialize response says otherwise. */
  protocolVersion?: number;
  /**
   * The frames are in a tracer's order, not the wire's: the Rust conductor traces a request or
   * notification where it is received and an answer where it is first seen (often where it is
   * sent), so an answer can come before an update that preceded it on the wire. Rules that compare
   * an answer with the updates around it are then not judged.
   */
  tracedOrder?: boolean;
  /**
   * The requirement a schema failure breaks (default `schema/v1` or `schema/v2`), or `undefined`
   * when the caller judges that failure itself (the checker names finer requirements).
   */
  attribute?: (context: SchemaFailureContext) => string | undefined;
}

/** v1 updates that belong to a prompt turn (other kinds, e.g. commands or mode changes, may come any time). */
const V1_TURN_UPDATES = new Set([
  'agent_message_chunk',
  'agent_thought_chunk',
  'tool_call',
  'tool_call_update',
  'plan',
  'user_message_chunk',
]);
const V2_REPLAY_UPDATES = new Set(['user_message', 'user_message_chunk']);
const V2_AGENT_MESSAGES = new Set(['agent_message_chunk', 'agent_thought_chunk', 'agent_message', 'agent_thought']);

const other = (d: FrameDirection): FrameDirection => (d === 'editor->agent' ? 'agent->editor' : 'editor->agent');
/** Ids are compared as written (a malformed one still pairs with its answer). */
const idKey = (id: unknown): string => JSON.stringify(id ?? null);

/**
 * Checks a stream of frames against the official schema of the negotiated protocol version
 * (learnt from the initialize response) and the stateful rules a schema cannot see. Feed frames in
 * order with {@link push}, then call {@link finish} at the end of the capture. Only what the
 * frames decide is reported: nothing is guessed about traffic the capture does not hold.
 */
export class CaptureValidator {
  private version: 1 | 2 | undefined;
  private initId: unknown;
  private readonly pending = new Map<string, Pending>();
  private readonly sessions = new Map<string, SessionState>();
  private readonly elicitations = new ElicitationRules();
  private readonly capabilities = new CapabilityRules();

  private readonly tracedOrder: boolean;
  private readonly attribute: CaptureValidatorOptions['attribute'];

  constructor(options: CaptureValidatorOptions = {}) {
    if (options.protocolVersion === 1 || options.protocolVersion === 2) this.version = options.protocolVersion;
    this.tracedOrder = options.tracedOrder === true;
    this.attribute = options.attribute;
  }

  /** The protocol version in force (undefined before initialize when none was given). */
  get protocolVersion(): 1 | 2 | undefined {
    return this.version;
  }

  /** Checks one frame; `message` is its parsed JSON when the caller has it already. */
  push(frame: CaptureFrame, message?: unknown): Violation[] {
    const out: Violation[] = [];
    // only the start of an over-long line was kept: nothing in it can be checked
    if (frame.truncated !== undefined) return out;
    if (message === undefined) {
      try {
        message = JSON.parse(frame.raw);
      } catch {
        /* not JSON: judged below */
      }
    }
    if (Array.isArray(message) && message.length > 0) return this.pushBatch(frame, message);
    if (frame.kind === 'invalid' || message === undefined) {
      const isJson = message !== undefined;
      if (!isJson) {
        const preview = frame.raw.length > 60 ? `${frame.raw.slice(0, 60)}…` : frame.raw;
        out.push(
          frame.dir === 'agent->editor'
            ? {
                rule: 'non-json-agent-stdout',
                requirement: 'ACP-ALL-TRANS-05',
                seqs: [frame.seq],
                message: `agent wrote a line that is not JSON on stdout: ${JSON.stringify(preview)}`,
              }
            : {
                rule: 'non-json-editor-stdin',
                requirement: 'ACP-ALL-TRANS-06',
                seqs: [frame.seq],
                message: `editor wrote a line that is not JSON to the agent's stdin: ${JSON.stringify(preview)}`,
              },
        );
      } else {
        out.push(
          ...this.schema(frame, {
            path: 'the message',
            message: 'must be a JSON-RPC 2.0 request, notification or response object',
          }),
        );
      }
      return out;
    }
    if (!isObj(message)) {
      // a frame recorded as JSON-RPC whose line holds no object
      out.push(
        ...this.schema(frame, {
          path: 'the message',
          message: 'must be a JSON-RPC 2.0 request, notification or response object',
        }),
      );
      return out;
    }
    const m = message;
    if (m.jsonrpc !== '2.0') out.push(...this.schema(frame, { path: 'jsonrpc', message: 'must be "2.0"' }));
    if (frame.kind === 'request' || frame.kind === 'notification') this.onCall(frame, m, out);
    else this.onResponse(frame, m, out);
    return out;
  }

  /**
   * A JSON-RPC 2.0 batch (ACP-V2-TRANS-11: accepted, answered as one array): each entry is judged as
   * a frame of its own, at the batch's place in the capture.
   */
  private pushBatch(frame: CaptureFrame, entries: readonly unknown[]): Violation[] {
    const out: Violation[] = [];
    for (const entry of entries) {
      const raw = JSON.stringify(entry);
      const d = decodeFrame(raw);
      const part: CaptureFrame = { ...frame, raw, kind: d.kind };
      if (d.method !== undefined) part.method = d.method;
      else delete part.method;
      if (d.id !== undefined) part.id = d.id;
      else delete part.id;
      out.push(...this.push(part, entry));
    }
    return out;
  }

  /** End of the capture: requests still unanswered. */
  finish(): Violation[] {
    const out: Violation[] = [];
    for (const [key, p] of this.pending) {
      const dir = p.dir;
      const id = key.slice(key.indexOf(':') + 1);
      if (p.cancelSeq !== undefined) {
        out.push({
          rule: 'permission-pending-after-cancel',
          requirement: 'ACP-ALL-PERM-03',
          seqs: [p.seq, p.cancelSeq],
          message: `session/request_permission id ${id} was never answered after session/cancel; the client must answer it with outcome "cancelled"`,
        });
      } else {
        out.push({
          rule: 'unanswered-request',
          requirement: 'ACP-ALL-RPC-01',
          seqs: [p.seq],
          message: `${p.method} request id ${id} (${dir === 'editor->agent' ? 'editor to agent' : 'agent to editor'}) was never answered`,
        });
      }
    }
    this.pending.clear();
    // every violation here names its request frame first; one without frames would sort first
    return out.sort((a, b) => (a.seqs[0] ?? 0) - (b.seqs[0] ?? 0));
  }

  /** A schema failure at `frame`: none when the caller's {@link CaptureValidatorOptions.attribute} judges it itself. */
  private schema(
    frame: CaptureFrame,
    failure: ValidationFailure,
    method?: string,
    kind?: string,
    label?: string,
  ): Violation[] {
    const version = this.version ?? 1;
    const requirement = this.attribute
      ? this.attribute({
          version,
          ...(method !== undefined ? { method } : {}),
          ...(kind !== undefined ? { kind } : {}),
          failure,
        })
      : `schema/v${version}`;
    if (requirement === undefined) return [];
    return [
      {
        rule: 'schema',
        requirement,
        seqs: [frame.seq],
        message: `${label ?? frame.method ?? (frame.kind === 'invalid' ? 'message' : 'response')}: ${formatFailure('', failure)}`,
      },
    ];
  }

  private session(id: unknown): SessionState | undefined {
    if (typeof id !== 'string') return undefined;
    let s = this.sessions.get(id);
    if (!s) {
      s = { workMessages: new Set(), running: false };
      this.sessions.set(id, s);
    }
    return s;
  }

  /** The schema failures of a call: its side (who may send it), then its params (of a session/update: the update). */
  private callSchema(frame: CaptureFrame, method: string, p: unknown): Violation[] {
    const v = this.version ? getValidator(this.version) : undefined;
    if (!v) return [];
    // a method both a request and a notification (mcp/message) has a side per form
    const form = frame.kind === 'notification' ? 'notification' : 'request';
    const side = v.sideOf(method, form);
    const expected = frame.dir === 'editor->agent' ? 'agent' : 'client';
    if (side !== undefined && side !== 'protocol' && side !== expected) {
      return this.schema(
        frame,
        {
          path: '',
          message: `is handled by the ${side}, so only the ${side === 'agent' ? 'editor' : 'agent'} may send it`,
        },
        method,
      );
    }
    if (method !== 'session/update') {
      const f = v.params(method, p, 'params', form);
      return f ? this.schema(frame, f, method) : [];
    }
    if (typeof p !== 'object' || p === null)
      return this.schema(frame, { path: 'params', message: 'must be object' }, method);
    const out =
      typeof at(p, 'sessionId') !== 'string'
        ? this.schema(frame, { path: 'params.sessionId', message: 'must be string' }, method)
        : [];
    const f = v.update(at(p, 'update'), 'params.update');
    const kind = at(p, 'update', 'sessionUpdate');
    if (f && f !== 'unknown') out.push(...this.schema(frame, f, method, typeof kind === 'string' ? kind : undefined));
    return out;
  }

  private onCall(frame: CaptureFrame, m: JsonObject, out: Violation[]): void {
    if (typeof m.method !== 'string') {
      out.push(...this.schema(frame, { path: 'method', message: 'must be string' }));
      return;
    }
    const method = m.method;
    // the schema checks params as written; the rules read them only when they are an object
    const params = isObj(m.params) ? m.params : undefined;
    if (method === 'initialize' && frame.dir === 'editor->agent') {
      this.initId = m.id;
      const offered = at(params, 'protocolVersion');
      if (this.version === undefined && (offered === 1 || offered === 2)) this.version = offered;
      this.elicitations.initialize(params);
    }
    out.push(...this.callSchema(frame, method, m.params));
    if (frame.dir === 'editor->agent' && frame.kind === 'request')
      out.push(...this.capabilities.call(frame, this.version, method));
    if (frame.dir === 'agent->editor' && method === 'elicitation/create' && frame.kind === 'request')
      out.push(...this.elicitations.create(frame, m.id, params));
    if (frame.dir === 'agent->editor' && method === 'elicitation/complete')
      out.push(...this.elicitations.complete(frame, params));
    if (frame.kind === 'request') {
      const key = `${frame.dir}:${idKey(m.id)}`;
      const prev = this.pending.get(key);
      if (prev) {
        out.push({
          rule: 'duplicate-request-id',
          requirement: 'ACP-ALL-RPC-03',
          seqs: [prev.seq, frame.seq],
          message: `${method} reuses request id ${idKey(m.id)} while ${prev.method} (seq ${prev.seq}) with that id is still unanswered`,
        });
      }
      this.pending.set(key, {
        seq: frame.seq,
        dir: frame.dir,
        method,
        sessionId: typeof params?.sessionId === 'string' ? params.sessionId : undefined,
      });
    }
    const s = this.session(params?.sessionId);
    if (!s) return;
    if (frame.dir === 'editor->agent') this.onEditorCall(frame, m, method, params, s);
    else if (method === 'session/update') this.onSessionUpdate(frame, params, s, out);
  }

  /** A call from the editor: a prompt, load or resume opens a turn; a cancel marks what it cancels. */
  private onEditorCall(
    frame: CaptureFrame,
    m: JsonObject,
    method: string,
    params: JsonObject | undefined,
    s: SessionState,
  ): void {
    if (method === 'session/prompt') {
      s.ended = undefined;
      s.loaded = undefined;
      if (this.version !== 2) s.prompt = { seq: frame.seq, id: m.id ?? null };
    } else if (method === 'session/load' || method === 'session/resume') {
      s.ended = undefined;
      s.loaded = undefined;
    } else if (method === 'session/cancel') {
      if (s.prompt) s.prompt.cancelSeq = frame.seq;
      if (this.version === 2 && s.running) s.cancelSeq = frame.seq;
      for (const p of this.pending.values()) {
        if (p.method === 'session/request_permission' && p.sessionId === params?.sessionId && p.cancelSeq === undefined)
          p.cancelSeq = frame.seq;
      }
    }
  }

  /** A session/update from the agent, checked against the turn (v1) or work (v2) it belongs to. */
  private onSessionUpdate(
    frame: CaptureFrame,
    params: JsonObject | undefined,
    s: SessionState,
    out: Violation[],
  ): void {
    const update = at(params, 'update');
    const sessionUpdate = at(update, 'sessionUpdate');
    const kind = typeof sessionUpdate === 'string' ? sessionUpdate : '';
    if (
      !this.tracedOrder &&
      s.loaded &&
      (this.version === 2 ? V2_REPLAY_UPDATES.has(kind) && !s.running : V1_TURN_UPDATES.has(kind))
    ) {
      const id = s.loaded.method === 'session/load' ? 'ACP-V1-LOAD-03' : 'ACP-V2-RESUME-03';
      out.push({
        rule: 'replay-after-load-response',
        requirement: id,
        seqs: [s.loaded.requestSeq, s.loaded.responseSeq, frame.seq],
        message: `${kind} for session ${String(params?.sessionId)} arrived after the ${s.loaded.method} response (seq ${s.loaded.responseSeq}); replay must be complete before the response`,
      });
      return;
    }
    if (this.version !== 2) {
      if (!this.tracedOrder && !s.prompt && s.ended && V1_TURN_UPDATES.has(kind)) {
        out.push({
          rule: 'update-after-prompt-response',
          requirement: 'ACP-V1-PROMPT-03',
          seqs: [s.ended.promptSeq, s.ended.responseSeq, frame.seq],
          message: `${kind} for session ${String(params?.sessionId)} arrived after the session/prompt response (seq ${s.ended.responseSeq}) ended the turn`,
        });
      }
      return;
    }
    if (kind === 'state_update') {
      const state = at(update, 'state');
      if (state === 'idle') {
        if (s.running) {
          s.idle = { seq: frame.seq, messages: s.workMessages };
          s.workMessages = new Set();
          if (s.cancelSeq !== undefined && at(update, 'stopReason') === 'error') {
            out.push({
              rule: 'cancel-answered-with-error',
              requirement: 'ACP-V2-CANCEL-06',
              seqs: [s.cancelSeq, frame.seq],
              message: `the work cancelled by session/cancel (seq ${s.cancelSeq}) ended with stopReason "error"; it must end "cancelled"`,
            });
          }
          s.cancelSeq = undefined;
        }
        s.running = false;
      } else if (typeof state === 'string') {
        if (!s.running) s.workMessages = new Set();
        s.running = true;
        s.idle = undefined;
      }
      return;
    }
    const messageId = at(update, 'messageId');
    if (V2_AGENT_MESSAGES.has(kind) && typeof messageId === 'string') {
      if (!s.running && s.idle?.messages.has(messageId)) {
        out.push({
          rule: 'update-after-idle',
          requirement: 'ACP-V2-LIFE-06',
          seqs: [s.idle.seq, frame.seq],
          message: `${kind} of message ${messageId}, part of the work that the idle state_update (seq ${s.idle.seq}) ended, arrived after that idle`,
        });
      } else if (s.running) s.workMessages.add(messageId);
    }
  }

  private onResponse(frame: CaptureFrame, m: JsonObject, out: Violation[]): void {
    const key = `${other(frame.dir)}:${idKey(m.id)}`;
    const req = this.pending.get(key);
    // an error with id null answers a message whose id could not be read (JSON-RPC 2.0 section 5)
    if (!req && m.id === null && frame.kind === 'error') return;
    if (!req) {
      out.push({
        rule: 'response-to-unknown-id',
        requirement: 'ACP-ALL-RPC-03',
        seqs: [frame.seq],
        message: `response with id ${idKey(m.id)} answers no request in flight from the ${frame.dir === 'agent->editor' ? 'editor' : 'agent'}`,
      });
      return;
    }
    this.pending.delete(key);
    if (frame.kind === 'error') {
      const e = m.error;
      if (!isObj(e) || !Number.isInteger(e.code) || typeof e.message !== 'string')
        out.push(
          ...this.schema(
            frame,
            { path: 'error', message: 'must be {code: integer, message: string, data?}' },
            req.method,
          ),
        );
    }
    if (m.id === this.initId && req.method === 'initialize' && frame.kind === 'response') {
      const pv = at(m.result, 'protocolVersion');
      if (pv === 1 || pv === 2) this.version = pv;
      if (this.version) this.capabilities.initialized(this.version, m.result);
    }
    if (frame.kind === 'response' && this.version) {
      const f = getValidator(this.version).result(req.method, m.result, 'result');
      if (f) out.push(...this.schema(frame, f, req.method, undefined, `${req.method} result`));
    }
    if (req.method === 'elicitation/create')
      out.push(...this.elicitations.answer(frame, m.id, m.result, frame.kind === 'error'));
    const s = req.sessionId !== undefined ? this.sessions.get(req.sessionId) : undefined;
    if (req.method === 'session/request_permission' && req.cancelSeq !== undefined) {
      const outcome = at(m.result, 'outcome', 'outcome');
      const cancelledError = frame.kind === 'error' && this.version === 2 && at(m.error, 'code') === -32800;
      if (outcome !== 'cancelled' && !cancelledError) {
        out.push({
          rule: 'permission-pending-after-cancel',
          requirement: 'ACP-ALL-PERM-03',
          seqs: [req.seq, req.cancelSeq, frame.seq],
          message: `session/request_permission (seq ${req.seq}) was answered ${frame.kind === 'error' ? 'with an error' : `with outcome ${JSON.stringify(outcome)}`} after session/cancel (seq ${req.cancelSeq}); it must be answered with outcome "cancelled"`,
        });
      }
    }
    if (!s) return;
    if (req.method === 'session/prompt' && this.version !== 2 && s.prompt && idKey(s.prompt.id) === idKey(m.id)) {
      if (frame.kind === 'error' && s.prompt.cancelSeq !== undefined) {
        out.push({
          rule: 'cancel-answered-with-error',
          requirement: 'ACP-V1-CANCEL-06',
          seqs: [s.prompt.cancelSeq, frame.seq],
          message: `session/prompt (seq ${s.prompt.seq}) cancelled by session/cancel (seq ${s.prompt.cancelSeq}) was answered with an error; it must end with stopReason "cancelled"`,
        });
      }
      s.ended = { promptSeq: s.prompt.seq, responseSeq: frame.seq };
      s.prompt = undefined;
    }
    if (frame.kind === 'response' && (req.method === 'session/load' || req.method === 'session/resume')) {
      s.loaded = { requestSeq: req.seq, responseSeq: frame.seq, method: req.method };
    }
  }
}
