import { TextDecoder } from 'node:util';
import type {
  AnyContentBlock,
  AnyToolCallContent,
  AnySessionUpdate,
  ErrorObject,
  MessageRole,
  SessionMessage,
  SessionMessageChunk,
  TerminalOutputChunk,
  TerminalUpdate,
  SessionState,
  ToolCallState,
} from '@acp-kit/protocol';
import { stripAnsi, type Style } from '../style.js';
import { fileChangesLines, textDiffLines, type DiffLine } from './diff.js';
import { sessionMessageHeading, subagentLine } from './subagent-text.js';
import type { TurnTokenUsage } from '@acp-kit/protocol/internal';
import { describeStopReason, formatTokens, formatUsage, planMark, toolStatusIcon } from './symbols.js';

export interface TranscriptOptions {
  /** Where text goes (usually stdout). */
  write: (s: string) => void;
  style: Style;
  /** Session cwd, to show paths relative to it. */
  cwd?: string;
  /** Print user messages (replays, `sessions show`); off for `run`, which knows its prompt. */
  showUserMessages?: boolean;
  /** Lines of tool text output shown per item before eliding. */
  maxToolOutputLines?: number;
}

/** A short text for a non-text content block. */
export function describeBlock(b: AnyContentBlock): string {
  const x = b;
  switch (x.type) {
    case 'text':
      return typeof x.text === 'string' ? x.text : '';
    case 'image':
      return `[image ${String(x.mimeType ?? '')}]`;
    case 'audio':
      return `[audio ${String(x.mimeType ?? '')}]`;
    case 'resource_link':
      return `[${String(x.name ?? 'link')}: ${String(x.uri ?? '')}]`;
    case 'resource':
      return `[resource ${String(x.resource?.uri ?? '')}]`;
    default:
      return `[${String(x.type)} content]`;
  }
}

/** Colours a rendered diff line. */
export function styleDiffLine(l: DiffLine, style: Style): string {
  switch (l.kind) {
    case 'add':
      return style.green(l.text);
    case 'remove':
      return style.red(l.text);
    case 'hunk':
      return style.cyan(l.text);
    case 'header':
      return style.bold(l.text);
    case 'info':
      return style.dim(l.text);
    default:
      return l.text;
  }
}

/** The diff lines of a tool content item, or `undefined` when it is not a diff. */
export function diffLinesOf(c: AnyToolCallContent, cwd?: string): DiffLine[] | undefined {
  if (c.type === 'diff' && typeof c.newText === 'string') return textDiffLines(c, cwd);
  if (c.type === 'file_changes') return fileChangesLines(c, cwd);
  return undefined;
}

function statusColor(status: string, style: Style): (s: string) => string {
  switch (status) {
    case 'completed':
      return style.green;
    case 'failed':
      return style.red;
    case 'cancelled':
      return style.yellow;
    case 'pending':
      return style.gray;
    default:
      return style.blue;
  }
}

/**
 * Line-oriented, streaming rendering of a session for a plain terminal or a pipe: message text
 * as it arrives, thoughts dimmed, tool calls with status changes, diffs, plans, terminal output,
 * permission decisions and the stop reason. It reads merged entities from the library's
 * {@link SessionState}; all it tracks itself is what it has already printed.
 */
export class TranscriptRenderer {
  private readonly w: (s: string) => void;
  private readonly s: Style;
  private atLineStart = true;
  /** `role\0messageId` of the message whose text is streaming, if any. */
  private streaming: string | undefined;
  /** Text length already printed per message. */
  private readonly printed = new Map<string, number>();
  private readonly toolSeen = new Map<string, { status: string; title: string; items: Set<string> }>();
  private readonly planSeen = new Map<string, string>();
  private readonly terminalSeen = new Map<string, TerminalSeen>();
  /** The agent message printed last, to avoid repeating an error the agent already wrote there. */
  private lastAgentMessage: { state: SessionState; messageId: string } | undefined;

