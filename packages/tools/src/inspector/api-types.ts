import type { PermissionOption, UsageInfo } from '@acp-kit/protocol';
import type { CaptureFrame } from '../captures/frame.js';
import type { Violation } from '../captures/violation.js';

/*
 * The shapes of the inspector's JSON API: what the server builds and the page reads. Types, one
 * constant and type-only imports of modules without runtime imports, so the page (a browser bundle
 * type-checked without Node's types) imports them instead of keeping copies.
 */

/** One entry of the source list the page shows. */
export interface SourceInfo {
  id: string;
  name: string;
  path: string;
  live: boolean;
  agent: string[];
  frames: number;
  finished: boolean;
}

/**
 * One timeline row, as sent to the page: a compact array so 100k frames stay a few MB.
 * `[seq, t, dir (0 editor->agent, 1 agent->editor), kind, method, id, size, session, update, group, latency, pair, violations, hop, summary]`;
 * `hop` is the hop of a proxy chain's trace the frame was on (e.g. `Proxy(0)-Proxy(1)`), -1 or absent otherwise;
 * `summary` is the frame's one-line summary (frame-summary.ts), absent when the method and update kind say it all;
 * strings are indexes into the model's string table (-1 = none); latency/pair are -1 when unknown.
 */
export type RowTuple = [
  number,
  number,
  0 | 1,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number?,
  number?,
];

/** Indexes of {@link RowTuple} fields. */
export const ROW = {
  seq: 0,
  t: 1,
  dir: 2,
  kind: 3,
  method: 4,
  id: 5,
  size: 6,
  session: 7,
  update: 8,
  group: 9,
  latency: 10,
  pair: 11,
  violations: 12,
  hop: 13,
  summary: 14,
} as const;

/** Everything the frame detail shows. */
export interface FrameDetail {
  frame: CaptureFrame;
  /** parsed JSON, undefined for lines that are not JSON */
  json: unknown;
  marks: FieldMarks;
  violations: Violation[];
  /** the request this frame answers / the answer to this request */
  pair: number | undefined;
  latency: number | undefined;
  protocolVersion: 1 | 2 | undefined;
  /** the timeline row's one-line summary (frame-summary.ts), undefined when it has none */
  summary: string | undefined;
}

/** Paths (e.g. `params.update.foo`) of fields the schema does not declare, and of `_meta` fields. */
export interface FieldMarks {
  undeclared: string[];
  meta: string[];
}

/** A permission request as the session view shows it: the question, the options and the answer. */
export interface PermissionView {
  kind: 'permission';
  key: string;
  title: string;
  toolCallId: string | undefined;
  options: PermissionOption[];
  /** `selected` with the option, `cancelled`, `error`, or `pending` (no answer yet) */
  outcome: 'selected' | 'cancelled' | 'error' | 'pending' | (string & {});
  optionId: string | undefined;
  seqs: number[];
}

/** One field of an elicitation form as the inspector shows it. */
export interface ElicitationFieldView {
  name: string;
  label: string;
  /** the property's `type` (`string`, `integer`, ... or an unknown one, shown as written) */
  type: string;
  required: boolean;
  default: unknown;
  /** the values of a choice field */
  choices: string[] | undefined;
}

/** An elicitation as the session view shows it: the question (form fields or URL) and the answer beside it. */
export interface ElicitationView {
  kind: 'elicitation';
  key: string;
  mode: string;
  message: string;
  fields: ElicitationFieldView[];
  /** url mode: the URL and its host (undefined when it does not parse) */
  url: string | undefined;
  host: string | undefined;
  /** `accept`, `decline`, `cancel`, `error`, or `pending` (no answer yet) */
  action: string;
  content: unknown;
  seqs: number[];
}

/** One change of the foreground state (v2 `state_update`; v1 derived from the prompt request/response). */
export interface ForegroundChange {
  seq: number;
  t: number;
  state: string;
  stopReason: string | null | undefined;
}

/** Client-owned (v1 `terminal/*`) terminal output, as the agent read it back. */
export interface ClientTerminalView {
  terminalId: string;
  command: string | undefined;
  output: string;
  exitStatus: unknown;
  seqs: number[];
}

/** A timeline entity of the neutral model as JSON (its `toJSON()`), with its key and the frames that built it. */
export type EntityItem = Record<string, unknown> & {
  kind: 'message' | 'tool_call' | 'plan' | 'compaction';
  key: string;
  seqs: number[];
};

/**
 * A child session the session announced with `subagent_update` (unstable): what the parent reports
 * of it (title, description, mirrored state) and the child's own conversation, nested.
 */
export interface SubagentItem {
  kind: 'subagent';
  key: string;
  sessionId: string;
  title: string | undefined;
  description: string | undefined;
  /** the child's foreground state as the parent mirrors it (`undefined` = not reported) */
  state: string | undefined;
  stopReason: string | null | undefined;
  cwd: string | undefined;
  /** the child's own session, rebuilt from the updates that carry its id (undefined: none yet) */
  session: SessionView | undefined;
  seqs: number[];
}

/** An inter-session message (`session_message` upserts and `session_message_chunk` appends, unstable). */
export interface SessionMessageItem {
  kind: 'session_message';
  key: string;
  messageId: string;
  senderSessionId: string | undefined;
  recipientSessionId: string | undefined;
  content: unknown[];
  seqs: number[];
}

/** One item of a session's conversation: a timeline entity, a question, a subagent or a session message; narrows on `kind`. */
export type SessionItem = EntityItem | PermissionView | ElicitationView | SubagentItem | SessionMessageItem;

/** A session-level fact and the frame that told it (the answer of an unstable session method). */
export interface Told<T> {
  value: T;
  seq: number;
}

/** An agent-owned (v2) terminal as JSON, its output decoded to text, with the frames that built it. */
export type TerminalItem = Record<string, unknown> & { terminalId: string; outputText: string; seqs: number[] };

/** A session rebuilt from the wire, through the codecs, into the neutral model. */
export interface SessionView {
  sessionId: string;
  protocolVersion: 1 | 2;
  title: string | undefined;
  /** messages, tool calls, plans, compactions (entity JSON + `key` + `seqs`) and permission requests, in order */
  items: SessionItem[];
  terminals: TerminalItem[];
  clientTerminals: ClientTerminalView[];
  foreground: ForegroundChange[];
  usage: UsageInfo | undefined;
  /** true after a successful `session/archive`, false after `session/unarchive` (unstable); undefined: never told */
  archived: Told<boolean> | undefined;
  /** the last `session/status` answer (unstable): `open`/`saved` and the v2 foreground state it reported */
  status: Told<{ status: string; state: string | undefined }> | undefined;
  /** the session this one was forked from (`session/fork`, unstable) */
  forkOf: Told<string> | undefined;
  /** the sessions forked from this one, in the order their answers came */
  forks: Array<Told<string>>;
  /** frames whose update could not be decoded (seq + message) */
  decodeErrors: Array<{ seq: number; message: string }>;
}
