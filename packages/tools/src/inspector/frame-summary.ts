import { at, isObj, stringAt } from '@acp-kit/protocol/internal';
import type { CaptureFrame } from '../captures/frame.js';

/*
 * One line per frame of the unstable methods and update kinds (issue 26 item 3), for the timeline:
 * what a person debugging an editor<->agent connection wants to read without opening the frame.
 * Read loosely from the wire (the inspector shows what was sent, valid or not): a field that is
 * missing or of the wrong type is left out of the line, never guessed.
 */

type Rec = Record<string, unknown>;

/** A request as its answer's summary needs it: its method and params. */
export interface AnsweredRequest {
  method: string;
  params: unknown;
}

/** Longest text quoted from a message, so a row stays one line. */
const SNIPPET = 60;

function snippet(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > SNIPPET ? `${one.slice(0, SNIPPET - 1)}…` : one;
}

/** The text of a content block or a list of them (other blocks as `[type]`). */
function blockText(content: unknown): string {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks
    .map((b) => (typeof at(b, 'text') === 'string' ? String(at(b, 'text')) : `[${String(at(b, 'type') ?? '?')}]`))
    .join('');
}

/** An MCP request id (a string in the schemas; a number from a confused peer shows as written). */
function idText(v: unknown): string {
  return typeof v === 'string' || typeof v === 'number' ? String(v) : '?';
}

const sid = (p: unknown): string => stringAt(p, 'sessionId') ?? '?';

/** `auth: <state>` with the accounts' labels (`*` marks the active ones). */
function authLine(p: unknown): string {
  const accounts = at(p, 'accounts');
  const labels = Array.isArray(accounts)
    ? accounts.map((a) => `${stringAt(a, 'label') ?? '?'}${at(a, 'active') === true ? '*' : ''}`)
    : [];
  return `auth: ${stringAt(p, 'state') ?? '?'}${labels.length ? ` (${labels.join(', ')})` : ''}`;
}

/** `providers: main (anthropic), openai (disabled)`: each provider's id and the protocol it routes with. */
function providersLine(r: unknown): string {
  const list = at(r, 'providers');
  const each = Array.isArray(list)
    ? list.map((p) => `${stringAt(p, 'providerId') ?? '?'} (${stringAt(p, 'current', 'apiType') ?? 'disabled'})`)
    : [];
  return `providers: ${each.length ? each.join(', ') : '(none)'}`;
}

/** The MCP-over-ACP envelope: the inner MCP method and request id, and the ACP MCP server (connection) id. */
function mcpLine(p: unknown): string {
  return `MCP ${stringAt(p, 'method') ?? '?'} #${idText(at(p, 'requestId'))} via ${stringAt(p, 'serverId') ?? '?'}`;
}

/** The wrapped message of a `proxy/successor` envelope: its method, its update kind, and its own summary. */
function innerLine(p: unknown): string {
  const method = stringAt(p, 'method') ?? '?';
  const params = at(p, 'params');
  const inner =
    method === 'session/update' ? updateSummary(at(params, 'update')) : CALLS.get(method)?.(params, undefined);
  const kind = method === 'session/update' ? stringAt(params, 'update', 'sessionUpdate') : undefined;
  return [method, kind, inner].filter((x) => x !== undefined).join(' ');
}

/** Summaries of requests and notifications by method (the frame's direction for `proxy/successor`). */
const CALLS = new Map<string, (params: unknown, dir: CaptureFrame['dir'] | undefined) => string>(
  Object.entries({
    'session/fork': (p) => `fork of ${sid(p)}`,
    'session/archive': (p) => `archive ${sid(p)}`,
    'session/unarchive': (p) => `unarchive ${sid(p)}`,
    'session/set_title': (p) => `title: ${stringAt(p, 'title') ?? '?'}`,
    'session/status': (p) => `status of ${sid(p)}?`,
    'auth/status': () => 'auth status?',
    'auth/status_update': authLine,
    'providers/list': () => 'providers?',
    // never the headers' values: they carry the authorization
    'providers/set': (p) => {
      const headers = at(p, 'headers');
      const n = isObj(headers) ? Object.keys(headers).length : 0;
      return `provider ${stringAt(p, 'providerId') ?? '?'}: ${stringAt(p, 'apiType') ?? '?'} ${stringAt(p, 'baseUrl') ?? '?'}${n ? ` (${n} header${n === 1 ? '' : 's'})` : ''}`;
    },
    'providers/disable': (p) => `disable provider ${stringAt(p, 'providerId') ?? '?'}`,
    'mcp/message': mcpLine,
    'proxy/initialize': (p) => `proxy initialize, protocol v${String(at(p, 'protocolVersion') ?? '?')}`,
    // the conductor delivers what the successor sent; the proxy forwards to its successor
    'proxy/successor': (p, dir) =>
      `${dir === 'agent->editor' ? 'to successor' : dir === 'editor->agent' ? 'from successor' : 'successor'}: ${innerLine(p)}`,
  } satisfies Record<string, (params: unknown, dir: CaptureFrame['dir'] | undefined) => string>),
);

