/**
 * `acp-kit run --mcp-over-acp <command>` as real processes (needs `npm run build`): the CLI starts
 * the stdio MCP server itself and relays it to the built-in agent over the ACP connection
 * (`mcp/message`, MCP over ACP); the demo model calls its tool (`mcp <server> <tool> <json>`).
 * The server's parent is the CLI, not the agent: the agent never started it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, cliEnv, ndjson, startCli, tempDir } from './fixtures/cli-helpers.js';
import { alive, waitUntil } from './support/process.js';

const SERVER = join(FIXTURES, 'mcp-echo-server.mjs');

describe.concurrent('acp-kit run --mcp-over-acp', () => {
  for (const protocol of ['1', '2'] as const) {
    it(`v${protocol}: the built-in agent calls a tool of the relayed server through mcp/message; the server ends with the run`, async () => {
      const cwd = tempDir(`run-mcpacp-v${protocol}`);
      const ppidFile = join(cwd, 'ppid');
      const pidFile = join(cwd, 'pid');
      const env = { ...cliEnv(), MCP_TAG: 'relayed', MCP_PPID_FILE: ppidFile, MCP_PID_FILE: pidFile };
      const run = startCli(
        [
          'run',
          '--json',
          '--protocol',
          protocol,
          '--mcp-over-acp',
          `tools=node ${SERVER}`,
          'mcp tools echo {"text": "over acp"}',
        ],
        { cwd, env },
      );
      const r = await run.done;
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const events = ndjson(r.stdout);
      expect(events[0]).toMatchObject({ type: 'connection', agentCapabilities: { mcp: { acp: true } } });
      const updates = events.filter((e) => e.type === 'update').map((e) => e.update);
      const done = updates.find((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'completed');
      expect(done?.content).toEqual([{ type: 'content', content: { type: 'text', text: 'relayed: over acp' } }]);
      expect(updates.find((u) => u.name === 'mcp__tools__echo')).toBeDefined();
      expect(events.at(-1)).toMatchObject({ type: 'result', stopReason: 'end_turn', exitCode: 0 });
      // started by the CLI (the client side), relayed over ACP: not a stdio server of the agent
      expect(Number(readFileSync(ppidFile, 'utf8'))).toBe(run.child.pid);
      const pid = Number(readFileSync(pidFile, 'utf8'));
      await waitUntil(() => !alive(pid), 5000, 'the relayed MCP server to end with the run');
    });
  }

  it('a --mcp-over-acp without a command is a usage error naming the flag', async () => {
    const r = await startCli(['run', '--mcp-over-acp', 'tools=', 'hello'], { cwd: tempDir('run-mcpacp-bad') }).done;
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--mcp-over-acp "tools=": no command/);
  });
});
