// End-to-end: session administration — setup parameters, list paging, close, delete and error
// answers — between acp-kit's client and agent runtime over real stdio pipes, every wire message
// schema-checked. Requirement IDs: ACP-ALL-LIST-01..03/05, ACP-ALL-CLOSE-01/02, ACP-ALL-DEL-01..03,
// ACP-V2-RPC-01, ACP-V2-RESUME-06, ACP-V2-LIFE-14, ACP-V1-SESS-02/03, ACP-V2-SESS-01/02, §5.12.
import { afterEach, describe, expect, it } from 'vitest';
import { type ClientConnection } from '../packages/client/src/index.js';
import { startE2E } from './support/e2e.js';

const open: ClientConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

const start = (v: 1 | 2, env: Record<string, string> = {}, opts: Record<string, unknown> = {}) =>
  startE2E(v, open, opts, env);

const text = (t: string) => ({ type: 'text', text: t });

describe.each([1, 2] as const)('session administration over v%i', (v) => {
  it('unknown sessions: -32002 with data.sessionId (ACP-V2-RPC-01, ACP-ALL-CLOSE-02)', async () => {
    const { conn, tap, raw } = await start(v);
    const missing = 'sess_doesnotexist';
    await expect(raw('session/prompt', { sessionId: missing, prompt: [text('x')] })).rejects.toMatchObject({
      code: -32002,
      data: { sessionId: missing },
    });
    await expect(
      raw(
        'session/set_config_option',
        v === 2
          ? { sessionId: missing, configId: 'mode', type: 'id', value: 'ask' }
          : { sessionId: missing, configId: 'mode', value: 'ask' },
      ),
    ).rejects.toMatchObject({ code: -32002, data: { sessionId: missing } });
    await expect(conn.resumeSession(missing, { cwd: '/tmp', replay: v === 2 })).rejects.toMatchObject({
      code: -32002,
      data: { sessionId: missing },
    });
    if (v === 2) {
      // closing an unknown session succeeds in v2
      await expect(raw('session/close', { sessionId: missing })).resolves.toEqual({});
    } else {
      await expect(raw('session/close', { sessionId: missing })).rejects.toMatchObject({ code: -32002 });
    }
    tap.assertAllValid();
  });

  it('list: pages with an opaque cursor, exact cwd filter, discovery only (ACP-ALL-LIST-01..03/07)', async () => {
    const { conn, tap, wire } = await start(v);
    const ids = new Set<string>();
    for (let i = 0; i < 53; i++) ids.add((await conn.newSession({ cwd: '/tmp/e2e-a' })).sessionId);
    const other = await conn.newSession({ cwd: '/tmp/e2e-b' });
    await conn.newSession({ cwd: '/tmp/e2e-a/sub' });
    const listed = await conn.listAllSessions({ cwd: '/tmp/e2e-a' });
    expect(listed.map((s) => s.sessionId).sort()).toEqual([...ids].sort());
    expect(listed.every((s) => s.cwd === '/tmp/e2e-a')).toBe(true);
    const listReqs = wire.filter((w) => w.dir === 'out' && w.msg.method === 'session/list');
    expect(listReqs.length).toBe(2);
    expect(typeof listReqs[1].msg.params?.cursor).toBe('string');
    expect((await conn.listAllSessions({ cwd: '/tmp/e2e-b' })).map((s) => s.sessionId)).toEqual([other.sessionId]);
    expect(await conn.listAllSessions({ cwd: '/nowhere' })).toEqual([]);
    expect((await conn.listAllSessions()).length).toBe(55);
    // a cursor the agent never issued is -32602
    await expect(
      (conn.extRequest as (m: string, p: unknown) => Promise<unknown>)('session/list', { cursor: 'bogus' }),
    ).rejects.toMatchObject({ code: -32602 });
    tap.assertAllValid();
  });

  it("session parameters: stdio MCP servers in the version's shape; unadvertised transports refused before sending (§5.12, ACP-V1-SESS-02/03, ACP-V2-SESS-01/02)", async () => {
    const { conn, tap, wire } = await start(v);
    const stdio = {
      type: 'stdio' as const,
      name: 'files',
      command: '/usr/bin/mcp-files',
      args: ['--root', '/tmp'],
      env: [{ name: 'K', value: 'v' }],
    };
    const s = await conn.newSession({ cwd: '/tmp', mcpServers: [stdio], additionalDirectories: ['/var/tmp'] });
    const sent = wire.find((w) => w.dir === 'out' && w.msg.method === 'session/new')!.msg.params as {
      mcpServers: Array<Record<string, unknown>>;
      additionalDirectories: string[];
    };
    if (v === 1)
      expect(sent.mcpServers).toEqual([
        { name: 'files', command: '/usr/bin/mcp-files', args: ['--root', '/tmp'], env: [{ name: 'K', value: 'v' }] },
      ]);
    else expect(sent.mcpServers).toEqual([stdio]);
    expect(sent.additionalDirectories).toEqual(['/var/tmp']);
    expect(
      (await conn.listAllSessions({ cwd: '/tmp' })).find((x) => x.sessionId === s.sessionId)?.additionalDirectories,
    ).toEqual(['/var/tmp']);
    // the agent advertises stdio only: an http server must not be sent
    const before = wire.filter((w) => w.msg.method === 'session/new').length;
    const http = { type: 'http' as const, name: 'web', url: 'https://mcp.example/', headers: [] };
    await expect(conn.newSession({ cwd: '/tmp', mcpServers: [http] })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/mcpServers\[0\].*http/),
    });
    expect(wire.filter((w) => w.msg.method === 'session/new').length).toBe(before);
    tap.assertAllValid();
  });

  it('delete: gone from the list, repeat deletes succeed (ACP-ALL-DEL-01..03)', async () => {
    const { conn, tap } = await start(v);
    const keep = await conn.newSession({ cwd: '/tmp/e2e-del' });
    const gone = await conn.newSession({ cwd: '/tmp/e2e-del' });
    await gone.prompt('hi');
    expect(conn.agentCapabilities.session?.delete).toBeTruthy();
    await conn.deleteSession(gone.sessionId);
    expect(gone.closed).toBe(true);
    expect((await conn.listAllSessions({ cwd: '/tmp/e2e-del' })).map((x) => x.sessionId)).toEqual([keep.sessionId]);
    await expect(conn.deleteSession(gone.sessionId)).resolves.toBeUndefined();
    await expect(conn.resumeSession(gone.sessionId, { cwd: '/tmp/e2e-del' })).rejects.toMatchObject({ code: -32002 });
    tap.assertAllValid();
  });

  if (v === 2) {
    it('v2 refuses an unsupported replay cursor and an empty prompt with -32602, sending nothing (ACP-V2-RESUME-06, ACP-V2-LIFE-14)', async () => {
      const { conn, tap, wire, raw } = await start(2);
      const s = await conn.newSession({ cwd: '/tmp' });
      const n = wire.length;
      await expect(
        raw('session/resume', {
          sessionId: s.sessionId,
          cwd: '/tmp',
          replayFrom: { type: '_message', messageId: 'x' },
        }),
      ).rejects.toMatchObject({ code: -32602, data: { path: 'params.replayFrom.type' } });
      await expect(raw('session/prompt', { sessionId: s.sessionId, prompt: [] })).rejects.toMatchObject({
        code: -32602,
      });
      expect(wire.slice(n).some((w) => w.msg.method === 'session/update')).toBe(false);
      // the deliberately invalid requests are the only schema failures; the agent's answers are valid
      expect(tap.failures.map((f) => f.from)).toEqual(tap.failures.map(() => 'client'));
      expect(tap.failures.length).toBeGreaterThan(0);
    });
  }

  it('close frees the session: later requests for it are -32002 (ACP-ALL-CLOSE-01)', async () => {
    const { conn, tap, raw } = await start(v);
    const s = await conn.newSession({ cwd: '/tmp' });
    await s.prompt('hi');
    await s.close();
    expect(conn.session(s.sessionId)).toBeUndefined();
    await expect(raw('session/prompt', { sessionId: s.sessionId, prompt: [text('x')] })).rejects.toMatchObject({
      code: -32002,
    });
    tap.assertAllValid();
  });
});
