import type { AnyContentBlock } from '../model/content.js';
import type { Meta } from '../model/json.js';
import type { PlanContent } from '../model/plan.js';
import type { AnyToolCallContent, ToolCallLocation, ToolCallStatus, ToolKind } from '../model/tool-call.js';
import type { MessageRole } from '../model/update.js';

/**
 * One message (user, agent or thought), keyed by (role, `messageId`) (ACP-V2-MSG-08).
 *
 * Content is a list of blocks; chunks append one block each in O(1). The {@link text}
 * getter joins the text blocks lazily and caches the result, so streaming a million chunks
 * costs O(total size) however often `text` is read.
 */
export class MessageState {
  readonly kind = 'message' as const;
  /** top-level `_meta`, patched per key (ACP-V2-MSG-06) */
  meta: Meta | undefined;
  private blocks: AnyContentBlock[] = [];
  private textCache = '';
  private textUpTo = 0;

  constructor(
    readonly role: MessageRole,
    readonly messageId: string,
  ) {}

  /** Current content blocks (do not mutate). */
  get content(): readonly AnyContentBlock[] {
    return this.blocks;
  }

  /** Concatenated text of the `text` blocks (other blocks are skipped). */
  get text(): string {
    const blocks = this.blocks;
    if (this.textUpTo < blocks.length) {
      const parts: string[] = [];
      for (const b of blocks.slice(this.textUpTo)) {
        if (b.type === 'text' && typeof b.text === 'string') parts.push(b.text);
      }
      this.textCache += parts.join('');
      this.textUpTo = blocks.length;
    }
    return this.textCache;
  }

  /** @internal replace all content (ACP-V2-MSG-03); `null`/`[]` clear (ACP-V2-MSG-04) */
  replaceContent(content: readonly AnyContentBlock[] | null): void {
    this.blocks = content ? [...content] : [];
    this.textCache = '';
    this.textUpTo = 0;
  }

  /** @internal append one chunk's block (ACP-V2-MSG-05) */
  appendBlock(block: AnyContentBlock): void {
    this.blocks.push(block);
  }

  toJSON(): object {
    return {
      kind: this.kind,
      role: this.role,
      messageId: this.messageId,
      content: this.blocks,
      ...(this.meta ? { _meta: this.meta } : {}),
    };
  }
}

/** A tool call with patch semantics applied (ACP-V2-TOOL-03, ACP-V1-TOOL-02/03). */
export class ToolCallState {
  readonly kind = 'tool_call' as const;
  /** `undefined` = no title yet */
  title: string | undefined;
  /** programmatic tool name (ACP-V2-TOOL-10) */
  name: string | undefined;
  toolKind: ToolKind = 'other';
  status: ToolCallStatus = 'pending';
  content: AnyToolCallContent[] = [];
  locations: ToolCallLocation[] = [];
  rawInput: unknown;
  rawOutput: unknown;
  /** v2 per-entity controls, e.g. `{ cancel: {} }` while `tool_call/cancel` is allowed */
  capabilities: { cancel?: Meta | null; [key: string]: unknown } | undefined;
  meta: Meta | undefined;

  constructor(readonly toolCallId: string) {}

  /** True for `completed`, `failed`, `cancelled`; unknown statuses count as still running (ACP-V2-TOOL-06). */
  get finished(): boolean {
    return this.status === 'completed' || this.status === 'failed' || this.status === 'cancelled';
  }

  toJSON(): object {
    return {
      kind: this.kind,
      toolCallId: this.toolCallId,
      title: this.title,
      name: this.name,
      toolKind: this.toolKind,
      status: this.status,
      content: this.content,
      locations: this.locations,
      rawInput: this.rawInput,
      rawOutput: this.rawOutput,
      capabilities: this.capabilities,
      _meta: this.meta,
    };
  }
}

/** A plan, keyed by `planId` (ACP-V2-PLAN-04; v1's single plan has id `main`). */
export class PlanState {
  readonly kind = 'plan' as const;
  constructor(
    readonly planId: string,
    public plan: PlanContent,
  ) {}
  toJSON(): object {
    return { kind: this.kind, planId: this.planId, plan: this.plan };
  }
}

/** A compaction (ACP-V2-COMPACT-01): its first update fixes its timeline position. */
export class CompactionState {
  readonly kind = 'compaction' as const;
  status = 'in_progress';
  summary: AnyContentBlock[] = [];
  error: string | undefined;
  meta: Meta | undefined;
  constructor(readonly compactionId: string) {}
  toJSON(): object {
    return {
      kind: this.kind,
      compactionId: this.compactionId,
      status: this.status,
      summary: this.summary,
      error: this.error,
      _meta: this.meta,
    };
  }
}

/**
 * An Agent-owned display terminal (v2, ACP-V2-TERM-04..10). Output is kept as a list of
 * decoded byte chunks (each `terminal_output_chunk` decoded on its own, ACP-V2-TERM-08) copied
 * into one buffer that doubles when full, so reading `output` after every chunk stays linear in
 * total (a join per read made a 40 MiB stream quadratic).
 */
export class TerminalState {
  readonly kind = 'terminal' as const;
  command: string | undefined;
  cwd: string | undefined;
  exitStatus: { exitCode?: number | null; signal?: string | null; _meta?: Meta | null } | undefined;
  size: { cols: number; rows: number } | undefined;
  capabilities: { cancel?: Meta | null; [key: string]: unknown } | undefined;
  meta: Meta | undefined;
  /** bytes [0, length) are the output; the rest is room to grow. Never written below `length`. */
  private buffer: Uint8Array = new Uint8Array(0);
  private length = 0;

  constructor(readonly terminalId: string) {}

  /**
   * All output bytes (snapshot + later chunks): a view, not a copy. A view read earlier keeps
   * showing what it showed (later chunks go after it or into a new buffer).
   */
  get output(): Uint8Array {
    return this.buffer.subarray(0, this.length);
  }

  /**
   * The output decoded as UTF-8 as a whole, so sequences split across chunk boundaries
   * come out intact (ACP-V2-TERM-09).
   */
  get outputText(): string {
    return new TextDecoder().decode(this.output);
  }

  /** True once a concrete `exitStatus` arrived (ACP-V2-TERM-10). */
  get exited(): boolean {
    return this.exitStatus !== undefined;
  }

  /** @internal an `output` snapshot replaces everything (ACP-V2-TERM-07); `null` clears */
  replaceOutput(bytes: Uint8Array): void {
    this.buffer = bytes;
    this.length = bytes.length;
  }

  /** @internal */
  appendOutput(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    const needed = this.length + bytes.length;
    if (needed > this.buffer.length) {
      const grown = new Uint8Array(Math.max(needed, this.buffer.length * 2, 4096));
      grown.set(this.buffer.subarray(0, this.length));
      this.buffer = grown;
    }
    this.buffer.set(bytes, this.length);
    this.length = needed;
  }

  toJSON(): object {
    return {
      kind: this.kind,
      terminalId: this.terminalId,
      command: this.command,
      cwd: this.cwd,
      output: Buffer.from(this.output).toString('base64'),
      exitStatus: this.exitStatus,
      size: this.size,
      capabilities: this.capabilities,
      _meta: this.meta,
    };
  }
}

/** Decodes one base64 chunk on its own (never concatenating base64 text, ACP-V2-TERM-08). */
export function decodeBase64(data: string): Uint8Array {
  const b = Buffer.from(data, 'base64');
  return new Uint8Array(b.buffer, b.byteOffset, b.length);
}

/** An entry of the session timeline, in first-appearance order. */
export type TimelineEntry = MessageState | ToolCallState | PlanState | CompactionState;
