/**
 * Pure v1 <-> neutral mappings of the shapes shared by updates and method payloads
 * (content, tool calls, config options, MCP servers, auth methods, capabilities).
 * Degradations are listed in `README.md`.
 */
import type { AnyContentBlock } from '../model/content.js';
import type { PlanEntry } from '../model/plan.js';
import type {
  AgentCapabilities,
  AuthMethod,
  AvailableCommand,
  ClientCapabilities,
  ConfigOption,
  McpServer,
} from '../model/session.js';
import type {
  AnyToolCallContent,
  FileChange,
  ToolCallContentBlock,
  ToolCallFileChanges,
  ToolCallPatch,
} from '../model/tool-call.js';
import { compact, compactBool, isObj, marker, present, withMeta, type JsonObject } from './util.js';

// ---------------------------------------------------------------- content

const V1_BLOCK_TYPES = new Set(['text', 'image', 'audio', 'resource_link', 'resource']);

/**
 * A content block as v1 can carry it, or `undefined` when it cannot (v1's block union is
 * closed: v2 `_custom` blocks are dropped). `icons` (v2 only) is removed from resource links.
 * Returns the same object when nothing changes (hot path: message chunks).
 */
export function blockToV1(b: AnyContentBlock): AnyContentBlock | undefined {
  if (!V1_BLOCK_TYPES.has(b.type)) return undefined;
  let out = b;
  if (out.type === 'resource_link' && out.icons !== undefined) {
    const { icons: _icons, ...rest } = out;
    out = rest;
  }
  const a: unknown = out.annotations;
  if (isObj(a) && Array.isArray(a.audience) && a.audience.some((r) => !isV1Role(r))) {
    // v1's Role is closed (`assistant`, `user`); a custom v2 role names no v1 reader: left out
    out = { ...out, annotations: { ...a, audience: a.audience.filter(isV1Role) } };
  }
  return out;
}

const V1_ROLES: ReadonlySet<unknown> = new Set(['assistant', 'user']);
const isV1Role = (r: unknown): r is 'assistant' | 'user' => V1_ROLES.has(r);

export function blocksToV1(blocks: readonly AnyContentBlock[]): AnyContentBlock[] {
  const out: AnyContentBlock[] = [];
  for (const b of blocks) {
    const m = blockToV1(b);
    if (m) out.push(m);
  }
  return out;
}

// ---------------------------------------------------------------- tool calls

export const V1_TOOL_KINDS: ReadonlySet<string> = new Set([
  'read',
  'edit',
  'delete',
  'move',
  'search',
  'execute',
  'think',
  'fetch',
  'switch_mode',
  'other',
]);

/** v1's kind enum is closed: custom/unknown kinds become `other`. */
export function kindToV1(kind: string): string {
  return V1_TOOL_KINDS.has(kind) ? kind : 'other';
}

/**
 * v1 statuses are `pending | in_progress | completed | failed`. `cancelled` -> `failed` (the call
 * did not complete), `paused` -> `in_progress` (started, resumable), custom/unknown ->
 * `in_progress` (ACP-V2-TOOL-06: unknown status = still in progress).
 */
export function statusToV1(status: string): string {
  switch (status) {
    case 'pending':
    case 'in_progress':
    case 'completed':
    case 'failed':
      return status;
    case 'cancelled':
      return 'failed';
    default:
      return 'in_progress';
  }
}

function describeChange(c: FileChange): string {
  const op = String(c.operation);
  if ((c.operation === 'move' || c.operation === 'copy') && typeof c.oldPath === 'string')
    return `- ${op} \`${c.oldPath}\` → \`${String(c.path)}\``;
  return `- ${op} \`${typeof c.path === 'string' ? c.path : '?'}\``;
}

/**
 * v1 diffs carry whole old/new texts; a structured v2 change list cannot be turned back into
 * them. It becomes a Markdown text block: the change list, then the patch in a `diff` fence.
 */
