/**
 * Client state of the unstable subagent and inter-session message kinds (both versions'
 * `schema.unstable.json`): a parent session owns child sessions it announces with
 * `subagent_update`; each child is a nested entity with its own session state, fed by the
 * updates that carry the child's session id on the same connection.
 */
import type { AnyContentBlock } from '../model/content.js';
import type { Meta } from '../model/json.js';
import type { SessionMessage, SessionMessageChunk, SubagentStateReport, SubagentUpdate } from '../model/update.js';
import { patchField, patchMeta } from './meta-patch.js';

/** The state kept of one child session, as its parent reports it. */
export class SubagentState<Child extends { toJSON(): object } = { toJSON(): object }> {
  readonly kind = 'subagent' as const;
  title: string | undefined;
  description: string | undefined;
  /** `undefined` = no client-initiated mutation permitted */
  capabilities: { cancel?: Meta | null; _meta?: Meta | null } | undefined;
  /** the child's foreground state as mirrored onto the parent; `undefined` = unconfirmed */
  state: SubagentStateReport | undefined;
  /** `undefined` = inherits the parent's */
  cwd: string | undefined;
  additionalDirectories: string[] | undefined;
  meta: Meta | undefined;

  constructor(
    readonly sessionId: string,
    /** The child's own session state (its messages, tool calls, ...). */
    readonly session: Child,
  ) {}

  /** @internal patch semantics: omitted keeps, `null` clears, a value replaces */
  apply(u: SubagentUpdate): void {
    this.title = patchField(this.title, u.title, undefined);
    this.description = patchField(this.description, u.description, undefined);
    this.capabilities = patchField(this.capabilities, u.capabilities, undefined);
    this.state = patchField(this.state, u.state, undefined);
    this.cwd = patchField(this.cwd, u.cwd, undefined);
    this.additionalDirectories = patchField(this.additionalDirectories, u.additionalDirectories, undefined);
    this.meta = patchMeta(this.meta, u._meta);
  }

  toJSON(): object {
    return {
      kind: this.kind,
      sessionId: this.sessionId,
      title: this.title,
      description: this.description,
      capabilities: this.capabilities,
      state: this.state,
      cwd: this.cwd,
      additionalDirectories: this.additionalDirectories,
      _meta: this.meta,
      session: this.session.toJSON(),
    };
  }
}

/** One inter-session message (`session_message` upserts + `session_message_chunk` appends). */
export class SessionMessageState {
  readonly kind = 'session_message' as const;
  senderSessionId: string | undefined;
  recipientSessionId: string | undefined;
  senderMessageId: string | undefined;
  recipientMessageId: string | undefined;
  meta: Meta | undefined;
  private blocks: AnyContentBlock[] = [];

  constructor(readonly messageId: string) {}

  get content(): readonly AnyContentBlock[] {
    return this.blocks;
  }

  /** Concatenated text of the `text` blocks. */
  get text(): string {
    return this.blocks.map((b) => (b.type === 'text' && typeof b.text === 'string' ? b.text : '')).join('');
  }

  /** @internal */
  upsert(u: SessionMessage): void {
    this.senderSessionId = patchField(this.senderSessionId, u.senderSessionId, undefined);
    this.recipientSessionId = patchField(this.recipientSessionId, u.recipientSessionId, undefined);
    this.senderMessageId = patchField(this.senderMessageId, u.senderMessageId, undefined);
    this.recipientMessageId = patchField(this.recipientMessageId, u.recipientMessageId, undefined);
    if (u.content !== undefined) this.blocks = u.content ? [...u.content] : [];
    this.meta = patchMeta(this.meta, u._meta);
  }

  /** @internal chunk `_meta` is chunk-scoped and not stored */
  append(u: SessionMessageChunk): void {
    this.blocks.push(u.content);
  }

  toJSON(): object {
    return {
      kind: this.kind,
      messageId: this.messageId,
      senderSessionId: this.senderSessionId,
      recipientSessionId: this.recipientSessionId,
      senderMessageId: this.senderMessageId,
      recipientMessageId: this.recipientMessageId,
      content: this.blocks,
      _meta: this.meta,
    };
  }
}