  private lastKey: { role: MessageRole; messageId: string; key: string } | undefined;
  /** Each role's style as its opening and closing escape sequences (both empty without colour). */
  private readonly roleStyle: Record<MessageRole, StyleRun>;
  /** The closing sequence of the style run now open in the output, if any. */
  private openRun: string | undefined;

  constructor(private readonly opts: TranscriptOptions) {
    this.w = opts.write;
    this.s = opts.style;
    const s = opts.style;
    this.roleStyle = {
      agent: styleRun((t) => t),
      thought: styleRun((t) => s.dim(s.italic(t))),
      user: styleRun(s.bold),
    };
  }

  /** Writes unstyled text, closing the open style run first. */
  private out(text: string): void {
    if (!text) return;
    this.closeStyle();
    this.w(text);
    this.atLineStart = text.endsWith('\n');
  }

  /**
   * Writes streamed message text in its role's style. The style opens once per line and stays
   * open across chunks, so a thought streamed a word per chunk costs one pair of escape sequences
   * per line, not one per word; it closes at each line end and before anything else is written.
   */
  private outStyled(run: StyleRun, text: string): void {
    if (!text) return;
    if (!run.open) return this.out(text);
    const lines = text.split('\n');
    lines.forEach((part, i) => {
      if (i > 0) this.out('\n');
      if (!part) return;
      if (this.openRun === undefined) {
        this.w(run.open);
        this.openRun = run.close;
      }
      this.w(part);
      this.atLineStart = false;
    });
  }

  /** Ends the streaming text line, if one is open. */
  private block(): void {
    if (!this.atLineStart) this.out('\n');
    this.streaming = undefined;
  }

  /**
   * Closes the style of a message whose line is still open (the text itself goes on after it).
   * Call before writing to a stream sharing the terminal, e.g. a note on stderr mid-message.
   */
  closeStyle(): void {
    if (this.openRun === undefined) return;
    this.w(this.openRun);
    this.openRun = undefined;
  }

  /** Prints one line (ending any open text). */
  line(text: string): void {
    this.block();
    this.out(`${text}\n`);
  }

  /** Render one applied update (call from `SessionState.onChange`). */
  onUpdate(u: AnySessionUpdate, state: SessionState): void {
    switch (u.sessionUpdate) {
      case 'agent_message_chunk':
      case 'agent_thought_chunk':
      case 'user_message_chunk':
      case 'agent_message':
      case 'agent_thought':
      case 'user_message': {
        const role: MessageRole = u.sessionUpdate.startsWith('user')
          ? 'user'
          : u.sessionUpdate.includes('thought')
            ? 'thought'
            : 'agent';
        const chunk = 'messageId' in u && !Array.isArray(u.content) && u.content != null ? u.content : undefined;
        return this.message(role, u.messageId, state, chunk);
      }
      case 'tool_call_update':
      case 'tool_call_content_chunk': {
        const tc = state.toolCalls.get(u.toolCallId);
        if (tc) this.toolCall(tc, state);
        return;
      }
      case 'plan_update':
        return this.plan(u.plan.planId, state);
      case 'plan_removed':
        // a plan never shown has nothing to take back; a shown one is named as its heading was
        if (!this.planSeen.delete(u.planId)) return;
        return this.line(this.s.dim(u.planId === 'main' ? 'plan removed' : `plan ${stripAnsi(u.planId)} removed`));
      case 'terminal_update':
      case 'terminal_output_chunk':
        return this.terminal(u, state);
      case 'notice': {
        const n = u;
        const c = n.severity === 'error' ? this.s.red : n.severity === 'warning' ? this.s.yellow : this.s.cyan;
        return this.line(
          `${c(`[${n.severity}]`)} ${stripAnsi(n.title)}${n.description ? ` — ${stripAnsi(n.description)}` : ''}`,
        );
      }
      case 'compaction_update': {
        const st = u.status;
        return this.line(this.s.dim(`context compaction ${st.replace('_', ' ')}`));
      }
      case 'subagent_update':
        return this.line(subagentLine(u, this.s));
      case 'session_message':
      case 'session_message_chunk':
        return this.sessionMessage(u, state);
      default:
        // state, usage, commands, config, session info: shown elsewhere (result line, UI chrome)
        return;
    }
  }

