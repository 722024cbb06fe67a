import type { CompatibilityCallToolResult, Tool as McpToolDefinition } from '@modelcontextprotocol/sdk/types.js';
import { isObj } from '@acp-kit/protocol/internal';
import type { AnyToolCallContent, ContentBlock, ToolKind } from '@acp-kit/protocol';
import type { JsonSchema } from '../model.js';
import { asObject, capText, textContent, type Tool, type ToolOutcome } from '../tool.js';

/** Most characters of an MCP tool result the model reads. */
const MAX_RESULT_CHARS = 100_000;

/** What an MCP tool needs from its server connection. */
export interface McpToolCaller {
  /** The server's name as the client configured it. */
  readonly serverName: string;
  /**
   * Calls `tools/call`; rejects with an abort error when `signal` fires. The result is today's
   * `{ content, structuredContent?, isError? }` or a pre-2024-11 server's `{ toolResult }`.
   */
  callTool(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CompatibilityCallToolResult>;
}

/**
 * Wraps tool `def` of an MCP server as a coding-agent {@link Tool} named `name`
 * (`mcp__<server>__<tool>`). Read-only tools (`annotations.readOnlyHint`) run without asking and
 * in read-only mode; all others are treated like writes: they ask in `ask` mode and are refused
 * in `read-only` mode. The hints are the server's claims; a client that distrusts a server
 * should not pass it.
 */
export function createMcpTool(
  name: string,
  def: McpToolDefinition,
  server: McpToolCaller,
): Tool<Record<string, unknown>> {
  const readOnly = def.annotations?.readOnlyHint === true;
  // openWorldHint defaults to true in MCP; only an explicit claim makes a read a "fetch"
  const kind: ToolKind = readOnly ? (def.annotations?.openWorldHint === true ? 'fetch' : 'read') : 'other';
  const label = def.title ?? def.annotations?.title ?? def.name;
  const description = `${def.description ?? label} (tool "${def.name}" of MCP server "${server.serverName}")`;
  return {
    name,
    description,
    inputSchema: normalizeSchema(def.inputSchema),
    kind,
    mutates: !readOnly,
    parse(raw) {
      // the server validates against its own schema; the result names what was wrong
      return asObject(raw ?? {}, name);
    },
    needsPermission: () => !readOnly,
    title: () => `${label} (MCP ${server.serverName})`,
    async execute(input, ctx) {
      const result = await server.callTool(def.name, input, ctx.signal);
      return toolOutcome(result);
    },
  };
}

/** Providers want an object schema; MCP guarantees `type: "object"` but be lenient with old servers. */
function normalizeSchema(schema: JsonSchema | undefined): JsonSchema {
  if (!schema || typeof schema !== 'object') return { type: 'object', properties: {} };
  return schema.type === 'object' ? schema : { ...schema, type: 'object' };
}

/**
 * Maps an MCP `tools/call` result to the tool call's content and what the model reads: text as
 * text, images/audio/resources as ACP content blocks (described to the model in brackets),
 * `structuredContent` as JSON when there is no content, `isError` -> the call ends `failed`.
 */
export function toolOutcome(result: CompatibilityCallToolResult): ToolOutcome {
  const content: AnyToolCallContent[] = [];
  const forModel: string[] = [];
  const blocks = Array.isArray(result.content) ? result.content : [];
  for (const b of blocks) {
    const block = toAcpBlock(b);
    content.push({ type: 'content', content: block.content });
    forModel.push(block.text);
  }
  const structured = 'structuredContent' in result ? result.structuredContent : undefined;
  if (blocks.length === 0 && structured !== undefined) {
    const json = JSON.stringify(structured, null, 2);
    content.push(textContent('```json\n' + json + '\n```'));
    forModel.push(json);
  }
  // pre-2024-11 servers answer `{ toolResult }`
  const legacy = 'toolResult' in result ? result.toolResult : undefined;
  if (blocks.length === 0 && structured === undefined && legacy !== undefined) {
    const json = JSON.stringify(legacy);
    content.push(textContent(json));
    forModel.push(json);
  }
  const text = forModel.join('\n');
  const isError = result.isError === true;
  const { text: capped } = capText(
    text === '' ? (isError ? 'The tool failed without a message.' : '(no output)') : text,
    MAX_RESULT_CHARS,
  );
  return {
    content,
    result: capped,
    isError,
    ...(structured !== undefined ? { rawOutput: structured } : {}),
  };
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** One MCP content block -> one ACP content block (same shapes by design) plus its text for the model. */
function toAcpBlock(b: Record<string, unknown>): { content: ContentBlock; text: string } {
  switch (b.type) {
    case 'text':
      return { content: { type: 'text', text: String(b.text ?? '') }, text: String(b.text ?? '') };
    case 'image':
    case 'audio': {
      const data = String(b.data ?? '');
      const mimeType = String(b.mimeType ?? 'application/octet-stream');
      const bytes = Math.floor((data.length * 3) / 4);
      return {
        content: { type: b.type, data, mimeType },
        text: `[${b.type} ${mimeType}, about ${bytes} bytes, shown to the user]`,
      };
    }
    case 'resource_link': {
      const uri = String(b.uri ?? '');
      const name = String(b.name ?? uri);
      const link: ContentBlock = { type: 'resource_link', uri, name };
      if (str(b.mimeType)) link.mimeType = str(b.mimeType);
      if (str(b.title)) link.title = str(b.title);
      if (str(b.description)) link.description = str(b.description);
      if (typeof b.size === 'number') link.size = b.size;
      return {
        content: link,
        text: `[resource link ${name} <${uri}>${link.description ? `: ${link.description}` : ''}]`,
      };
    }
    case 'resource': {
      const r = isObj(b.resource) ? b.resource : {};
      const uri = String(r.uri ?? '');
      const mimeType = str(r.mimeType);
      if (typeof r.text === 'string') {
        return {
          content: { type: 'resource', resource: { uri, text: r.text, ...(mimeType ? { mimeType } : {}) } },
          text: `<resource uri="${uri}">\n${r.text}\n</resource>`,
        };
      }
      return {
        content: { type: 'resource', resource: { uri, blob: String(r.blob ?? ''), ...(mimeType ? { mimeType } : {}) } },
        text: `[binary resource ${uri}${mimeType ? ` (${mimeType})` : ''}]`,
      };
    }
    default: {
      const json = JSON.stringify(b);
      return { content: { type: 'text', text: json }, text: json };
    }
  }
}
