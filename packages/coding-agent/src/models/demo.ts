import type { PlanEntry } from '@acp-kit/protocol';
import {
  abortError,
  delay,
  type AssistantPart,
  type ConversationMessage,
  type LanguageModel,
  type ModelEvent,
  type ModelRequest,
  type ToolResult,
} from '../model.js';
import { mcpToolName } from '../mcp/tool-name.js';
import { isObj } from '@acp-kit/protocol/internal';

/**
 * The offline demo model: **not an AI**. A deterministic, rule-based stand-in that understands a
 * handful of sentences, so `acp-kit agent` works without network or API keys and tests have a
 * reproducible model. It exercises the whole protocol surface: a plan, a thought, streamed text,
 * a tool call, and a summary after the tool result.
 *
 * Understood requests (case-insensitive):
 * - `create <file> containing <text>` → `write_file` (asks permission)
 * - `read <file>` → `read_file`
 * - `list files` / `list files in <dir>` / `list files matching <glob>` → `list_files`
 * - `search <regex>` / `search <regex> in <dir>` → `search_text`
 * - `edit <file> replace <a> with <b>` → `edit_file` (asks permission)
 * - `run <command>` → `run_command` (asks permission)
 * - `ask <question>` / `ask <question> choices <a>, <b>` → `ask_user` (a form the client shows,
 *   when it advertises form elicitation; otherwise the demo says it cannot ask)
 * - `mcp <server> <tool> [<json arguments>]` → `mcp__<server>__<tool>`, a tool of an MCP server
 *   the client configured (asks permission unless the server marks it read-only)
 * - anything with `rm -rf /` or `sudo` → refused (`refusal`)
 * - anything else → a short explanation of what it understands and how to use a real model.
 */
export interface DemoModelOptions {
  /** Pause before each streamed delta, in ms (default 10). Lets cancellation land mid-stream. */
  delayMs?: number;
  /** Reported context window (default 32768). */
  contextWindow?: number;
}

type Action =
  | { tool: 'write_file'; input: { path: string; content: string }; intent: string }
  | { tool: 'read_file'; input: { path: string }; intent: string }
  | { tool: 'list_files'; input: { path?: string; pattern?: string }; intent: string }
  | { tool: 'search_text'; input: { pattern: string; path?: string }; intent: string }
  | { tool: 'edit_file'; input: { path: string; old_string: string; new_string: string }; intent: string }
  | { tool: 'run_command'; input: { command: string }; intent: string }
  | { tool: 'ask_user'; input: { question: string; choices?: string[] }; intent: string }
  | { tool: `mcp__${string}`; input: unknown; intent: string };