  /**
   * Prints what is new of a message. A chunk appends its own text to the message (the state
   * merges it the same way), so only the chunk is rendered: the cost per chunk does not grow
   * with the message. Whole-message updates and replays compare against the full text.
   */
  private message(role: MessageRole, messageId: string, state: SessionState, chunk?: AnyContentBlock): void {
    if (role === 'user' && !this.opts.showUserMessages) return;
    const last = this.lastAgentMessage;
    if (role === 'agent' && (last?.messageId !== messageId || last.state !== state))
      this.lastAgentMessage = { state, messageId };
    const key = this.keyOf(role, messageId);
    const done = this.printed.get(key) ?? 0;
    const style = this.roleStyle[role];
    if (chunk !== undefined) {
      const delta = describeBlock(chunk);
      if (!delta) return;
      this.openMessage(role, key);
      this.outStyled(style, stripAnsi(delta));
      this.printed.set(key, done + delta.length);
      return;
    }
    const m = state.message(role, messageId);
    if (!m) return;
    // non-text blocks count through a text description
    const text = m.content.map(describeBlock).join('');
    if (text.length >= done) {
      if (text.length === done) return;
      this.openMessage(role, key);
      this.outStyled(style, stripAnsi(text.slice(done)));
    } else {
      // whole-message replacement (ACP-V2-MSG-03) that shrank the text: show it again
      this.block();
      this.out(this.s.dim('(message revised) '));
      this.streaming = key;
      this.outStyled(style, stripAnsi(text));
    }
    this.printed.set(key, text.length);
  }

  /** An inter-session message: a heading naming sender and recipient, then its text as it grows. */
  private sessionMessage(u: SessionMessage | SessionMessageChunk, state: SessionState): void {
    const m = state.sessionMessages.get(u.messageId);
    if (!m) return;
    const key = `session_message\u0000${u.messageId}`;
    const text = m.content.map(describeBlock).join('');
    const done = this.printed.get(key) ?? 0;
    if (text.length <= done) return;
    if (this.streaming !== key) {
      this.block();
      this.out(this.s.magenta(sessionMessageHeading(u, state)));
      this.streaming = key;
    }
    this.out(stripAnsi(text.slice(done)));
    this.printed.set(key, text.length);
  }

  /** `role\0messageId`, reused while the same message streams (no string building per chunk). */
  private keyOf(role: MessageRole, messageId: string): string {
    const k = this.lastKey;
    if (k && k.role === role && k.messageId === messageId) return k.key;
    const key = `${role}\u0000${messageId}`;
    this.lastKey = { role, messageId, key };
    return key;
  }

  /** Starts printing a message (its prefix on a fresh line) unless it is the one streaming. */
  private openMessage(role: MessageRole, key: string): void {
    if (this.streaming === key) return;
    this.block();
    if (role === 'thought') this.out(this.s.dim('thinking: '));
    else if (role === 'user') this.out(this.s.bold('> '));
    this.streaming = key;
  }

  private toolCall(tc: ToolCallState, state: SessionState): void {
    const title = stripAnsi(tc.title ?? tc.name ?? tc.toolCallId);
    let seen = this.toolSeen.get(tc.toolCallId);
    const icon = (status: string) => statusColor(status, this.s)(toolStatusIcon(status));
    if (!seen) {
      seen = { status: tc.status, title, items: new Set() };
      this.toolSeen.set(tc.toolCallId, seen);
      const kind = tc.toolKind && tc.toolKind !== 'other' ? this.s.dim(` [${tc.toolKind}]`) : '';
      this.line(
        `${icon(tc.status)} ${this.s.bold(title)}${kind}${tc.status !== 'pending' ? ` ${statusColor(tc.status, this.s)(tc.status)}` : ''}`,
      );
    } else if (seen.status !== tc.status || seen.title !== title) {
      seen.status = tc.status;
      seen.title = title;
      this.line(`${icon(tc.status)} ${title} ${statusColor(tc.status, this.s)(tc.status)}`);
    }
    for (const item of tc.content) {
      const id = itemKey(item);
      if (seen.items.has(id)) continue;
      seen.items.add(id);
      this.toolContent(item, state);
    }
  }

