// Each agent built on runAgentOnStdio keeps its sessions in its own default store, keyed by its name.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentDirName, BUILTIN_AGENT_NAME, defaultSessionDir } from '../src/index.js';
import { JsonRpcPeer, spawnAgent, type AgentProcess } from '../../protocol/src/rpc/index.js';
import { fixturePath, initParams, tempDataDir } from '../../../test/support/agent-harness.js';

const agents: AgentProcess[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.kill()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function named(name: string, dataDir: string): Promise<JsonRpcPeer> {
  const agent = spawnAgent(process.execPath, [fixturePath('agent-named.mjs'), name], {
    env: { ...process.env, ACP_KIT_DATA_DIR: dataDir },
    killTimeoutMs: 500,
  });
  agents.push(agent);
  const peer = new JsonRpcPeer(agent.transport);
  await peer.request('initialize', initParams(2));
  return peer;
}

describe('sessions per agent', () => {
  it("two agents sharing ACP_KIT_DATA_DIR neither list nor resume each other's sessions", async () => {
    const dir = tempDataDir();
    dirs.push(dir);
    const a = await named('agent-a', dir);
    const b = await named('agent b/✓', dir);
    const { sessionId } = await a.request<any>('session/new', { cwd: '/tmp' });
    expect((await a.request<any>('session/list', {})).sessions.map((s: any) => s.sessionId)).toEqual([sessionId]);
    expect((await b.request<any>('session/list', {})).sessions).toEqual([]);
    const e = await b.request('session/resume', { sessionId, cwd: '/tmp' }).catch((x) => x);
    expect(e.code).toBe(-32002);
    expect(readdirSync(join(dir, 'agents', 'agent-a', 'sessions')).filter((f) => f.endsWith('.jsonl'))).toEqual([
      `${sessionId}.jsonl`,
    ]);
    expect(existsSync(join(dir, 'sessions'))).toBe(false);
  });

  it('defaultSessionDir: keyed by a sanitised name under ACP_KIT_DATA_DIR or XDG; the built-in agent keeps <root>/sessions', () => {
    expect(defaultSessionDir({ ACP_KIT_DATA_DIR: '/d' }, 'my-agent')).toBe('/d/agents/my-agent/sessions');
    expect(defaultSessionDir({ XDG_DATA_HOME: '/x' }, 'my-agent')).toBe('/x/acp-kit/agents/my-agent/sessions');
    expect(defaultSessionDir({ ACP_KIT_DATA_DIR: '/d' }, BUILTIN_AGENT_NAME)).toBe('/d/sessions');
    expect(defaultSessionDir({ XDG_DATA_HOME: '/x' })).toBe('/x/acp-kit/sessions');
    // no path tricks, and names that sanitise alike stay apart
    for (const n of ['..', '.', '', '../../etc', 'a/b'])
      expect(agentDirName(n)).toMatch(/^[A-Za-z0-9_][A-Za-z0-9._-]*-[0-9a-f]{8}$/);
    expect(agentDirName('a/b')).not.toBe(agentDirName('a:b'));
  });
});