const unquote = (s: string) => s.trim().replace(/^(["'`])([\s\S]*)\1$/, '$2');

/** Group `i` of a match where that group is not optional (so it took part: a miss is a bug in the pattern). */
function group(m: RegExpMatchArray, i: number): string {
  const g = m[i];
  if (g === undefined) throw new Error(`demo model: group ${i} of ${String(m[0])} did not take part in the match`);
  return g;
}

/** Parses one request sentence. Exported for the docs/tests of the demo grammar. */
export function parseDemoRequest(text: string): Action | { refuse: string } | null {
  const t = text.trim().replace(/[.!]+$/, '');
  if (/\brm\s+-rf\s+\/(\s|$|\*)|\bsudo\b|\bmkfs\b/i.test(t))
    return { refuse: 'That would damage the system or needs elevated privileges.' };
  let m: RegExpMatchArray | null;
  if ((m = t.match(/^mcp\s+(\S+)\s+(\S+)(?:\s+([\s\S]+))?$/i))) {
    let input: unknown = {};
    if (m[3] !== undefined) {
      try {
        input = JSON.parse(m[3]);
      } catch {
        input = m[3]; // not JSON: the tool call fails with an input error the user sees
      }
    }
    return {
      tool: mcpToolName(group(m, 1), group(m, 2)),
      input,
      intent: `call \`${group(m, 2)}\` of the MCP server \`${group(m, 1)}\``,
    };
  }
  if (
    (m = t.match(
      /^(?:please\s+)?(?:create|write|make)\s+(?:a\s+)?(?:new\s+)?(?:file\s+)?(\S+)\s+(?:containing|with(?:\s+content)?|saying)\s+([\s\S]+)$/i,
    ))
  ) {
    const path = unquote(group(m, 1));
    return { tool: 'write_file', input: { path, content: unquote(group(m, 2)) + '\n' }, intent: `create \`${path}\`` };
  }
  if ((m = t.match(/^(?:please\s+)?edit\s+(\S+)\s+(?:and\s+)?replace\s+([\s\S]+?)\s+with\s+([\s\S]+)$/i))) {
    const path = unquote(group(m, 1));
    return {
      tool: 'edit_file',
      input: { path, old_string: unquote(group(m, 2)), new_string: unquote(group(m, 3)) },
      intent: `edit \`${path}\``,
    };
  }
  if ((m = t.match(/^(?:please\s+)?(?:read|show|cat|open)\s+(?:me\s+)?(?:the\s+)?(?:file\s+)?(\S+)$/i))) {
    const path = unquote(group(m, 1));
    return { tool: 'read_file', input: { path }, intent: `read \`${path}\`` };
  }
  if (
    (m = t.match(
      /^(?:please\s+)?(?:list|ls)(?:\s+(?:all\s+)?(?:the\s+)?files)?(?:\s+in\s+(\S+))?(?:\s+matching\s+(\S+))?$/i,
    ))
  ) {
    const input: { path?: string; pattern?: string } = {};
    if (m[1]) input.path = unquote(m[1]);
    if (m[2]) input.pattern = unquote(m[2]);
    return { tool: 'list_files', input, intent: `list the files${input.path ? ` in \`${input.path}\`` : ''}` };
  }
  if ((m = t.match(/^(?:please\s+)?(?:search|grep|find)\s+(?:for\s+)?(.+?)(?:\s+in\s+(\S+))?$/i))) {
    const input: { pattern: string; path?: string } = { pattern: unquote(group(m, 1)) };
    if (m[2]) input.path = unquote(m[2]);
    return { tool: 'search_text', input, intent: `search for \`${input.pattern}\`` };
  }
  if ((m = text.trim().match(/^ask\s+([\s\S]+?)(?:\s+choices\s+([\s\S]+))?$/i))) {
    const question = unquote(group(m, 1));
    const choices = m[2]
      ?.split(',')
      .map((c) => unquote(c))
      .filter(Boolean);
    return { tool: 'ask_user', input: choices?.length ? { question, choices } : { question }, intent: 'ask you' };
  }
  if ((m = t.match(/^(?:please\s+)?(?:run|execute|exec)\s+([\s\S]+)$/i))) {
    const command = unquote(group(m, 1));
    return { tool: 'run_command', input: { command }, intent: `run \`${command}\`` };
  }
  return null;
}

export const DEMO_HELP = [
  "I'm the acp-kit **demo model**: an offline, rule-based stand-in, not an AI. I understand:",
  '',
  '- `create notes.txt containing hello`',
  '- `read README.md`',
  '- `list files` (or `list files in src matching *.ts`)',
  '- `search TODO in src`',
  '- `edit notes.txt replace hello with goodbye`',
  '- `run ls -la`',
  '- `ask Which database? choices postgres, sqlite` (a question your editor shows as a form)',
  '- `mcp <server> <tool> {"arg": "value"}` (calls a tool of an MCP server your editor configured)',
  '',
  'For a real model, start the agent with',
  '`acp-kit agent --model openai --base-url https://api.openai.com/v1 --model-name gpt-4o-mini` (key in `OPENAI_API_KEY`)',
  'or `acp-kit agent --model anthropic --model-name claude-sonnet-4-5` (key in `ANTHROPIC_API_KEY`).',
  'Environment variables `ACP_KIT_MODEL`, `ACP_KIT_MODEL_NAME`, `OPENAI_BASE_URL` and `ANTHROPIC_BASE_URL` work too.',
].join('\n');

function textOf(m: ConversationMessage | undefined): string {
  if (!m || m.role !== 'user') return '';
  return m.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
}

/** Splits text into word-sized deltas (whitespace kept), as a real model streams tokens. */
function tokens(s: string): string[] {
  return s.match(/\S+\s*|\s+/g) ?? [];
}

/** The lines of a text; a final newline ends the last line, it does not start another one. */
function textLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function summarize(call: Extract<AssistantPart, { type: 'tool_call' }>, r: ToolResult): string {
  const input: Record<string, unknown> = isObj(call.input) ? call.input : {};
  if (/rejected|not understood|read-only|Cancelled/i.test(r.output) && r.isError) {
    return `Okay, I did not run \`${call.toolName}\`: ${r.output}`;
  }
  if (r.isError) return `The \`${call.toolName}\` call failed: ${r.output}`;
  switch (call.toolName) {
    case 'ask_user':
      return r.output;
    case 'write_file':
      return `Done: ${r.output} The file now contains ${JSON.stringify(String(input.content ?? ''))}.`;
    case 'edit_file':
      return `Done: ${r.output}`;
    case 'read_file': {
      if (!r.output.includes('\n') && / is empty$/.test(r.output)) return `\`${String(input.path)}\` is empty.`;
      const lines = textLines(r.output);
      return `\`${String(input.path)}\` has ${lines.length} line${lines.length === 1 ? '' : 's'}. It starts with: ${JSON.stringify(lines[0] ?? '')}.`;
    }
    case 'list_files': {
      const files = r.output.startsWith('No files') ? [] : r.output.split('\n').filter((l) => !l.startsWith('…'));
      return files.length === 0
        ? r.output
        : `I found ${files.length} file${files.length === 1 ? '' : 's'}: ${files
            .slice(0, 10)
            .map((f) => `\`${f}\``)
            .join(', ')}${files.length > 10 ? ', …' : ''}.`;
    }
    case 'search_text': {
      const hits = r.output.startsWith('No matches')
        ? 0
        : r.output.split('\n').filter((l) => !l.startsWith('…')).length;
      return hits === 0
        ? r.output
        : `I found ${hits} match${hits === 1 ? '' : 'es'}; the first is \`${r.output.split('\n')[0]}\`.`;
    }
    case 'run_command': {
      const [first = ''] = r.output.split('\n'); // split gives at least one element
      return `The command finished (${first.replace(/^Command /, '').replace(/\.$/, '')}).`;
    }
    default:
      return `Done: ${r.output}`;
  }
}