  private toolContent(item: AnyToolCallContent, state: SessionState): void {
    const pad = '    ';
    const diff = diffLinesOf(item, this.opts.cwd);
    if (diff) {
      for (const l of diff) this.line(pad + styleDiffLine({ ...l, text: stripAnsi(l.text) }, this.s));
      return;
    }
    if (item.type === 'content') {
      const text = stripAnsi(describeBlock(item.content)).replace(/\n$/, '');
      const lines = text.split('\n');
      const max = this.opts.maxToolOutputLines ?? 20;
      for (const l of lines.slice(0, max)) this.line(this.s.dim(`${pad}${l}`));
      if (lines.length > max) this.line(this.s.dim(`${pad}… ${lines.length - max} more lines`));
      return;
    }
    if (item.type === 'terminal') {
      // the header once per terminal, whether the tool call or the terminal's updates show it first
      const terminalId = item.terminalId;
      const t = state.terminals.get(terminalId);
      const seen = this.terminalState(terminalId);
      if (t?.command && !seen.header) {
        seen.header = true;
        this.line(this.s.dim(`${pad}$ ${stripAnsi(t.command)}`));
      }
      return;
    }
    this.line(this.s.dim(`${pad}[${item.type}]`));
  }

  private plan(planId: string, state: SessionState): void {
    const p = state.plans.get(planId);
    if (!p) return;
    const plan = p.plan;
    const snapshot = JSON.stringify(plan);
    if (this.planSeen.get(planId) === snapshot) return;
    this.planSeen.set(planId, snapshot);
    if (plan.type !== 'items' || !Array.isArray(plan.entries)) {
      this.line(this.s.bold(`Plan (${String(plan.type)})`));
      return;
    }
    this.line(this.s.bold(planId === 'main' ? 'Plan:' : `Plan ${planId}:`));
    for (const e of plan.entries) {
      const mark = planMark(e.status);
      const text = stripAnsi(e.content);
      const styled =
        e.status === 'completed'
          ? this.s.dim(`${mark} ${text}`)
          : e.status === 'in_progress'
            ? this.s.yellow(`${mark} ${text}`)
            : `${mark} ${text}`;
      this.line(`  ${styled}`);
    }
  }

  private terminal(u: TerminalUpdate | TerminalOutputChunk, state: SessionState): void {
    const t = state.terminals.get(u.terminalId);
    if (!t) return;
    const seen = this.terminalState(u.terminalId);
    if (!seen.header && t.command) {
      seen.header = true;
      this.line(this.s.dim(`    $ ${stripAnsi(t.command)}`));
    }
    // `t.output` is a view of the state's buffer (no copy), so what is new since the last print is
    // a slice of it: the chunk already decoded by the state, or what a snapshot added
    const bytes = t.output;
    if (bytes.length < seen.bytes) {
      // a snapshot replaced the output with less (ACP-V2-TERM-07): shown again from its start
      seen.bytes = 0;
      seen.decoder = new TextDecoder();
    }
    this.terminalBytes(u.terminalId, seen, bytes.subarray(seen.bytes));
    if (!seen.exited && t.exitStatus) {
      seen.exited = true;
      const es = t.exitStatus;
      this.line(this.s.dim(`    ${es.signal ? `killed by ${es.signal}` : `exit code ${es.exitCode ?? '?'}`}`));
    }
  }

  /** Prints new output bytes of a display terminal, decoded as one stream (a character cut across chunks comes out whole). */
  private terminalBytes(terminalId: string, seen: TerminalSeen, bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    seen.bytes += bytes.length;
    this.terminalText(terminalId, seen.decoder.decode(bytes, { stream: true }));
  }

