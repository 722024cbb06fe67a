import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Name of the checker's MCP server in `session/new`'s `mcpServers`. */
export const PROBE_SERVER_NAME = 'acp-kit-check';
/** The one tool of the checker's MCP server. */
export const PROBE_TOOL_NAME = 'acp_kit_check_echo';

/** The probe tool as MCP `tools/list` describes it. */
const PROBE_TOOL = {
  name: PROBE_TOOL_NAME,
  description: 'acp-kit check: returns the nonce it is given. Call it when the user asks for it.',
  inputSchema: { type: 'object', properties: { nonce: { type: 'string' } }, required: ['nonce'] },
  annotations: { readOnlyHint: true, openWorldHint: false },
};

/**
 * The probe server's answer to an inner MCP request (the stdio server below answers the same), or
 * undefined for a method it does not have: what the checker answers in `mcp/message` when it
 * serves the probe over ACP itself.
 */
export function probeAnswer(method: unknown, params: unknown): unknown {
  const p = typeof params === 'object' && params !== null ? params : {};
  if (method === 'initialize')
    return {
      protocolVersion: 'protocolVersion' in p ? p.protocolVersion : undefined,
      capabilities: { tools: {} },
      serverInfo: { name: PROBE_SERVER_NAME, version: '1.0.0' },
    };
  if (method === 'ping') return {};
  if (method === 'tools/list') return { tools: [PROBE_TOOL] };
  if (method !== 'tools/call') return undefined;
  const args = 'arguments' in p ? p.arguments : undefined;
  const nonce = typeof args === 'object' && args !== null && 'nonce' in args ? args.nonce : undefined;
  return { content: [{ type: 'text', text: `nonce: ${String(nonce)}` }] };
}

/**
 * The checker's tiny MCP stdio server (newline-delimited JSON-RPC by hand: the tools package does
 * not depend on the MCP SDK). It appends every request it receives to the file named by
 * `ACP_KIT_CHECK_MCP_LOG` as a JSON line (its pid first), so the checker learns whether the agent
 * connected (`initialize`) and used it (`tools/call`). It ends on stdin EOF, as MCP stdio servers do;
 * the checker kills it by pid at the end of the case in case the agent never closes it. Run with
 * `node -e`, so that it ships inside the bundle and needs no file path.
 */
export const PROBE_SERVER_SOURCE = `
const fs = require('node:fs');
const log = (o) => fs.appendFileSync(process.env.ACP_KIT_CHECK_MCP_LOG, JSON.stringify(o) + '\\n');
log({ pid: process.pid });
const tool = ${JSON.stringify(PROBE_TOOL)};
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
function answer(method, p) {
  if (method === 'initialize')
    return { protocolVersion: p && p.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'acp-kit-check', version: '1.0.0' } };
  if (method === 'ping') return {};
  if (method === 'tools/list') return { tools: [tool] };
  if (method === 'tools/call') return { content: [{ type: 'text', text: 'nonce: ' + String(p && p.arguments && p.arguments.nonce) }] };
  return undefined;
}
const rl = require('node:readline').createInterface({ input: process.stdin });
rl.on('line', (line) => {
  let m;
  try { m = JSON.parse(line); } catch { return; }
  if (typeof m !== 'object' || m === null || typeof m.method !== 'string') return;
  log({ method: m.method, params: m.params });
  if (m.id === undefined) return;
  const result = answer(m.method, m.params);
  if (result === undefined) send({ id: m.id, error: { code: -32601, message: 'Method not found: ' + m.method } });
  else send({ id: m.id, result });
});
rl.on('close', () => process.exit(0));
`;

/** What the probe server saw. */
export interface ProbeLog {
  pid: number | undefined;
  /** Methods of the requests and notifications it received, in order. */
  methods: string[];
  /** Arguments of every `tools/call` of the probe tool. */
  calls: unknown[];
}

/** One probe server configuration for one case, with its log file. */
export class McpProbe {
  readonly nonce = randomBytes(6).toString('hex');
  private readonly dir = mkdtempSync(join(tmpdir(), 'acp-kit-check-mcp-'));
  private readonly logFile = join(this.dir, 'log.jsonl');

  /** The stdio `mcpServers` entry (v2 names its `type`; v1 stdio entries have none). */
  config(version: 1 | 2): Record<string, unknown> {
    return {
      ...(version === 2 ? { type: 'stdio' } : {}),
      name: PROBE_SERVER_NAME,
      command: process.execPath,
      args: ['-e', PROBE_SERVER_SOURCE],
      env: [{ name: 'ACP_KIT_CHECK_MCP_LOG', value: this.logFile }],
    };
  }

  /** The prompt asking for the tool: the demo model's `mcp <server> <tool> <json>` line, plain to an LLM too. */
  prompt(): string {
    return `mcp ${PROBE_SERVER_NAME} ${PROBE_TOOL_NAME} ${JSON.stringify({ nonce: this.nonce })}`;
  }

  read(): ProbeLog {
    let text = '';
    try {
      text = readFileSync(this.logFile, 'utf8');
    } catch {
      // never started: no file
    }
    const out: ProbeLog = { pid: undefined, methods: [], calls: [] };
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      const entry: unknown = JSON.parse(line);
      if (typeof entry !== 'object' || entry === null) continue;
      if ('pid' in entry && typeof entry.pid === 'number') out.pid ??= entry.pid;
      if (!('method' in entry) || typeof entry.method !== 'string') continue;
      out.methods.push(entry.method);
      const params = 'params' in entry ? entry.params : undefined;
      if (entry.method === 'tools/call' && typeof params === 'object' && params !== null && 'name' in params)
        if (params.name === PROBE_TOOL_NAME) out.calls.push('arguments' in params ? params.arguments : undefined);
    }
    return out;
  }

  /** Whether a `tools/call` of the probe tool carried this case's nonce. */
  calledWithNonce(log: ProbeLog): boolean {
    return log.calls.some((a) => typeof a === 'object' && a !== null && 'nonce' in a && a.nonce === this.nonce);
  }

  /**
   * Ends the server if the agent left it running (it is the agent's child, not ours: no process
   * group of ours to signal), and removes the log.
   */
  dispose(): void {
    const { pid } = this.read();
    if (pid !== undefined) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone: the agent closed it
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