/** Resolves after the I/O waiting now (setImmediate); rejects when `signal` is aborted. */
function nextTick(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    setImmediate(() => (signal?.aborted ? reject(abortError(signal)) : resolve()));
  });
}

/** Creates the offline demo model. */
export function createDemoModel(options: DemoModelOptions = {}): LanguageModel {
  const delayMs = options.delayMs ?? 10;
  const contextWindow = options.contextWindow ?? 32768;
  return {
    id: 'demo',
    contextWindow,
    stream(req: ModelRequest): AsyncIterable<ModelEvent> {
      return run(req);
    },
  };

  async function* run(req: ModelRequest): AsyncGenerator<ModelEvent> {
    const { signal } = req;
    const budget = req.maxOutputTokens ?? Infinity;
    let out = 0;
    const inputTokens = Math.ceil((req.system.length + JSON.stringify(req.messages).length) / 4);
    const usage = (): ModelEvent => ({ type: 'usage', inputTokens, outputTokens: out, contextWindow });
    /** Streams `s`; false when the output budget ran out (then the caller finishes with `length`). */
    async function* stream(kind: 'text_delta' | 'reasoning_delta', s: string): AsyncGenerator<ModelEvent, boolean> {
      for (const tok of tokens(s)) {
        if (out >= budget) return false;
        // 0: a macrotask per token (I/O runs between them) without setTimeout's 1 ms floor, which
        // would cap a stream at ~1,000 tokens/s (benches stream through `acp-kit serve` with it)
        if (delayMs > 0) await delay(delayMs, signal);
        else await nextTick(signal);
        out++;
        yield { type: kind, text: tok };
      }
      return true;
    }
    await delay(0, signal);

    const last = req.messages[req.messages.length - 1];
    if (last?.role === 'tool') {
      // after tool results: summarize, complete the plan
      const prev = req.messages[req.messages.length - 2];
      const calls =
        prev?.role === 'assistant'
          ? prev.content.filter((p): p is Extract<AssistantPart, { type: 'tool_call' }> => p.type === 'tool_call')
          : [];
      const lines = last.results.map((r) => {
        const call = calls.find((c) => c.toolCallId === r.toolCallId);
        return call ? summarize(call, r) : r.output;
      });
      const failed = last.results.some((r) => r.isError);
      yield {
        type: 'plan',
        entries: planFor(
          calls.map((c) => c.toolName),
          failed ? 'failed' : 'completed',
        ),
      };
      if (!(yield* stream('text_delta', lines.join('\n')))) return yield* finishLength();
      yield usage();
      yield { type: 'finish', reason: 'stop' };
      return;
    }

    const request = textOf(last);
    const action = parseDemoRequest(request);
    if (action === null) {
      const reply =
        request.trim() === ''
          ? DEMO_HELP
          : `I can't do that yet: "${request.trim().slice(0, 80)}" is not a request I understand.\n\n${DEMO_HELP}`;
      if (!(yield* stream('text_delta', reply))) return yield* finishLength();
      yield usage();
      yield { type: 'finish', reason: 'stop' };
      return;
    }
    if (!('refuse' in action) && action.tool === 'ask_user' && !req.tools.some((t) => t.name === 'ask_user')) {
      // the client cannot show a form: say so instead of calling a tool that is not offered (ACP-ALL-ELIC-02)
      const reply = `I would ask you: "${action.input.question}", but this client cannot show questions (no form elicitation).`;
      if (!(yield* stream('text_delta', reply))) return yield* finishLength();
      yield usage();
      yield { type: 'finish', reason: 'stop' };
      return;
    }
    if ('refuse' in action) {
      if (!(yield* stream('text_delta', `I won't do that. ${action.refuse}`))) return yield* finishLength();
      yield usage();
      yield { type: 'finish', reason: 'refusal' };
      return;
    }
    yield { type: 'plan', entries: planFor([action.tool], 'running') };
    const thought = thoughtFor(action.tool, action.intent);
    if (!(yield* stream('reasoning_delta', thought))) return yield* finishLength();
    if (!(yield* stream('text_delta', `I'll ${action.intent.replace(/`/g, '')} with \`${action.tool}\`.`)))
      return yield* finishLength();
    const n = req.messages.filter((m) => m.role === 'assistant').length + 1;
    yield { type: 'tool_call', toolCallId: `demo_call_${n}`, toolName: action.tool, input: action.input };
    yield usage();
    yield { type: 'finish', reason: 'tool_calls' };

    async function* finishLength(): AsyncGenerator<ModelEvent> {
      yield usage();
      yield { type: 'finish', reason: 'length' };
    }
  }
}

/** The reasoning the demo streams before a tool call: what the tool does and whether it may ask for permission. */
function thoughtFor(tool: string, intent: string): string {
  const asks = tool === 'write_file' || tool === 'edit_file' || tool === 'run_command' || tool.startsWith('mcp__');
  const why = tool.startsWith('mcp__')
    ? '; the user may be asked for permission first unless the MCP server marks it read-only'
    : asks
      ? '; it changes things, so the user may be asked for permission first'
      : ' without side effects';
  return `The user wants me to ${intent}. The ${tool} tool does that${why}.`;
}

function planFor(tools: string[], state: 'running' | 'completed' | 'failed'): PlanEntry[] {
  const step = tools.map((t) => `Use ${t}`).join(', ') || 'Answer';
  return [
    { content: 'Understand the request', priority: 'medium', status: 'completed' },
    { content: step, priority: 'high', status: state === 'running' ? 'in_progress' : 'completed' },
    {
      content: state === 'failed' ? 'Report the problem' : 'Summarize the result',
      priority: 'low',
      status: state === 'running' ? 'pending' : 'completed',
    },
  ];
}