/** Summaries of successful answers by the request's method (with the request's params). */
const ANSWERS = new Map<string, (result: unknown, params: unknown) => string>(
  Object.entries({
    'session/fork': (r, p) => `fork of ${sid(p)} -> ${sid(r)}`,
    'session/archive': (_r, p) => `archived ${sid(p)}`,
    'session/unarchive': (_r, p) => `unarchived ${sid(p)}`,
    'session/set_title': (r, p) => `title: ${stringAt(r, 'title') ?? stringAt(p, 'title') ?? '?'}`,
    'session/status': (r) => {
      const state = stringAt(r, 'state', 'state');
      return `status: ${stringAt(r, 'status') ?? '?'}${state === undefined ? '' : ` (${state})`}`;
    },
    'auth/status': authLine,
    'providers/list': providersLine,
    'providers/set': (_r, p) => `provider ${stringAt(p, 'providerId') ?? '?'} set`,
    'providers/disable': (_r, p) => `provider ${stringAt(p, 'providerId') ?? '?'} disabled`,
    // the inner MCP outcome: a result or an MCP error, inside a successful ACP answer
    'mcp/message': (r, p) => {
      const head = `MCP #${idText(at(p, 'requestId'))}`;
      return isObj(at(r, 'error'))
        ? `${head} error ${String(at(r, 'error', 'code') ?? '?')}: ${snippet(stringAt(r, 'error', 'message') ?? '')}`
        : `${head} result`;
    },
    'proxy/initialize': (r) => `proxy initialized, protocol v${String(at(r, 'protocolVersion') ?? '?')}`,
    'proxy/successor': (_r: unknown, p: unknown) => `answer to the wrapped ${stringAt(p, 'method') ?? '?'}`,
  } satisfies Record<string, (result: unknown, params: unknown) => string>),
);

/** Summaries of `session/update` kinds. */
const UPDATES = new Map<string, (u: Rec) => string>(
  Object.entries({
    plan_removed: (u) => `plan removed: ${stringAt(u, 'planId') ?? '?'}`,
    subagent_update: (u) => {
      const title = u.title === null ? ' (title cleared)' : typeof u.title === 'string' ? ` "${snippet(u.title)}"` : '';
      const state = stringAt(u, 'state', 'state');
      return `subagent ${sid(u)}${title}${state === undefined ? '' : ` [${state}]`}`;
    },
    session_message: (u) => {
      const from = stringAt(u, 'senderSessionId');
      const to = stringAt(u, 'recipientSessionId');
      const route = from !== undefined || to !== undefined ? ` ${from ?? '?'} -> ${to ?? '?'}` : '';
      const text = Array.isArray(u.content) ? `: ${snippet(blockText(u.content))}` : '';
      return `message ${stringAt(u, 'messageId') ?? '?'}${route}${text}`;
    },
    session_message_chunk: (u: Rec) => `message ${stringAt(u, 'messageId') ?? '?'} += ${snippet(blockText(u.content))}`,
  } satisfies Record<string, (u: Rec) => string>),
);

/** The summary of one `session/update` payload, undefined for the kinds the timeline shows by name alone. */
export function updateSummary(update: unknown): string | undefined {
  if (!isObj(update)) return undefined;
  const kind = update.sessionUpdate;
  return typeof kind === 'string' ? UPDATES.get(kind)?.(update) : undefined;
}

/** True when an answer to a request of `method` has a summary (its request is worth reading back). */
export function summarisesAnswer(method: string): boolean {
  return ANSWERS.has(method);
}

/**
 * The one-line summary of a frame (its JSON parsed), undefined when the timeline's method and
 * update kind say it all. An answer is summarised with the request it answers.
 */
export function frameSummary(frame: CaptureFrame, json: unknown, request?: AnsweredRequest): string | undefined {
  if (!isObj(json)) return undefined;
  if (typeof json.method === 'string') {
    if (json.method === 'session/update') return updateSummary(at(json, 'params', 'update'));
    return CALLS.get(json.method)?.(json.params, frame.dir);
  }
  const answer = request && ANSWERS.get(request.method);
  if (!request || !answer) return undefined;
  if (isObj(json.error))
    return `${request.method} failed: ${String(json.error.code ?? '?')} ${snippet(stringAt(json, 'error', 'message') ?? '')}`;
  return answer(json.result, request.params);
}