export function fileChangesToText(fc: ToolCallFileChanges): string {
  const lines = ['Changed files:', ...fc.changes.map(describeChange)];
  if (fc.patch && typeof fc.patch.text === 'string') {
    const fence = fc.patch.text.includes('```') ? '~~~~' : '```';
    lines.push('', `${fence}diff`, fc.patch.text.replace(/\n$/, ''), fence);
  }
  return lines.join('\n');
}

/** One tool content item for v1, or `undefined` when v1 has no way to carry it. */
export function toolContentToV1(c: AnyToolCallContent): AnyToolCallContent | undefined {
  switch (c.type) {
    case 'content': {
      const block = blockToV1(c.content);
      if (!block) return undefined;
      return block === c.content ? c : { ...c, content: block };
    }
    case 'diff':
    case 'terminal':
      // `terminal` names a client-owned terminal here: in v1 the agent runtime only has those
      // (ACP-V2-TERM-12 forbids re-labelling a v2 display terminal; bridges must not feed one in).
      return c;
    case 'file_changes':
      return withMeta<ToolCallContentBlock>(
        { type: 'content', content: { type: 'text', text: fileChangesToText(c) } },
        c,
      );
    default:
      return undefined;
  }
}

export function toolContentsToV1(list: readonly AnyToolCallContent[]): AnyToolCallContent[] {
  const out: AnyToolCallContent[] = [];
  for (const c of list) {
    const m = toolContentToV1(c);
    if (m) out.push(m);
  }
  return out;
}

/**
 * A neutral tool-call patch as a v1 `ToolCallUpdate` body (also the `toolCall` of a v1 permission
 * request). v1 `null` means "unchanged", so clears are expressed where v1 can: `kind`/`status`
 * `null` -> `other`/`pending` (v2 reset values), `content`/`locations` `null` -> `[]`; other nulls
 * (`title`, `name`, `rawInput`, `rawOutput`, `_meta`) cannot be cleared and are dropped.
 * `capabilities` (v2 only) is dropped.
 */
export function toolPatchToV1(p: ToolCallPatch): JsonObject {
  const out: JsonObject = { toolCallId: p.toolCallId };
  if (typeof p.title === 'string') out.title = p.title;
  if (typeof p.name === 'string') out.name = p.name;
  if (p.kind !== undefined) out.kind = p.kind === null ? 'other' : kindToV1(p.kind);
  if (p.status !== undefined) out.status = p.status === null ? 'pending' : statusToV1(p.status);
  if (p.content !== undefined) out.content = p.content === null ? [] : toolContentsToV1(p.content);
  if (p.locations !== undefined) out.locations = p.locations === null ? [] : p.locations;
  if (p.rawInput !== undefined && p.rawInput !== null) out.rawInput = p.rawInput;
  if (p.rawOutput !== undefined && p.rawOutput !== null) out.rawOutput = p.rawOutput;
  if (isObj(p._meta)) out._meta = p._meta;
  return out;
}

/**
 * A v1 `ToolCallUpdate` body as a neutral patch: v1 `null` = unchanged, so nulls are dropped;
 * locations and content blocks pass {@link locationFromV1} and {@link blockFromV1}.
 */
export function toolPatchFromV1(w: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const k in w) {
    if (k === 'sessionUpdate') continue;
    const v = w[k];
    if (v === null || v === undefined) continue;
    if (k === 'locations' && Array.isArray(v)) out[k] = v.map(locationFromV1);
    else if (k === 'content' && Array.isArray(v))
      out[k] = v.map((c) =>
        isObj(c) && c.type === 'content' && isObj(c.content) ? { ...c, content: blockFromV1(c.content) } : c,
      );
    else out[k] = v;
  }
  return out;
}

// Where the v1 schema is looser than v2's for the same field (scripts/schema-diff.mjs lists them;
// docs/bridge.md says what happens to each), the v1 decoder takes what both versions mean.

/**
 * A v1 tool-call location. Both versions document `line` as 1-based, but v1's schema allows `0`,
 * which real v1 agents send for "from the start of the file" (claude-code-acp: `line: offset ?? 0`).
 * v2 rejects 0 and says an omitted line means no specific line: that is what 0 becomes.
 */
export function locationFromV1(l: unknown): unknown {
  if (!isObj(l) || l.line !== 0) return l;
  const { line: _zero, ...rest } = l;
  return rest;
}

