// Two cluster instances in one test process, each with its own pool, on one real PostgreSQL
// database (test/support/postgres.ts), each behind its own `acp-kit serve` server (startAcpServer
// on loopback, real WebSockets): a client on each, one session. The instance that created the
// session owns it; the other follows it from the table and sends its requests through the inbox.
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import type { PermissionPolicy } from '../../client/src/index.js';
import { startClusterInstance, type ClusterInstance } from '../../../test/support/cluster-instance.js';
import { describePostgres, usePostgres } from '../../../test/support/postgres.js';
import { connectTapped, TOKEN, type TappedClient } from '../../../test/support/remote.js';
import { controlledAgent, type AgentControl } from '../../../test/support/shared-agent.js';

type Client = TappedClient;

const chunkTexts = (us: any[]): string[] =>
  us.filter((u) => u.sessionUpdate === 'agent_message_chunk').map((u) => u.content.text);
const never: PermissionPolicy = (_req, ctx) =>
  new Promise((resolve) => ctx.signal?.addEventListener('abort', () => resolve({ outcome: 'cancelled' })));
const allow: PermissionPolicy = async (req) => ({ outcome: 'selected', optionId: req.options[0].optionId });

describePostgres('two cluster instances on one database', () => {
  const db = usePostgres();
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await Promise.resolve(c()).catch(() => undefined);
  });

  const instance = (id: string, control: AgentControl): Promise<ClusterInstance> =>
    startClusterInstance({ databaseUrl: db.url, id, control, leaseMs: 1500, pollMs: 200, cleanups });

  async function client(url: string, permissionPolicy?: PermissionPolicy): Promise<Client> {
    const c = await connectTapped(url, TOKEN, permissionPolicy);
    cleanups.push(() => c.conn.close());
    return c;
  }

  /** Two instances, a client on each; A creates the session (its instance owns it), B resumes it on the other. */
  async function shared(control: AgentControl, policies: { a?: PermissionPolicy; b?: PermissionPolicy } = {}) {
    const one = await instance('node-1', control);
    const two = await instance('node-2', control);
    const a = await client(one.url, policies.a);
    const sa = await a.conn.newSession({ cwd: '/tmp' });
    const b = await client(two.url, policies.b);
    return { one, two, a, sa, b };
  }

  it('a client on each instance gets the same updates in the same order; prompts from both join one queue, each echoed once', async () => {
    const control = controlledAgent();
    const { a, sa, b } = await shared(control);
    await sa.prompt('say:hello');
    const turn = sa.prompt('gate:g:2');
    await control.reached('g');
    const sb = await b.conn.resumeSession(sa.sessionId, { cwd: '/tmp', replay: true });
    // the follower's replay: the history so far from the table, then the foreground state
    const snapshot = b.updates.findIndex((u) => u.sessionUpdate === 'state_update');
    expect(b.updates[snapshot]).toEqual({ sessionUpdate: 'state_update', state: 'running' });
    expect(chunkTexts(b.updates.slice(0, snapshot))).toEqual(['hello ', 'before0 ', 'before1 ']);

    const fromB = sb.prompt('say:from-b');
    const fromA = sa.prompt('say:from-a');
    control.open('g');
    const [rTurn, rB, rA] = await Promise.all([turn, fromB, fromA]);
    expect([rTurn.stopReason, rB.stopReason, rA.stopReason]).toEqual(['end_turn', 'end_turn', 'end_turn']);
    // every turn end reaches each client as an idle, and may still be on its way when the prompts'
    // answers are in (the follower's through the table): wait for the gated turn's, from-b's and
    // from-a's on both (A also saw hello's)
    const idles = (us: any[]) => us.filter((u) => u.sessionUpdate === 'state_update' && u.state === 'idle').length;
    while (idles(b.updates.slice(snapshot + 1)) < 3) await sb.nextIdle();
    while (idles(a.updates) < 4) await sa.nextIdle();

    const live = b.updates.slice(snapshot + 1);
    expect(a.updates.slice(a.updates.length - live.length)).toEqual(live);
    // the echoes, one per prompt, in the queue's order; each turn's chunks right after its own echo
    const echoes = live.filter((u) => u.sessionUpdate === 'user_message');
    const texts = echoes.map((u) => u.content[0].text);
    expect([...texts].sort()).toEqual(['say:from-a', 'say:from-b']);
    expect(echoes.find((u) => u.content[0].text === 'say:from-b').messageId).toBe(rB.userMessageId);
    expect(echoes.find((u) => u.content[0].text === 'say:from-a').messageId).toBe(rA.userMessageId);
    const afterGate = chunkTexts(live);
    expect(afterGate.slice(0, 2)).toEqual(['after0 ', 'after1 ']);
    expect(afterGate.slice(2)).toEqual(texts.map((t) => `${t.slice(4)} `));
    const kinds = live.map((u) => (u.sessionUpdate === 'state_update' ? `state:${u.state}` : u.sessionUpdate));
    expect(kinds.filter((k) => k === 'user_message')).toHaveLength(2);
  });

  it("a user message the agent sends itself reaches the client on the other instance once, as the owner's, and a replay has it once", async () => {
    const control = controlledAgent();
    const { two, a, sa, b } = await shared(control);
    const sb = await b.conn.resumeSession(sa.sessionId, { cwd: '/tmp' });
    const idleB = sb.nextIdle();
    expect((await sa.prompt('user:added by the agent')).stopReason).toBe('end_turn');
    await idleB;
    const authored = (us: any[]) =>
      us.filter((u) => u.sessionUpdate === 'user_message' && u.content[0].text === 'added by the agent');
    expect(authored(a.updates)).toHaveLength(1);
    expect(authored(b.updates)).toHaveLength(1);
    // the turn as each client saw it, from the prompt's echo to the idle: the same updates in the same order
    const turnOf = (us: any[]) =>
      us.slice(
        us.findIndex((u) => u.sessionUpdate === 'user_message' && u.content[0].text === 'user:added by the agent'),
      );
    expect(turnOf(b.updates)).toEqual(turnOf(a.updates));
    expect(chunkTexts(turnOf(b.updates))).toEqual(['noted ']);
    // replayed from the table through the other instance: the prompt and the agent's user message, once each
    const c = await client(two.url);
    await c.conn.resumeSession(sa.sessionId, { cwd: '/tmp', replay: true });
    expect(c.updates.filter((u) => u.sessionUpdate === 'user_message').map((u) => u.content[0].text)).toEqual([
      'user:added by the agent',
      'added by the agent',
    ]);
  });

  it('a cancel from the client on the other instance cancels the running turn, for both', async () => {
    const control = controlledAgent();
    const { a, sa, b } = await shared(control);
    const sb = await b.conn.resumeSession(sa.sessionId, { cwd: '/tmp' });
    const idleB = sb.nextIdle();
    const turn = sa.prompt('gate:g:1');
    await control.reached('g');
    sb.cancel();
    expect((await turn).stopReason).toBe('cancelled');
    expect((await idleB).stopReason).toBe('cancelled');
    expect(chunkTexts(a.updates)).toEqual(['before0 ']);
  });

  it.each([
    ['the follower', 'the owner'],
    ['the owner', 'the follower'],
  ] as const)(
    'a permission question goes to both clients: %s answers first and wins, %s has its copy withdrawn',
    async (winner) => {
      const control = controlledAgent();
      const followerWins = winner === 'the follower';
      const { a, sa, b } = await shared(control, followerWins ? { a: never, b: allow } : { a: allow, b: never });
      const sb = await b.conn.resumeSession(sa.sessionId, { cwd: '/tmp' });
      const idleB = sb.nextIdle();
      const r = await sa.prompt('ask');
      expect(r.stopReason).toBe('end_turn');
      await idleB;
      expect(chunkTexts(a.updates)).toEqual(['outcome=allow ']);
      expect(chunkTexts(b.updates)).toEqual(['outcome=allow ']);
      const loser = followerWins ? a : b;
      const asked = loser.received.find((m) => m.method === 'session/request_permission');
      expect(asked, 'the losing client was asked too').toBeDefined();
      // the withdrawal came before the turn's end (both clients have seen the idle)
      expect(loser.received.find((m) => m.method === '$/cancel_request')?.params).toEqual({ requestId: asked.id });
    },
  );

  it('a notification the follower instance misses (its LISTEN connection killed) is still delivered, by the poll', async () => {
    const control = controlledAgent();
    const { one, two, a, sa, b } = await shared(control);
    const sb = await b.conn.resumeSession(sa.sessionId, { cwd: '/tmp' });
    const pid = two.node.listenPid;
    expect(pid).toBeTypeOf('number');
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    cleanups.push(() => admin.end());
    await admin.query('select pg_terminate_backend($1)', [pid]);
    const idleB = sb.nextIdle();
    const r = await sa.prompt('say:one two three');
    expect(r.stopReason).toBe('end_turn');
    expect((await idleB).stopReason).toBe('end_turn');
    expect(chunkTexts(b.updates)).toEqual(['one ', 'two ', 'three ']);
    // B's first update is the resume's state snapshot; then exactly what A got
    expect(b.updates[0]).toEqual({ sessionUpdate: 'state_update', state: 'idle' });
    expect(b.updates.slice(1)).toEqual(a.updates);
    // delivered without a notification: the LISTEN connection was gone (it comes back later)
    expect(two.node.listenPid === undefined || two.node.listenPid !== pid).toBe(true);
    void one;
  });

  it('a follower instance that dies without detaching (no heartbeat): the owner detaches its followers, so the session closes and its lease is given back once no client has it', async () => {
    const control = controlledAgent();
    const { two, sa, b } = await shared(control);
    await b.conn.resumeSession(sa.sessionId, { cwd: '/tmp' });
    const lease = async (): Promise<string[]> => {
      const c = new pg.Client({ connectionString: db.url });
      await c.connect();
      try {
        return (await c.query('select owner from acp_leases where session_id = $1', [sa.sessionId])).rows.map(
          (r) => r.owner,
        );
      } finally {
        await c.end();
      }
    };
    // instance 2 stops beating and polling, its follower still attached on the owner (a crash)
    await two.node.stop({ release: false });
    await sa.close();
    expect(await lease()).toEqual(['node-1']);
    // the heartbeat runs out after one lease (1.5 s); the owner's next poll (every 200 ms) lets go
    const deadline = Date.now() + 8000;
    while ((await lease()).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await lease()).toEqual([]);
  });
});