  /**
   * Prints a terminal's output as `    │ ` lines. Chunks end anywhere (a pipe read, a 64 KiB
   * write), so a chunk that continues the line printed last goes on on that line: before, each
   * chunk started a new `│` line, cutting the command's lines in two.
   */
  terminalText(terminalId: string, text: string): void {
    const body = stripAnsi(text);
    if (!body) return;
    const key = `terminal\u0000${terminalId}`;
    const goesOn = this.streaming === key && !this.atLineStart;
    if (!goesOn) this.block();
    const ends = body.endsWith('\n');
    const lines = (ends ? body.slice(0, -1) : body).replace(/\n/g, '\n    │ ');
    const shown = goesOn ? lines : `    │ ${lines}`;
    // the newline outside the style, so that the next chunk knows the line ended
    if (shown) this.out(this.s.dim(shown));
    if (ends) this.out('\n');
    this.streaming = key;
  }

  private terminalState(terminalId: string): TerminalSeen {
    let seen = this.terminalSeen.get(terminalId);
    if (!seen) {
      seen = { header: false, exited: false, bytes: 0, decoder: new TextDecoder() };
      this.terminalSeen.set(terminalId, seen);
    }
    return seen;
  }

  /** Renders everything already in `state` (a replayed history), in timeline order. */
  renderState(state: SessionState): void {
    for (const e of state.timeline) {
      if (e.kind === 'message') this.message(e.role, e.messageId, state);
      else if (e.kind === 'tool_call') this.toolCall(e, state);
      else if (e.kind === 'plan') this.plan(e.planId, state);
      else if (e.kind === 'compaction') this.line(this.s.dim(`context compaction ${e.status.replace('_', ' ')}`));
    }
  }

  /** Shows a permission request and how it was decided. */
  permission(title: string, decision: { allowed: boolean; text: string }): void {
    const mark = decision.allowed ? this.s.green('✓ allowed') : this.s.red('✗ rejected');
    this.line(
      `${this.s.magenta('?')} permission: ${stripAnsi(title)} ${mark} ${this.s.dim(`(${stripAnsi(decision.text)})`)}`,
    );
  }

  /** The final line of a turn. */
  stop(
    stopReason: string | null | undefined,
    error?: ErrorObject | null,
    usage?: SessionState['usage'],
    tokens?: TurnTokenUsage,
  ): void {
    this.block();
    const c = stopReason === 'end_turn' ? this.s.green : stopReason === 'cancelled' ? this.s.yellow : this.s.red;
    let text = `${this.s.dim('—')} stop reason: ${c(describeStopReason(stopReason))}`;
    if (error) {
      // agents often explain the failure in a message too: then only the code is new
      const last = this.lastAgentMessage;
      const said = last ? last.state.message('agent', last.messageId)?.text.includes(error.message) : false;
      text += said
        ? ` ${this.s.red(`(code ${error.code}, see above)`)}`
        : ` ${this.s.red(`${error.message} (code ${error.code})`)}`;
    }
    // the context-window view when the agent sends one, else the turn's token counts
    if (usage) text += this.s.dim(` · ${formatUsage(usage)}`);
    else if (tokens) text += this.s.dim(` · ${formatTokens(tokens)}`);
    this.line(text);
  }
}

function itemKey(item: AnyToolCallContent): string {
  try {
    return JSON.stringify(item);
  } catch {
    return String(Math.random());
  }
}

/** A style as the escape sequences it opens and closes with, to keep one open across chunks. */
interface StyleRun {
  open: string;
  close: string;
}

function styleRun(style: (t: string) => string): StyleRun {
  const [open = '', close = ''] = style('\u0000').split('\u0000');
  return { open, close };
}

/** What was printed of a terminal an agent reports (v2 `terminal_update` / `terminal_output_chunk`). */
interface TerminalSeen {
  header: boolean;
  exited: boolean;
  /** output bytes printed */
  bytes: number;
  decoder: TextDecoder;
}
