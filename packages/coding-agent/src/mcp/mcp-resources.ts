import type { ReadResourceResult, Resource } from '@modelcontextprotocol/sdk/types.js';
import { asObject, requireString, type Tool } from '../tool.js';
import { toolOutcome } from './mcp-tool.js';

/** What the resource tools need from a server connection that advertised `resources`. */
export interface McpResourceReader {
  readonly serverName: string;
  /** Every resource (all pages of `resources/list`). */
  listResources(signal: AbortSignal): Promise<Resource[]>;
  /** `resources/read` of one URI. */
  readResource(uri: string, signal: AbortSignal): Promise<ReadResourceResult>;
}

/**
 * The resources of an MCP server as two read-only tools for the model (MCP resources are for the
 * application to pick; a coding agent has no picker, so the model lists and reads them itself):
 * `list` answers resource links, `read` the contents as embedded resources, both shown to the user
 * as ACP content blocks through the same conversion as tool results.
 */
export function createResourceTools(
  names: { list: string; read: string },
  server: McpResourceReader,
): Tool<Record<string, unknown>>[] {
  const where = `of MCP server "${server.serverName}"`;
  const list: Tool<Record<string, unknown>> = {
    name: names.list,
    description: `Lists the resources ${where} (URIs to read with ${names.read})`,
    inputSchema: { type: 'object', properties: {} },
    kind: 'read',
    mutates: false,
    parse: (raw) => asObject(raw ?? {}, names.list),
    needsPermission: () => false,
    title: () => `List resources (MCP ${server.serverName})`,
    async execute(_input, ctx) {
      const resources = await server.listResources(ctx.signal);
      const content = resources.map((r) => ({ ...r, type: 'resource_link' as const }));
      return toolOutcome({ content: content.length ? content : [{ type: 'text', text: '(no resources)' }] });
    },
  };
  const read: Tool<Record<string, unknown>> = {
    name: names.read,
    description: `Reads one resource ${where} by its URI`,
    inputSchema: { type: 'object', properties: { uri: { type: 'string' } }, required: ['uri'] },
    kind: 'read',
    mutates: false,
    parse(raw) {
      const o = asObject(raw ?? {}, names.read);
      requireString(o, 'uri', names.read);
      return o;
    },
    needsPermission: () => false,
    title: (input) => `Read ${String(input.uri)} (MCP ${server.serverName})`,
    async execute(input, ctx) {
      const r = await server.readResource(String(input.uri), ctx.signal);
      return toolOutcome({ content: r.contents.map((c) => ({ type: 'resource', resource: c })) });
    },
  };
  return [list, read];
}
