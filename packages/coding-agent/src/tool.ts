import type {
  AnyToolCallContent,
  CreateElicitationResponse,
  SessionUpdate,
  ToolCallLocation,
  ToolKind,
} from '@acp-kit/protocol';
import type { AgentSession, FormElicitationQuestion } from '@acp-kit/agent';
import type { JsonSchema } from './model.js';
import type { Sandbox } from './sandbox.js';
import type { WorkspaceFs } from './workspace-fs.js';
import type { CommandRunner } from './terminal.js';
import { isObj } from '@acp-kit/protocol/internal';

/** The coding agent's permission modes (the `mode` config option). */
export type AgentMode = 'ask' | 'auto' | 'read-only';

/** What a tool's permission decision may look at. */
export interface PermissionContext {
  session: AgentSession;
  sandbox: Sandbox;
}

/** Everything a tool may use while it runs. */
export interface ToolContext {
  session: AgentSession;
  toolCallId: string;
  /** Fires when the turn is cancelled; long-running tools must stop and throw an abort error. */
  signal: AbortSignal;
  cwd: string;
  sandbox: Sandbox;
  /** File access confined to the session roots (client `fs/*` in v1 when offered, else local disk). */
  fs: WorkspaceFs;
  /** Runs shell commands (client terminal in v1 when offered, else a local child process). */
  terminal: CommandRunner;
  /** Appends one content item to the tool call while it runs (`tool_call_content_chunk`). */
  progress(content: AnyToolCallContent): Promise<void>;
  /** Sends any other update of the turn (e.g. v2 `terminal_update`). */
  send(update: SessionUpdate): Promise<void>;
  /**
   * Puts a form to the user, scoped to this tool call (`Turn.elicit`); present only when the
   * client advertised form elicitation (ACP-ALL-ELIC-01).
   */
  elicit?(question: Omit<FormElicitationQuestion, 'toolCallId'>): Promise<CreateElicitationResponse>;
}

/** What a finished tool reports. */
export interface ToolOutcome {
  /** The call's final content (replaces what `progress` appended). */
  content: AnyToolCallContent[];
  /** What the model reads. */
  result: string;
  /** The tool ran but failed (the call ends `failed`; the model still reads `result`). */
  isError?: boolean;
  locations?: ToolCallLocation[];
  rawOutput?: unknown;
}

/** Invalid tool input from the model; the message names the field and what was expected. */
export class ToolInputError extends Error {
  override readonly name = 'ToolInputError';
}

/**
 * A tool of the coding agent. Methods (not function properties) on purpose: a `Tool<{path: string}>`
 * is then usable where a `Tool<unknown>` is expected.
 */
export interface Tool<I = unknown> {
  /** Programmatic name the model calls (`tool_call_update.name`). */
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly kind: ToolKind;
  /** True when the tool changes files or runs programs (refused in `read-only` mode). */
  readonly mutates: boolean;
  /** Validates raw model input; throws {@link ToolInputError}. */
  parse(raw: unknown): I;
  /** Whether this invocation needs the user's approval in `ask` mode. */
  needsPermission(input: I, ctx: PermissionContext): boolean;
  /** Human-readable title of the call. */
  title(input: I): string;
  /** Absolute paths the call touches (best effort, for "follow along"). */
  locations?(input: I, ctx: PermissionContext): ToolCallLocation[];
  /** Content to show before running (e.g. the diff a write would make), so the user sees what they approve. */
  preview?(input: I, ctx: ToolContext): Promise<AnyToolCallContent[]>;
  execute(input: I, ctx: ToolContext): Promise<ToolOutcome>;
}

// ---- input helpers shared by the built-in tools ----

export function asObject(raw: unknown, tool: string): Record<string, unknown> {
  if (!isObj(raw)) {
    throw new ToolInputError(
      `${tool}: input must be a JSON object, got ${raw === null ? 'null' : Array.isArray(raw) ? 'an array' : typeof raw}`,
    );
  }
  return raw;
}

export function requireString(
  o: Record<string, unknown>,
  key: string,
  tool: string,
  opts: { allowEmpty?: boolean } = {},
): string {
  const v = o[key];
  if (typeof v !== 'string')
    throw new ToolInputError(
      `${tool}: "${key}" must be a string, got ${v === undefined ? 'nothing' : JSON.stringify(v)}`,
    );
  if (!opts.allowEmpty && v.length === 0) throw new ToolInputError(`${tool}: "${key}" must not be empty`);
  return v;
}

export function optionalString(o: Record<string, unknown>, key: string, tool: string): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new ToolInputError(`${tool}: "${key}" must be a string, got ${JSON.stringify(v)}`);
  return v;
}

export function optionalInt(
  o: Record<string, unknown>,
  key: string,
  tool: string,
  min: number,
  max: number,
): number | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new ToolInputError(`${tool}: "${key}" must be an integer from ${min} to ${max}, got ${JSON.stringify(v)}`);
  }
  return v;
}

export function optionalBool(o: Record<string, unknown>, key: string, tool: string): boolean | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw new ToolInputError(`${tool}: "${key}" must be a boolean, got ${JSON.stringify(v)}`);
  return v;
}

/** A text content item. */
export function textContent(text: string): AnyToolCallContent {
  return { type: 'content', content: { type: 'text', text } };
}

/** Cuts `s` to at most `max` UTF-16 units, saying how much was dropped. */
export function capText(s: string, max: number): { text: string; truncated: boolean } {
  if (s.length <= max) return { text: s, truncated: false };
  return { text: `${s.slice(0, max)}\n… [truncated ${s.length - max} characters]`, truncated: true };
}
