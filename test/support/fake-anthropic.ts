/**
 * A loopback stand-in for the Anthropic Messages API, for running a real Claude Code based agent
 * (`@zed-industries/claude-code-acp` or `@agentclientprotocol/claude-agent-acp`, which drive the
 * Claude Code CLI) without network: point the
 * agent at it with `ANTHROPIC_BASE_URL=http://127.0.0.1:<port>`.
 *
 * It answers `POST /v1/messages` with a scripted, streamed (SSE) answer in the real event shapes
 * (`message_start`, `content_block_start`, `content_block_delta`, `content_block_stop`,
 * `message_delta`, `message_stop`). The script is driven by the request, not by a call counter,
 * because the CLI may make requests of its own that are not turns of the conversation:
 * - the last user message carries `tool_result`s: a text answer quoting every result, so a test
 *   can see that the tools really ran against its files (`Result <tool_use_id>: <text>`, in the
 *   order the request has them);
 * - a side request, not a turn of the conversation, gets a short text answer: one that offers no
 *   tools (claude-agent-acp 0.101 asks for a session title that way, alongside the first turn) or
 *   Claude Code's prompt suggestion (`[SUGGESTION MODE: ...` as the last user text, after a turn);
 * - otherwise the turn's `toolUses` (`name` picked from the request's `tools`, the first present of
 *   `names`; only those whose `when` the conversation contains), ending `stop_reason: "tool_use"`;
 *   when none is left, a text answer.
 * `POST /v1/messages/count_tokens` gets a token count; anything else 404. Every request is logged
 * (method, path, body) so a failing test can show what the CLI asked for.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedToolUse {
  /** Tool names to use, first one the request offers wins (e.g. `mcp__acp__Read`, then `Read`). */
  names: readonly string[];
  input: Record<string, unknown>;
  /**
   * Only in a conversation whose messages contain this text (e.g. a word of the prompt), so one
   * endpoint can serve prompts that need a tool and prompts that do not; unset: every turn.
   */
  when?: string;
}

export interface LoggedRequest {
  method: string;
  path: string;
  body: unknown;
}

export interface FakeAnthropic {
  /** `http://127.0.0.1:<port>`, for ANTHROPIC_BASE_URL. */
  readonly url: string;
  readonly requests: readonly LoggedRequest[];
  /** Tool names the scripted answers used, in order (the ones picked from `names`). */
  readonly usedTools: readonly string[];
  close(): Promise<void>;
}

type Block = Record<string, unknown>;
interface MessagesBody {
  model?: string;
  stream?: boolean;
  messages?: Array<{ role: string; content: string | Block[] }>;
  tools?: Array<{ name: string }>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

/** The text of a tool_result's content (a string or text blocks). */
function resultText(block: Block): string {
  const c = block.content;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((b: Block) => (typeof b.text === 'string' ? b.text : '')).join('');
  return '';
}

/** A request of the CLI's own (a title, a prompt suggestion), not a turn of the conversation. */
function isSideRequest(body: MessagesBody): boolean {
  if ((body.tools ?? []).length === 0) return true;
  const last = body.messages?.at(-1);
  if (last?.role !== 'user') return false;
  const text =
    typeof last.content === 'string'
      ? last.content
      : last.content.map((b) => (typeof b.text === 'string' ? b.text : '')).join('');
  return text.startsWith('[SUGGESTION MODE:');
}

/** The content blocks of one scripted answer to `body`, and its stop reason. */
function scriptAnswer(
  body: MessagesBody,
  toolUses: readonly ScriptedToolUse[],
  used: string[],
  n: number,
): { blocks: Block[]; stop: string } {
  const last = body.messages?.at(-1);
  const results = Array.isArray(last?.content) ? last.content.filter((b) => b.type === 'tool_result') : [];
  if (results.length > 0) {
    const text = `Done. ${results.map((r) => `Result ${String(r.tool_use_id)}: ${resultText(r)}`).join('\n')}`;
    return { blocks: [{ type: 'text', text }], stop: 'end_turn' };
  }
  // a scripted tool use there would run a tool nobody asked for (seen: a second Read)
  if (isSideRequest(body)) return { blocks: [{ type: 'text', text: 'Fake side answer' }], stop: 'end_turn' };
  const conversation = JSON.stringify(body.messages ?? []);
  const scripted = toolUses.filter((t) => t.when === undefined || conversation.includes(t.when));
  if (scripted.length === 0) return { blocks: [{ type: 'text', text: 'Fake answer.' }], stop: 'end_turn' };
  const offered = new Set((body.tools ?? []).map((t) => t.name));
  const blocks = scripted.map((t, i) => {
    const name = t.names.find((x) => offered.has(x));
    if (name === undefined)
      throw new Error(
        `the request offers none of the tools ${t.names.join(', ')} (it offers ${[...offered].join(', ')})`,
      );
    used.push(name);
    return { type: 'tool_use', id: `toolu_fake_${n}_${i}`, name, input: t.input };
  });
  return { blocks: [{ type: 'text', text: 'Reading the file.' }, ...blocks], stop: 'tool_use' };
}

/** Writes `blocks` as a Messages API event stream. */
function streamAnswer(res: ServerResponse, model: string, id: string, blocks: Block[], stop: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const event = (type: string, data: Record<string, unknown>): void => {
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  };
  event('message_start', {
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 1 },
    },
  });
  blocks.forEach((block, index) => {
    if (block.type === 'tool_use') {
      // the input arrives as JSON text deltas, as from the real API
      event('content_block_start', { index, content_block: { ...block, input: {} } });
      event('content_block_delta', {
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
      });
    } else {
      event('content_block_start', { index, content_block: { type: 'text', text: '' } });
      event('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
    }
    event('content_block_stop', { index });
  });
  event('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 20 } });
  event('message_stop', {});
  res.end();
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  state: { log: LoggedRequest[]; used: string[]; toolUses: readonly ScriptedToolUse[] },
): Promise<void> {
  const raw = await readBody(req);
  let body: unknown = raw;
  try {
    body = raw ? JSON.parse(raw) : undefined;
  } catch {
    // logged as text
  }
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  state.log.push({ method: req.method ?? '', path, body });
  const json = (status: number, value: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  };
  if (req.method === 'POST' && path === '/v1/messages/count_tokens') return json(200, { input_tokens: 10 });
  if (req.method !== 'POST' || path !== '/v1/messages')
    return json(404, { type: 'error', error: { type: 'not_found_error', message: `fake endpoint: no ${path}` } });
  const b = (body ?? {}) as MessagesBody;
  const n = state.log.length;
  const { blocks, stop } = scriptAnswer(b, state.toolUses, state.used, n);
  const model = b.model ?? 'claude-fake';
  if (b.stream) return streamAnswer(res, model, `msg_fake_${n}`, blocks, stop);
  json(200, {
    id: `msg_fake_${n}`,
    type: 'message',
    role: 'assistant',
    model,
    content: blocks,
    stop_reason: stop,
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 20 },
  });
}

/** Starts the fake endpoint on 127.0.0.1 (a free port); `toolUses` is the first turn's tool calls. */
export async function startFakeAnthropic(toolUses: readonly ScriptedToolUse[]): Promise<FakeAnthropic> {
  const state = { log: [] as LoggedRequest[], used: [] as string[], toolUses };
  const server: Server = createServer((req, res) => {
    handle(req, res, state).catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: String(e) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: state.log,
    usedTools: state.used,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