/**
 * A v1 content block. `annotations.priority` outside 0..1 (v1: any number) and a negative
 * `resource_link` `size` (v1: any int64) are left out: both are optional hints v2 cannot carry.
 */
export function blockFromV1(b: unknown): unknown {
  if (!isObj(b)) return b;
  let out = b;
  const a = b.annotations;
  if (isObj(a) && typeof a.priority === 'number' && (a.priority < 0 || a.priority > 1)) {
    const { priority: _p, ...rest } = a;
    out = { ...out, annotations: rest };
  }
  if (typeof b.size === 'number' && b.size < 0) {
    const { size: _s, ...rest } = out;
    out = rest;
  }
  return out;
}

// ---------------------------------------------------------------- plans

/**
 * A neutral plan entry for v1, or `undefined` to leave it out. v1 has no `cancelled` entries
 * (dropped: the work will not happen) and no custom values (status -> `pending`, priority ->
 * `medium`).
 */
export function planEntryToV1(e: PlanEntry): PlanEntry | undefined {
  if (e.status === 'cancelled') return undefined;
  const status =
    e.status === 'pending' || e.status === 'in_progress' || e.status === 'completed' ? e.status : 'pending';
  const priority = e.priority === 'high' || e.priority === 'medium' || e.priority === 'low' ? e.priority : 'medium';
  if (status === e.status && priority === e.priority) return e;
  return { ...e, status, priority };
}

// ---------------------------------------------------------------- commands

/** v1 commands are `{name, description, input?: {hint}}`; a v2-only input/command type degrades to plain. */
export function commandToV1(c: AvailableCommand): AvailableCommand {
  const out: AvailableCommand = { name: c.name, description: c.description };
  const input = c.input;
  // a v2 input kept raw carries its `type`: only the plain text one has a v1 form
  const type = isObj(input) && 'type' in input ? input.type : undefined;
  if (isObj(input) && typeof input.hint === 'string' && (type === undefined || type === 'text')) {
    out.input = withMeta({ hint: input.hint }, input);
  }
  return withMeta(out, c);
}

// ---------------------------------------------------------------- config options

function selectOptionsToV1(options: unknown): unknown {
  if (!Array.isArray(options)) return options;
  return options.map((o) => {
    if (!isObj(o) || typeof o.groupId !== 'string') return o;
    const { groupId, ...rest } = o;
    return { group: groupId, ...rest };
  });
}

function selectOptionsFromV1(options: unknown): unknown {
  if (!Array.isArray(options)) return options;
  return options.map((o) => {
    if (!isObj(o) || typeof o.group !== 'string') return o;
    const { group, ...rest } = o;
    return { groupId: group, ...rest };
  });
}

/**
 * Neutral config options for v1 (`configId` -> `id`, `groupId` -> `group`). v1's option union is
 * closed: options of other types are dropped; boolean options are dropped too unless the client
 * advertised `session.configOptions.boolean` (ACP-V1-CFG-01) — pass `booleans: false` for that.
 */
export function configOptionsToV1(options: readonly ConfigOption[], booleans = true): JsonObject[] {
  const out: JsonObject[] = [];
  for (const o of options) {
    if (o.type !== 'select' && !(o.type === 'boolean' && booleans)) continue;
    const { configId, ...rest } = o;
    const v1: JsonObject = { id: configId, ...rest };
    if (o.type === 'select') v1.options = selectOptionsToV1(v1.options);
    out.push(v1);
  }
  return out;
}

/**
 * v1 config options (schema-checked by the caller) in the neutral shape. v1 allows a select with
 * no options and groups with none; v2 requires at least one in each (a choice among nothing):
 * empty groups are left out, and a select left with nothing to choose is left out.
 */
export function configOptionsFromV1(options: readonly unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const o of options) {
    if (!isObj(o)) {
      out.push(o);
      continue;
    }
    const { id, ...rest } = o;
    const n: JsonObject = { configId: id, ...rest };
    if (n.type === 'select') {
      const list = selectOptionsFromV1(n.options);
      n.options = Array.isArray(list)
        ? list.filter((x) => !(isObj(x) && Array.isArray(x.options) && x.options.length === 0))
        : list;
      if (Array.isArray(n.options) && n.options.length === 0) continue;
    }
    out.push(n);
  }
  return out;
}

