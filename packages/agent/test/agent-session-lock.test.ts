// One writer per stored session: two real agent processes on one store.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SESSION_LOCKED } from '../src/index.js';
import { initParams, openSession, tempDataDir, useAgents } from '../../../test/support/agent-harness.js';

const start = useAgents();
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const sessionsDir = (dataDir: string) => join(dataDir, 'agents', 'scripted-agent', 'sessions');

describe.each([1, 2] as const)('session lock (v%i)', (version) => {
  const restore = version === 1 ? 'session/load' : 'session/resume';

  it('a second process cannot load/resume or delete a session another process has open; after session/close it can', async () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    const a = start({ dataDir, process: true });
    const sessionId = await openSession(a, version);
    const b = start({ dataDir, process: true });
    await b.request('initialize', initParams(version));
    const e = await b.request(restore, { sessionId, cwd: '/tmp', mcpServers: [] }).catch((x) => x);
    expect(e.code).toBe(SESSION_LOCKED);
    expect(e.message).toContain(`Session ${sessionId} is open in another process (pid ${a.agent.process.pid}`);
    expect(e.data).toMatchObject({ sessionId, pid: a.agent.process.pid });
    const d = await b.request('session/delete', { sessionId }).catch((x) => x);
    expect(d.code).toBe(SESSION_LOCKED);
    expect(readdirSync(sessionsDir(dataDir))).toContain(`${sessionId}.jsonl`);
    // a round trip on A: the session still works there
    await a.request('session/close', { sessionId });
    expect(existsSync(join(sessionsDir(dataDir), `${sessionId}.lock`))).toBe(false);
    await b.request(restore, { sessionId, cwd: '/tmp', mcpServers: [] });
    const again = await a.request(restore, { sessionId, cwd: '/tmp', mcpServers: [] }).catch((x) => x);
    expect(again.code).toBe(SESSION_LOCKED);
    expect(again.data.pid).toBe(b.agent.process.pid);
  });

  it('a lock left by a killed process (SIGKILL) is stale and taken over', async () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    const a = start({ dataDir, process: true });
    const sessionId = await openSession(a, version);
    a.agent.process.kill('SIGKILL');
    await a.agent.exited;
    expect(existsSync(join(sessionsDir(dataDir), `${sessionId}.lock`))).toBe(true);
    const b = start({ dataDir, process: true });
    await b.request('initialize', initParams(version));
    await b.request(restore, { sessionId, cwd: '/tmp', mcpServers: [] });
  });
});
