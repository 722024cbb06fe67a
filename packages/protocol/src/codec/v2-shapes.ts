/**
 * Pure v2 <-> neutral mappings. The neutral model mirrors v2 names, so most shapes pass through
 * unchanged (same object, no copy); the exceptions are diffs, commands, auth methods, MCP
 * servers and capabilities. Degradations are listed in `README.md`.
 */
import type {
  AgentCapabilities,
  AuthMethod,
  AvailableCommand,
  ClientCapabilities,
  McpServer,
} from '../model/session.js';
import type { AnyToolCallContent, ToolCallPatch, ToolCallTextDiff } from '../model/tool-call.js';
import { textDiffToGitPatch } from './git-patch.js';
import { compact, compactBool, isObj, marker, present, withMeta, type JsonObject } from './util.js';

// ---------------------------------------------------------------- tool content

/**
 * A neutral whole-text diff as a v2 structured diff (ACP-V2-DIFF-01..06): one `add` (old text
 * `null`) or `modify` change, plus a `git_patch` computed from the two texts (omitted when
 * they are equal: no patch can express a no-op).
 */
export function textDiffToV2(d: ToolCallTextDiff): JsonObject {
  const out: JsonObject = {
    type: 'diff',
    changes: [{ operation: d.oldText === null ? 'add' : 'modify', path: d.path }],
  };
  const text = textDiffToGitPatch(d.path, d.oldText, d.newText);
  if (text !== null) out.patch = { format: 'git_patch', text };
  return withMeta(out, d);
}

/** One tool content item for v2; returns the same object unless it is a diff (then a v2 wire `diff`). */
export function toolContentToV2(c: AnyToolCallContent): AnyToolCallContent | JsonObject {
  if (c.type === 'diff') {
    // A neutral `diff` is always v1's whole-text form; v2's structured form is `file_changes`.
    return typeof c.newText === 'string' ? textDiffToV2(c) : c;
  }
  if (c.type === 'file_changes') {
    const { type: _t, ...rest } = c;
    return { type: 'diff', ...rest };
  }
  return c;
}

function needsV2Mapping(list: readonly AnyToolCallContent[]): boolean {
  for (const c of list) if (c.type === 'diff' || c.type === 'file_changes') return true;
  return false;
}

/**
 * A v2 wire tool content item (schema-checked by the caller) as neutral: v2 `diff` -> neutral
 * `file_changes`; the rest unchanged (same object).
 */
export function toolContentFromV2(c: unknown): unknown {
  if (!isObj(c) || c.type !== 'diff') return c;
  const { type: _t, ...rest } = c;
  return { type: 'file_changes', ...rest };
}

export function toolContentsFromV2(list: readonly unknown[]): readonly unknown[] {
  for (const c of list) if (isObj(c) && c.type === 'diff') return list.map(toolContentFromV2);
  return list;
}

/** A tool-call patch for v2 (only `content` may need mapping); the same object when nothing does. */
export function toolPatchToV2<T extends ToolCallPatch>(p: T): T | JsonObject {
  if (!Array.isArray(p.content) || !needsV2Mapping(p.content)) return p;
  return { ...p, content: p.content.map(toolContentToV2) };
}

/** A v2 wire tool-call patch (schema-checked by the caller) as neutral; the same object when no content maps. */
export function toolPatchFromV2(p: JsonObject): JsonObject {
  if (!Array.isArray(p.content)) return p;
  const content = toolContentsFromV2(p.content);
  return content === p.content ? p : { ...p, content };
}

// ---------------------------------------------------------------- commands

/**
 * v2 commands are tagged (`type: "command"`, input `type: "text"`). A command or input that
 * already carries a `type` (an unknown v2 one kept raw by the decoder) passes through.
 */
export function commandToV2(c: AvailableCommand): AvailableCommand | JsonObject {
  if ('type' in c && typeof c.type === 'string') return c;
  const out: JsonObject = { type: 'command', name: c.name, description: c.description };
  const input = c.input;
  if (input === null) out.input = null;
  else if (isObj(input))
    out.input = 'type' in input && typeof input.type === 'string' ? input : { type: 'text', ...input };
  return withMeta(out, c);
}

/**
 * A v2 command as neutral: the `command` tag and the `text` input tag are removed; commands and
 * inputs of unknown types are kept raw (with their `type`) so they can be passed on (ACP-V2-CMD-02).
 */
export function commandFromV2(w: unknown): unknown {
  if (!isObj(w) || w.type !== 'command') return w;
  const { type: _t, ...rest } = w;
  const input = rest.input;
  if (isObj(input) && input.type === 'text') {
    const { type: _it, ...inputRest } = input;
    rest.input = inputRest;
  }
  return rest;
}

// ---------------------------------------------------------------- MCP servers

/** v2 MCP servers always carry `type`; SSE does not exist in v2 and is dropped. */
export function mcpServersToV2(servers: readonly McpServer[]): McpServer[] {
  return servers.filter((s) => s.type !== 'sse');
}

/** v2 `args`/`env`/`headers` are optional (omitted = empty); the neutral model always has them. */
export function mcpServersFromV2(servers: readonly unknown[]): unknown[] {
  return servers.map((s) => {
    if (!isObj(s)) return s;
    if (s.type === 'stdio') return { args: [], env: [], ...s };
    if (s.type === 'http') return { headers: [], ...s };
    return s;
  });
}

// ---------------------------------------------------------------- auth methods

/** v2 auth methods: required `type` (default `agent`), terminal `env` as `[{name, value}]`. */
export function authMethodsToV2(methods: readonly AuthMethod[]): JsonObject[] {
  return methods.map((m) => {
    const { env, type, ...rest } = m;
    const out: JsonObject = { ...rest, type: type ?? 'agent' };
    if (env !== undefined) out.env = Object.entries(env).map(([name, value]) => ({ name, value }));
    return out;
  });
}

