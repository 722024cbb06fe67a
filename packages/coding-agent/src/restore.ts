import {
  SessionState,
  type AnyContentBlock,
  type AnySessionUpdate,
  type MessageChunk,
  type MessageUpdate,
  type TerminalState,
  type ToolCallState,
  type ToolCallUpdate,
} from '@acp-kit/protocol';
import { promptToUserMessage } from './engine.js';
import type { AssistantPart, ConversationMessage, ToolResult, UserPart } from './model.js';

/** What a slash command in a restored history did to the model conversation. */
export type RestoredCommandEffect = 'ignore' | 'clear';

export interface ConversationFromHistoryOptions {
  /**
   * Classifies a user message that was a slash command (`/name args`): `ignore` drops the turn (the
   * model never saw it), `clear` also drops everything before it; `undefined` = a normal prompt.
   */
  command?(name: string): RestoredCommandEffect | undefined;
  /** Cap on one restored tool result, in characters (default 16 000). */
  maxResultChars?: number;
  /** Names of tools the engine handles itself and never reports as tool calls (ignored if seen). */
  hiddenTools?: readonly string[];
}

const DEFAULT_MAX_RESULT = 16_000;

/**
 * Rebuilds the model conversation of a restored session from its stored ACP history, so a model
 * continues where it left off after an agent restart (`session/load` / `session/resume`): user
 * messages (prompt content), agent messages (text; thoughts are not replayed to models), and
 * tool calls with their results as text (tool content, display-terminal output, raw output).
 * Calls the history shows unfinished (the agent stopped mid-call) get an error result, so the
 * conversation stays valid for providers that require a result for every call.
 */
export function conversationFromHistory(
  history: readonly AnySessionUpdate[],
  options: ConversationFromHistoryOptions = {},
): ConversationMessage[] {
  const b = new ConversationBuilder(finalState(history), options);
  for (const u of history) {
    switch (u.sessionUpdate) {
      case 'user_message':
      case 'user_message_chunk':
        b.user(u);
        break;
      case 'agent_message_chunk':
      case 'agent_message':
        b.agent(u);
        break;
      case 'tool_call_update':
        b.toolCall(u);
        break;
      default:
        break;
    }
  }
  return b.finish();
}

/**
 * Pass 1: the final state of every tool call and display terminal, by the same reducer clients use
 * (patch semantics, ACP-V2-TOOL-03); a malformed stored update is skipped, not fatal.
 */
function finalState(history: readonly AnySessionUpdate[]): SessionState {
  const state = new SessionState();
  for (const u of history) {
    try {
      state.apply(u);
    } catch {
      /* skipped */
    }
  }
  return state;
}

/** The assistant response being rebuilt: its messages' text (by id, in order) and its tool calls (by ACP id, in order). */
interface Response {
  texts: Map<string, string>;
  calls: Map<string, ToolCallState>;
  ran: boolean;
}

/** Pass 2: the conversation, in order, one stored update at a time. */
class ConversationBuilder {
  private readonly out: ConversationMessage[] = [];
  private cur: Response | null = null;
  private userId: string | undefined;
  /** inside a slash command's turn, which the model never saw */
  private skipping = false;
  private readonly maxChars: number;
  private readonly hidden: ReadonlySet<string>;

  constructor(
    private readonly state: SessionState,
    private readonly options: ConversationFromHistoryOptions,
  ) {
    this.maxChars = options.maxResultChars ?? DEFAULT_MAX_RESULT;
    this.hidden = new Set(options.hiddenTools ?? []);
  }

  user(u: MessageUpdate | MessageChunk): void {
    const id = typeof u.messageId === 'string' ? u.messageId : undefined;
    const blocks: AnyContentBlock[] =
      u.sessionUpdate === 'user_message_chunk' ? [u.content] : Array.isArray(u.content) ? u.content : [];
    const last = this.out[this.out.length - 1];
    if (u.sessionUpdate === 'user_message_chunk' && id !== undefined && id === this.userId && !this.cur) {
      // another chunk of the same prompt
      if (!this.skipping && last?.role === 'user') last.content.push(...userParts(blocks));
      return;
    }
    this.flush();
    this.userId = id;
    const name = /^\/(\S+)/.exec(textOf(blocks).trim())?.[1];
    const effect = name !== undefined ? this.options.command?.(name) : undefined;
    this.skipping = effect !== undefined;
    if (effect === 'clear') this.out.length = 0;
    if (!this.skipping) this.out.push(promptToUserMessage(blocks));
  }