// ---------------------------------------------------------------- MCP servers

/**
 * v1 stdio servers have no `type`; http/sse/acp keep theirs. Other (v2 `_custom`) transports cannot
 * be expressed in v1 and are dropped (an agent could not connect to them anyway).
 */
export function mcpServersToV1(servers: readonly McpServer[]): JsonObject[] {
  const out: JsonObject[] = [];
  for (const s of servers) {
    if (s.type === 'stdio') {
      const { type: _t, ...rest } = s;
      // defaults first: a neutral server built loosely may lack the lists v1 requires
      const defaults: JsonObject = { args: [], env: [] };
      out.push({ ...defaults, ...rest });
    } else if (s.type === 'http' || s.type === 'sse') {
      const defaults: JsonObject = { headers: [] };
      out.push({ ...defaults, ...s });
    } else if (s.type === 'acp') {
      // the v1 unstable schema has the ACP transport with its `type` (MCP-over-ACP RFD)
      out.push({ ...s });
    }
  }
  return out;
}

/** v1 MCP servers (schema-checked by the caller) in the neutral shape: stdio gets its `type`. */
export function mcpServersFromV1(servers: readonly unknown[]): unknown[] {
  return servers.map((s) => {
    if (!isObj(s)) return s;
    if (s.type === undefined) return { type: 'stdio', ...s };
    return s;
  });
}

// ---------------------------------------------------------------- auth methods

/**
 * v1: `id` instead of `methodId`; an agent method has no `type`; terminal `env` is a string map.
 * Methods of other (v2 `_custom`) types are dropped: a v1 client would take them for agent methods.
 */
export function authMethodsToV1(methods: readonly AuthMethod[]): JsonObject[] {
  const out: JsonObject[] = [];
  for (const m of methods) {
    const type = m.type ?? 'agent';
    if (type !== 'agent' && type !== 'terminal') continue;
    const v1: JsonObject = { id: m.methodId, name: m.name };
    if (m.description !== undefined) v1.description = m.description;
    if (type === 'terminal') {
      v1.type = 'terminal';
      if (m.args !== undefined) v1.args = m.args;
      if (m.env !== undefined) v1.env = m.env;
    }
    out.push(withMeta(v1, m));
  }
  return out;
}

/**
 * v1 auth methods as neutral (`id` -> `methodId`). Entries without a string `id` and `name`
 * (required by the schema, so only reachable unvalidated) are left out.
 */
export function authMethodsFromV1(methods: readonly unknown[]): AuthMethod[] {
  return methods.filter(isObj).flatMap((m) => {
    const { id, type, name, ...rest } = m;
    if (typeof id !== 'string' || typeof name !== 'string') return [];
    const out: AuthMethod = { methodId: id, type: type === 'terminal' ? 'terminal' : 'agent', name, ...rest };
    return [out];
  });
}

// ---------------------------------------------------------------- capabilities

/** v1 client capabilities: booleans for `fs.*`, `terminal`, `auth.terminal`; object markers elsewhere (ACP-V1-CAP-02). */
export function clientCapsToV1(c: ClientCapabilities): JsonObject {
  const out: JsonObject = {
    fs: { readTextFile: c.fs?.readTextFile === true, writeTextFile: c.fs?.writeTextFile === true },
    terminal: c.terminal === true,
    auth: { terminal: c.authTerminal === true },
  };
  if (c.elicitation && (c.elicitation.form || c.elicitation.url)) {
    out.elicitation = compact({ form: marker(c.elicitation.form), url: marker(c.elicitation.url) });
  }
  if (c.booleanConfigOptions || c.notices || c.compaction) {
    out.session = compact({
      configOptions: c.booleanConfigOptions ? { boolean: {} } : undefined,
      notices: marker(c.notices),
      compaction: marker(c.compaction),
    });
  }
  if (c.subagents) out.subagents = {};
  return withMeta(out, c);
}

