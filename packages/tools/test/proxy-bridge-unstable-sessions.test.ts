// The bridge carries the unstable session methods between versions (their shape is the same in
// v1 and v2 but for v2's `state` in the status result): acp-kit's client on one version, the
// built-in agent spawned for real on the other. A fork is a session of the bridge like a new one
// (its prompts get the version's lifecycle); archive closes it there; every message on both legs
// matches the version's schema.unstable.json, and the bridge's own capture validator reports none
// of them. ACP-V1-FORK-01.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { approveAll } from '../../client/src/services/permission-policy.js';
import { startBridgedAgent, type BridgedAgent } from '../../../test/support/bridged-agent.js';
import { tempDir } from '../../../test/support/temp.js';

const started: BridgedAgent[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((b) => b.stop()));
});

describe.each([1, 2] as const)('bridge, v%i editor: unstable session methods', (editorVersion) => {
  it('fork, set_title, status, archive and the list filter cross the bridge', async () => {
    const b = await startBridgedAgent(editorVersion, { name: 'bridge-unstable', permissionPolicy: approveAll() });
    started.push(b);
    const { conn, bridge, agentVersion, editorTap, agentTap, violations } = b;
    expect(await bridge.route).toEqual({ kind: 'translate', editorVersion, agentVersion });
    expect(conn.agentCapabilities.session).toMatchObject({ fork: true, archive: true, status: true, title: true });

    const cwd = tempDir('bridge-unstable-cwd-');
    const s = await conn.newSession({ cwd });
    expect(await s.setTitle('Bridged title')).toBe('Bridged title');
    expect(s.state.info.title).toBe('Bridged title');
    await s.prompt('hello');
    const fork = await s.fork();
    expect(fork.sessionId).not.toBe(s.sessionId);
    // the fork is a session of the bridge: a prompt on it runs with the editor's lifecycle, and a
    // v1 agent's fs/* calls for it are served inside its roots
    expect((await fork.prompt('create fork.txt containing forked')).stopReason).toBe('end_turn');
    expect(readFileSync(join(cwd, 'fork.txt'), 'utf8')).toContain('forked');
    // its commands reach the editor like a new session's (a v1 result cannot carry them: an update)
    await fork.prompt('/help');
    expect(fork.state.availableCommands.map((c) => c.name)).toContain('help');
    const status = await fork.status();
    expect(status.status).toBe('open');
    // v2 carries the foreground state; a v1 agent cannot say it
    if (editorVersion === 2) expect(status.state).toBeUndefined();
    await s.archive();
    expect(s.closed).toBe(true);
    const ids = (l: Array<{ sessionId: string }>) => l.map((i) => i.sessionId).sort();
    expect(ids(await conn.listAllSessions({ cwd }))).toEqual([fork.sessionId]);
    const all = await conn.listAllSessions({ cwd, archived: 'include' });
    expect(ids(all)).toEqual([s.sessionId, fork.sessionId].sort());
    expect(all.find((i) => i.sessionId === s.sessionId)).toMatchObject({ archived: true, title: 'Bridged title' });
    await conn.unarchiveSession(s.sessionId);
    expect(ids(await conn.listAllSessions({ cwd }))).toEqual([s.sessionId, fork.sessionId].sort());

    editorTap.assertAllValid();
    agentTap.assertAllValid();
    expect([...editorTap.unknownMethods, ...agentTap.unknownMethods]).toEqual([]);
    // each method really crossed: sent by the editor and carried to the agent
    const carried = ['session/fork', 'session/set_title', 'session/status', 'session/archive', 'session/unarchive'];
    expect(carried.filter((m) => !editorTap.knownMethods.has(m) || !agentTap.knownMethods.has(m))).toEqual([]);
    expect(violations).toEqual([]);
  }, 60_000);
});