  agent(u: MessageUpdate | MessageChunk): void {
    if (this.skipping) return;
    const id = typeof u.messageId === 'string' ? u.messageId : '';
    // text after tool calls is the model's next response (it had read their results)
    if (this.cur && this.cur.calls.size > 0 && !this.cur.texts.has(id)) this.flush();
    const cur = (this.cur ??= { texts: new Map(), calls: new Map(), ran: false });
    if (u.sessionUpdate === 'agent_message_chunk') cur.texts.set(id, (cur.texts.get(id) ?? '') + textOf([u.content]));
    else if (u.content !== undefined) cur.texts.set(id, Array.isArray(u.content) ? textOf(u.content) : '');
  }

  toolCall(u: ToolCallUpdate): void {
    if (this.skipping || typeof u.toolCallId !== 'string') return;
    const c = this.state.toolCalls.get(u.toolCallId);
    if (!c || (c.name !== undefined && this.hidden.has(c.name))) return;
    if (this.cur && !this.cur.calls.has(u.toolCallId) && this.cur.ran) this.flush();
    const cur = (this.cur ??= { texts: new Map(), calls: new Map(), ran: false });
    if (!cur.calls.has(u.toolCallId)) cur.calls.set(u.toolCallId, c);
    // the engine announces every call of a response (pending) before running any of them, so a
    // call first seen after one of them ran belongs to the model's next response
    if (u.status !== undefined && u.status !== 'pending') cur.ran = true;
  }

  finish(): ConversationMessage[] {
    this.flush();
    return this.out;
  }

  /** Ends the assistant response being rebuilt: its message, then its calls' results. */
  private flush(): void {
    const cur = this.cur;
    if (!cur) return;
    const parts: AssistantPart[] = [];
    const text = [...cur.texts.values()].join('');
    if (text !== '') parts.push({ type: 'text', text });
    const results: ToolResult[] = [];
    for (const [id, c] of cur.calls) {
      const toolCallId = modelCallId(id);
      const toolName = c.name ?? 'tool';
      parts.push({ type: 'tool_call', toolCallId, toolName, input: c.rawInput ?? {} });
      results.push({ toolCallId, toolName, ...this.resultOf(c) });
    }
    if (parts.length > 0) this.out.push({ role: 'assistant', content: parts });
    if (results.length > 0) this.out.push({ role: 'tool', results });
    this.cur = null;
  }

  private resultOf(c: ToolCallState): { output: string; isError?: boolean } {
    const status = c.status;
    const body = cap(callText(c, this.state.terminals), this.maxChars);
    if (status === 'completed') return { output: body || 'Done.' };
    if (status === 'failed') return { output: body || 'The tool call failed.', isError: true };
    if (status === 'cancelled') return { output: `Cancelled by the user.${body ? `\n${body}` : ''}`, isError: true };
    return {
      output: `Not completed: the agent stopped before this tool call finished.${body ? `\n${body}` : ''}`,
      isError: true,
    };
  }
}

function userParts(blocks: readonly AnyContentBlock[]): UserPart[] {
  const m = promptToUserMessage(blocks);
  return m.role === 'user' ? m.content : [];
}

/** Text of the content blocks (other kinds named, not inlined). */
function textOf(blocks: readonly AnyContentBlock[]): string {
  return blocks.map((b) => (b.type === 'text' ? String(b.text) : '')).join('');
}

/** Providers restrict tool call ids (Anthropic: `[a-zA-Z0-9_-]+`); ACP ids may contain dots. */
function modelCallId(acpId: string): string {
  return acpId.replace(/[^A-Za-z0-9_-]/g, '_');
}

function cap(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max)}\n… [truncated ${s.length - max} characters]`;
}

/** What a finished call showed, as text for the model. */
function callText(c: ToolCallState, terminals: ReadonlyMap<string, TerminalState>): string {
  const parts: string[] = [];
  for (const item of c.content) {
    const i = item;
    if (i.type === 'content') {
      const block = i.content;
      parts.push(block.type === 'text' ? String(block.text) : `[${String(block.type)} content]`);
    } else if (i.type === 'diff') {
      const lines = typeof i.newText === 'string' ? i.newText.split('\n').length : 0;
      parts.push(
        `${i.oldText == null ? 'Created' : 'Changed'} ${String(i.path)} (${lines} line${lines === 1 ? '' : 's'} now).`,
      );
    } else if (i.type === 'terminal') {
      const t = terminals.get(String(i.terminalId));
      if (t) {
        const output = t.outputText;
        const exit = t.exitStatus
          ? t.exitStatus.signal
            ? `killed by ${t.exitStatus.signal}`
            : `exit code ${t.exitStatus.exitCode}`
          : 'did not finish';
        parts.push(`Command ${exit}.\n${output === '' ? '(no output)' : output}`);
      } else {
        parts.push(`[output shown in the client's terminal ${String(i.terminalId)}; not kept]`);
      }
    }
  }
  if (c.rawOutput !== undefined && c.rawOutput !== null) parts.push(`raw output: ${JSON.stringify(c.rawOutput)}`);
  return parts.join('\n');
}