/** Neutral client capabilities from v1: only supported features are set (absent = unsupported). */
export function clientCapsFromV1(w: unknown): ClientCapabilities {
  const c = isObj(w) ? w : {};
  const out: ClientCapabilities = {};
  const fs = isObj(c.fs) ? c.fs : {};
  if (fs.readTextFile === true || fs.writeTextFile === true)
    out.fs = { readTextFile: fs.readTextFile === true, writeTextFile: fs.writeTextFile === true };
  if (c.terminal === true) out.terminal = true;
  if (isObj(c.auth) && c.auth.terminal === true) out.authTerminal = true;
  if (isObj(c.elicitation)) {
    const e = c.elicitation;
    if (present(e.form) || present(e.url))
      out.elicitation = compactBool({ form: present(e.form), url: present(e.url) });
  }
  if (isObj(c.session)) {
    const s = c.session;
    if (isObj(s.configOptions) && present(s.configOptions.boolean)) out.booleanConfigOptions = true;
    if (present(s.notices)) out.notices = true;
    if (present(s.compaction)) out.compaction = true;
  }
  if (present(c.subagents)) out.subagents = true;
  if (isObj(c._meta)) out._meta = c._meta;
  return out;
}

/** v1 agent capabilities: booleans for load/prompt/mcp, object markers for session/auth (ACP-V1-CAP-02). */
export function agentCapsToV1(c: AgentCapabilities): JsonObject {
  const s = c.session ?? {};
  const out: JsonObject = {
    loadSession: c.loadSession === true,
    promptCapabilities: {
      image: c.prompt?.image === true,
      audio: c.prompt?.audio === true,
      embeddedContext: c.prompt?.embeddedContext === true,
    },
    // `acp` (unstable MCP-over-ACP) only when offered: agents that never heard of it keep their exact output
    mcpCapabilities: {
      http: c.mcp?.http === true,
      sse: c.mcp?.sse === true,
      ...(c.mcp?.acp === true ? { acp: true } : {}),
    },
    sessionCapabilities: compact({
      list: marker(s.list),
      resume: marker(s.resume),
      close: marker(s.close),
      delete: marker(s.delete),
      additionalDirectories: marker(s.additionalDirectories),
      fork: marker(s.fork),
      archive: marker(s.archive),
      status: marker(s.status),
      title: marker(s.title),
    }),
    // `auth.status` and `providers` are unstable markers (schema.unstable.json)
    auth: compact({ logout: marker(c.logout), status: marker(c.authStatus) }),
  };
  if (c.providers) out.providers = {};
  return withMeta(out, c);
}

/** Neutral agent capabilities from v1 (stdio MCP is a v1 baseline, so `mcp.stdio` is always set). */
export function agentCapsFromV1(w: unknown): AgentCapabilities {
  const c = isObj(w) ? w : {};
  const out: AgentCapabilities = {};
  if (c.loadSession === true) out.loadSession = true;
  const p = isObj(c.promptCapabilities) ? c.promptCapabilities : {};
  const prompt = compactBool({
    image: p.image === true,
    audio: p.audio === true,
    embeddedContext: p.embeddedContext === true,
  });
  if (Object.keys(prompt).length) out.prompt = prompt;
  const m = isObj(c.mcpCapabilities) ? c.mcpCapabilities : {};
  out.mcp = compactBool({ stdio: true, http: m.http === true, sse: m.sse === true, acp: m.acp === true });
  const s = isObj(c.sessionCapabilities) ? c.sessionCapabilities : {};
  const session = compactBool({
    list: present(s.list),
    resume: present(s.resume),
    close: present(s.close),
    delete: present(s.delete),
    additionalDirectories: present(s.additionalDirectories),
    fork: present(s.fork),
    archive: present(s.archive),
    status: present(s.status),
    title: present(s.title),
  });
  if (Object.keys(session).length) out.session = session;
  if (isObj(c.auth) && present(c.auth.logout)) out.logout = true;
  if (isObj(c.auth) && present(c.auth.status)) out.authStatus = true;
  if (present(c.providers)) out.providers = true;
  if (isObj(c._meta)) out._meta = c._meta;
  return out;
}