/**
 * v2 auth methods as neutral (`env` list -> map). Entries without a string `methodId` and `name`
 * (required by the schema, so only reachable unvalidated) are left out.
 */
export function authMethodsFromV2(methods: readonly unknown[]): AuthMethod[] {
  return methods.filter(isObj).flatMap((m) => {
    const { env, methodId, name, ...rest } = m;
    if (typeof methodId !== 'string' || typeof name !== 'string') return [];
    const out: AuthMethod = { ...rest, methodId, name };
    if (Array.isArray(env)) {
      const map: Record<string, string> = {};
      // Unique names SHOULD hold (ACP-V2-SESS-04 spirit); if not, the last one wins.
      for (const e of env) if (isObj(e) && typeof e.name === 'string') map[e.name] = String(e.value);
      out.env = map;
    }
    return [out];
  });
}

// ---------------------------------------------------------------- capabilities

/** v2 client capabilities: only `auth.terminal` and `elicitation.*` markers exist (ACP-V2-CAP-05). */
export function clientCapsToV2(c: ClientCapabilities): JsonObject {
  const out: JsonObject = {};
  if (c.authTerminal) out.auth = { terminal: {} };
  if (c.elicitation && (c.elicitation.form || c.elicitation.url)) {
    out.elicitation = compact({ form: marker(c.elicitation.form), url: marker(c.elicitation.url) });
  }
  return withMeta(out, c);
}

/**
 * Neutral client capabilities from v2. v2 has no client fs/terminal services; boolean config
 * options, notices and compaction need no capability in v2, so they are always `true`.
 */
export function clientCapsFromV2(w: unknown): ClientCapabilities {
  const c = isObj(w) ? w : {};
  const out: ClientCapabilities = {};
  if (isObj(c.auth) && present(c.auth.terminal)) out.authTerminal = true;
  if (isObj(c.elicitation)) {
    const e = c.elicitation;
    if (present(e.form) || present(e.url))
      out.elicitation = compactBool({ form: present(e.form), url: present(e.url) });
  }
  out.booleanConfigOptions = true;
  out.notices = true;
  out.compaction = true;
  // understanding subagent updates is a baseline v2 requirement (SubagentUpdate, schema.unstable.json)
  out.subagents = true;
  if (isObj(c._meta)) out._meta = c._meta;
  return out;
}

/**
 * v2 agent capabilities. The `session` marker is always sent: it promises the session surface
 * (new/list/resume/close/prompt/cancel, ACP-V2-CAP-02) which every acp-kit agent runtime serves.
 * `loadSession` and `logout` have no v2 marker (auth/logout follows `authMethods`).
 */
const UNSTABLE_SESSION_MARKERS = ['fork', 'archive', 'status', 'title'] as const;

export function agentCapsToV2(c: AgentCapabilities): JsonObject {
  const s = c.session ?? {};
  const session: JsonObject = {};
  if (c.prompt && (c.prompt.image || c.prompt.audio || c.prompt.embeddedContext)) {
    session.prompt = compact({
      image: marker(c.prompt.image),
      audio: marker(c.prompt.audio),
      embeddedContext: marker(c.prompt.embeddedContext),
    });
  }
  if (c.mcp && (c.mcp.stdio || c.mcp.http || c.mcp.acp))
    session.mcp = compact({ stdio: marker(c.mcp.stdio), http: marker(c.mcp.http), acp: marker(c.mcp.acp) });
  if (s.delete) session.delete = {};
  if (s.additionalDirectories) session.additionalDirectories = {};
  // the unstable session markers (object-marker semantics as the stable ones, ACP-V2-CAP-01)
  for (const k of UNSTABLE_SESSION_MARKERS) if (s[k]) session[k] = {};
  const out: JsonObject = { session };
  // unstable `auth.status` and `providers` markers (schema.unstable.json)
  if (c.authStatus) out.auth = { status: {} };
  if (c.providers) out.providers = {};
  return withMeta(out, c);
}

/**
 * Neutral agent capabilities from v2: a `session` marker means list/resume/close are supported
 * (ACP-V2-CAP-04); `logout` mirrors whether `authMethods` is non-empty (ACP-V2-AUTH-01).
 */
export function agentCapsFromV2(w: unknown, authMethodCount: number): AgentCapabilities {
  const c = isObj(w) ? w : {};
  const out: AgentCapabilities = {};
  if (isObj(c.session)) {
    const s = c.session;
    const p = isObj(s.prompt) ? s.prompt : {};
    const prompt = compactBool({
      image: present(p.image),
      audio: present(p.audio),
      embeddedContext: present(p.embeddedContext),
    });
    if (Object.keys(prompt).length) out.prompt = prompt;
    const m = isObj(s.mcp) ? s.mcp : {};
    const mcp = compactBool({ stdio: present(m.stdio), http: present(m.http), acp: present(m.acp) });
    if (Object.keys(mcp).length) out.mcp = mcp;
    out.session = compactBool({
      list: true,
      resume: true,
      close: true,
      delete: present(s.delete),
      additionalDirectories: present(s.additionalDirectories),
      fork: present(s.fork),
      archive: present(s.archive),
      status: present(s.status),
      title: present(s.title),
    });
  }
  if (authMethodCount > 0) out.logout = true;
  if (isObj(c.auth) && present(c.auth.status)) out.authStatus = true;
  if (present(c.providers)) out.providers = true;
  if (isObj(c._meta)) out._meta = c._meta;
  return out;
}
