/** Longest tool name the model sees (the common provider limit, e.g. OpenAI and Anthropic: 64). */
export const MAX_TOOL_NAME = 64;

/** Replaces every character outside `[A-Za-z0-9_-]` with `_` (providers reject other names). */
export function sanitizeToolNamePart(s: string): string {
  const out = s.replace(/[^A-Za-z0-9_-]/g, '_');
  return out === '' ? '_' : out;
}

/**
 * The name the model calls for tool `tool` of MCP server `server`: `mcp__<server>__<tool>`,
 * sanitized to `[A-Za-z0-9_-]` and cut to {@link MAX_TOOL_NAME} characters. Collisions (after
 * sanitizing/cutting) are resolved by the caller with {@link uniqueToolName}.
 */
export function mcpToolName(server: string, tool: string): `mcp__${string}` {
  // the prefix always fits, so cutting only what follows it is the same as cutting the whole name
  return `mcp__${`${sanitizeToolNamePart(server)}__${sanitizeToolNamePart(tool)}`.slice(0, MAX_TOOL_NAME - 'mcp__'.length)}`;
}

/** `name`, or `name` with a `_<n>` suffix (kept within {@link MAX_TOOL_NAME}) when `taken` has it. */
export function uniqueToolName(name: string, taken: ReadonlySet<string>): string {
  if (!taken.has(name)) return name;
  for (let n = 2; ; n++) {
    const suffix = `_${n}`;
    const candidate = name.slice(0, MAX_TOOL_NAME - suffix.length) + suffix;
    if (!taken.has(candidate)) return candidate;
  }
}
