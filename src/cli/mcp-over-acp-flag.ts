import type { RelayedMcpServer } from '@acp-kit/client';
import { usageError } from './errors.js';
import { splitCommandLine } from './split-command-line.js';

/** A leading `name=` before the command line names the server (the agent shows `mcp__<name>__<tool>`). */
const NAMED = /^([A-Za-z0-9_-]+)=(.*)$/s;

/**
 * The `mcpServers` entries of `--mcp-over-acp <command>` (run, chat; repeatable): stdio MCP
 * servers the CLI starts itself and offers the agent over the ACP connection (MCP over ACP).
 * Unnamed ones are `mcp`, `mcp2`, ... An agent without the capability gets them as plain stdio
 * servers to start itself (see docs/mcp-over-acp.md).
 */
export function mcpOverAcpServers(lines: readonly string[] | undefined, cwd: string): RelayedMcpServer[] {
  return (lines ?? []).map((line, i) => {
    const m = NAMED.exec(line.trim());
    const name = m?.[1] ?? (i === 0 ? 'mcp' : `mcp${i + 1}`);
    let words: string[];
    try {
      words = splitCommandLine(m?.[2] ?? line);
    } catch (e) {
      throw usageError(`--mcp-over-acp: ${e instanceof Error ? e.message : String(e)}`);
    }
    const [command, ...args] = words;
    if (command === undefined || command === '') throw usageError(`--mcp-over-acp ${JSON.stringify(line)}: no command`);
    return { type: 'acp', name, command, args, cwd };
  });
}
