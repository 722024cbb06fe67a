import type { GetPromptResult, Prompt as McpPromptDefinition } from '@modelcontextprotocol/sdk/types.js';
import type { AvailableCommand } from '@acp-kit/protocol';
import type { AssistantPart, ConversationMessage, UserPart } from '../model.js';
import type { McpConnections, McpPromptSource } from './mcp-connections.js';
import { mcpToolName, uniqueToolName } from './tool-name.js';

/**
 * An MCP prompt offered as an ACP slash command (issue 26 item 5). Name scheme, the same as for
 * tools: `mcp__<server>__<prompt>`, each part sanitized to `[A-Za-z0-9_-]`, at most 64 characters,
 * `_2`, `_3`... on a collision (with the agent's own commands too), so the name never holds a
 * space and `/<name> args` splits unambiguously.
 */
export interface McpPromptCommand {
  command: AvailableCommand;
  server: McpPromptSource;
  def: McpPromptDefinition;
}

/** The slash commands of the connected servers' prompts; `reserved`: the agent's own command names. */
export function mcpPromptCommands(conns: McpConnections | undefined, reserved: Iterable<string>): McpPromptCommand[] {
  const taken = new Set(reserved);
  return (conns?.prompts() ?? []).map(({ server, def }) => {
    const name = uniqueToolName(mcpToolName(server.serverName, def.name), taken);
    taken.add(name);
    const args = def.arguments ?? [];
    const label = def.title ?? def.name;
    return {
      command: {
        name,
        description: `${def.description ?? label} (prompt "${def.name}" of MCP server "${server.serverName}")`,
        // required arguments in <>, optional ones in []: the order they are read in
        input:
          args.length > 0 ? { hint: args.map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`)).join(' ') } : null,
      },
      server,
      def,
    };
  });
}

/**
 * The typed text after `/<name>` as the prompt's arguments, in their declared order: words
 * separated by white space, the last argument takes the rest of the text. `missing` names the
 * required arguments the text did not reach.
 */
export function promptArguments(
  def: McpPromptDefinition,
  text: string,
): { args: Record<string, string>; missing: string[] } {
  const declared = def.arguments ?? [];
  let rest = text.trim();
  const args: Record<string, string> = {};
  declared.forEach((a, i) => {
    if (rest === '') return;
    if (i === declared.length - 1) {
      args[a.name] = rest;
      rest = '';
      return;
    }
    const m = /^(\S+)\s*([\s\S]*)$/.exec(rest);
    args[a.name] = m?.[1] ?? rest;
    rest = m?.[2] ?? '';
  });
  return { args, missing: declared.filter((a) => a.required && !(a.name in args)).map((a) => a.name) };
}

type PromptContent = GetPromptResult['messages'][number]['content'];

/** One MCP prompt content block as model input text or image. */
function toPart(c: PromptContent): UserPart {
  switch (c.type) {
    case 'text':
      return { type: 'text', text: c.text };
    case 'image':
      return { type: 'image', data: c.data, mimeType: c.mimeType };
    case 'resource': {
      const r = c.resource;
      return 'text' in r && typeof r.text === 'string'
        ? { type: 'text', text: `<context uri="${r.uri}">\n${r.text}\n</context>` }
        : { type: 'text', text: `[binary resource ${r.uri}]` };
    }
    case 'resource_link':
      return { type: 'text', text: `[resource link ${c.name} <${c.uri}>]` };
    default:
      return { type: 'text', text: `[${c.type} content omitted]` };
  }
}

/**
 * `prompts/get`'s messages as the turn's input for the model: in order, consecutive messages of
 * one role joined; an assistant's images are described (assistant turns carry text only).
 */
export function promptMessages(result: GetPromptResult): ConversationMessage[] {
  const out: ConversationMessage[] = [];
  for (const m of result.messages) {
    const part = toPart(m.content);
    const last = out[out.length - 1];
    if (m.role === 'user') {
      if (last?.role === 'user') last.content.push(part);
      else out.push({ role: 'user', content: [part] });
      continue;
    }
    const text: AssistantPart = { type: 'text', text: part.type === 'text' ? part.text : `[image ${part.mimeType}]` };
    if (last?.role === 'assistant') last.content.push(text);
    else out.push({ role: 'assistant', content: [text] });
  }
  return out;
}
