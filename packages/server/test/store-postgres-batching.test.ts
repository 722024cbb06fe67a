// Per-tick batching of PostgresSessionStore (issue 24 item 8) against a real PostgreSQL server,
// observed through a real pg pool whose batch statements the test counts (and can hold back): the
// writes issued while a batch is in flight go as ONE statement next, in order; a batch the
// database refuses fails every write in it; through the agent runtime, a turn's updates of one tick
// are one statement, and what the client received is exactly what is stored.
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { SESSION_STORE_UNAVAILABLE, type AgentDefinition } from '../../agent/src/index.js';
import { PostgresSessionStore } from '../src/store/postgres/index.js';
import type { PgPool, PgQueryResult } from '../src/store/postgres/pg-types.js';
import type { AnySessionUpdate } from '../../protocol/src/model/update.js';
import { connectInProcess, type InProcessPair, type WireEntry } from '../../../test/support/in-process.js';
import { describePostgres, usePostgres } from '../../../test/support/postgres.js';

const CWD = process.cwd();
const chunk = (text: string): AnySessionUpdate => ({
  sessionUpdate: 'agent_message_chunk',
  messageId: 'msg-1',
  content: { type: 'text', text },
});
const meta = (sessionId: string) => ({
  sessionId,
  cwd: CWD,
  additionalDirectories: [],
  createdAt: '2026-01-02T03:04:05.000Z',
  title: null,
});

/** A real pool that records the store's batch statements (their update texts) and can hold the next one. */
interface CountingPool {
  pool: PgPool;
  /** Per batch statement issued: the text of each chunk it carries, in order. */
  batches: string[][];
  /** Holds the next batch statement until {@link release}; resolves when it was issued. */
  holdNext(): Promise<void>;
  release(): void;
  end(): Promise<void>;
}

/** What {@link chunkTextsOf} gives for a body that is not a text chunk (a user message, a state). */
const NOT_A_CHUNK = '(not a chunk)';

function chunkTextsOf(param: unknown): string[] {
  const rows = JSON.parse(String(param)) as { bodies: { content?: { text?: string } }[] }[];
  return rows.flatMap((r) => r.bodies.map((b) => b.content?.text ?? NOT_A_CHUNK));
}

function countingPool(url: string): CountingPool {
  const real = new pg.Pool({ connectionString: url, max: 3 });
  real.on('error', () => undefined);
  const batches: string[][] = [];
  let hold: { issued: () => void; gate: Promise<void> } | undefined;
  let open: () => void = () => undefined;
  const query = async <R>(text: string, values?: unknown[]): Promise<PgQueryResult<R>> => {
    // the batch statement: one CTE over the JSON of every session's writes ($2)
    if (text.includes('jsonb_to_recordset($2::jsonb)')) {
      batches.push(chunkTextsOf(values?.[1]));
      const held = hold;
      hold = undefined;
      if (held) {
        held.issued();
        await held.gate;
      }
    }
    return (await real.query(text, values)) as unknown as PgQueryResult<R>;
  };
  const pool: PgPool = {
    query,
    connect: () => real.connect(),
    end: () => real.end(),
    on: (event, listener) => real.on(event, listener),
    options: { connectionString: url },
  };
  return {
    pool,
    batches,
    holdNext: () =>
      new Promise<void>((issued) => {
        const gate = new Promise<void>((r) => (open = r));
        hold = { issued, gate };
      }),
    release: () => open(),
    end: () => real.end(),
  };
}

describePostgres('PostgresSessionStore batches per tick', () => {
  const db = usePostgres();
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  });

  async function rig(namespace: string): Promise<{ counting: CountingPool; store: PostgresSessionStore }> {
    const counting = countingPool(db.url);
    cleanups.push(() => counting.end());
    const store = await PostgresSessionStore.open({ pool: counting.pool, namespace, retryForMs: 0 });
    cleanups.push(() => store.close());
    return { counting, store };
  }

  async function rowsOf(sessionId: string): Promise<{ seq: number; text: string; tx: string }[]> {
    const check = new pg.Client({ connectionString: db.url });
    await check.connect();
    try {
      const { rows } = await check.query(
        `SELECT seq, body->'content'->>'text' AS text, xmin::text AS tx FROM acp_updates WHERE session_id = $1 ORDER BY seq`,
        [sessionId],
      );
      return rows.map((r) => ({ seq: Number(r.seq), text: r.text, tx: r.tx }));
    } finally {
      await check.end();
    }
  }

  const macrotask = () => new Promise((r) => setImmediate(r));

  it('writes issued over many ticks while a batch is in flight go as ONE next statement, numbered in order', async () => {
    const { counting, store } = await rig('tick');
    await store.create(meta('tick'));
    const issued = counting.holdNext();
    const first = store.append('tick', chunk('first '));
    await issued;
    // 300 appends over 30 macrotasks, all while the first batch is held in flight
    const rest: Promise<void>[] = [];
    for (let k = 0; k < 300; k++) {
      rest.push(store.append('tick', chunk(`c${k} `)));
      if (k % 10 === 9) await macrotask();
    }
    counting.release();
    await Promise.all([first, ...rest]);
    const texts = Array.from({ length: 300 }, (_, k) => `c${k} `);
    expect(counting.batches).toEqual([['first '], texts]);
    const rows = await rowsOf('tick');
    expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 301 }, (_, i) => i + 1));
    expect(rows.map((r) => r.text)).toEqual(['first ', ...texts]);
    // two transactions: the held one, then all 300 together
    expect(new Set(rows.slice(1).map((r) => r.tx)).size).toBe(1);
    expect(rows[0]?.tx).not.toBe(rows[1]?.tx);
  });

  it('a batch the database refuses fails every write in it, none stored; the session takes no later writes', async () => {
    const { counting, store } = await rig('refused');
    await store.create(meta('refused'));
    const check = new pg.Client({ connectionString: db.url });
    await check.connect();
    cleanups.push(() => check.end());
    // a real refusal by the database, for one row of the batch only
    await check.query(`CREATE OR REPLACE FUNCTION refuse_boom() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.body->'content'->>'text' = 'boom ' THEN RAISE EXCEPTION 'boom refused'; END IF; RETURN NEW; END $$`);
    await check.query(
      `CREATE OR REPLACE TRIGGER refuse_boom BEFORE INSERT ON acp_updates FOR EACH ROW EXECUTE FUNCTION refuse_boom()`,
    );
    cleanups.push(() => check.query('DROP TRIGGER IF EXISTS refuse_boom ON acp_updates'));
    const issued = counting.holdNext();
    const first = store.append('refused', chunk('ok '));
    await issued;
    const batch = ['a ', 'boom ', 'c '].map((t) => store.append('refused', chunk(t)));
    const outcomes = Promise.allSettled(batch);
    counting.release();
    await first;
    const settled = await outcomes;
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const s of settled)
      expect(s).toMatchObject({
        reason: { code: SESSION_STORE_UNAVAILABLE, message: expect.stringContaining('boom refused') },
      });
    expect(counting.batches).toEqual([['ok '], ['a ', 'boom ', 'c ']]);
    // a later write would leave a gap in the history: refused without a statement
    await expect(store.append('refused', chunk('later '))).rejects.toMatchObject({ code: SESSION_STORE_UNAVAILABLE });
    expect(counting.batches).toHaveLength(2);
    expect((await rowsOf('refused')).map((r) => r.text)).toEqual(['ok ']);
  });

  it('through the agent runtime: 200 updates of one tick are one statement, sent in order once committed', async () => {
    const { counting, store } = await rig('runtime');
    const texts = Array.from({ length: 200 }, (_, k) => `t${k} `);
    const definition: AgentDefinition = {
      info: { name: 'tick-agent', version: '0.0.0' },
      async prompt(turn) {
        // not awaited one by one: the runtime holds each until its batch committed
        const sent = texts.map((t) => turn.send(chunk(t)));
        await Promise.all(sent);
        return 'end_turn';
      },
    };
    const pair = await connectInProcess(definition, { version: 2, serve: { store } });
    cleanups.push(() => pair.close());
    const s = await pair.conn.newSession({ cwd: CWD });
    expect((await s.prompt('go')).stopReason).toBe('end_turn');
    await pair.conn.listAllSessions();
    // the 200 chunks in one statement (the turn's other writes may share it or not)
    const chunkBatches = counting.batches.filter((b) => b.includes('t0 ') || b.includes('t199 '));
    expect(chunkBatches.map((b) => b.filter((t) => t !== NOT_A_CHUNK))).toEqual([texts]);
    const received = updatesOf(pair)
      .filter((u) => u.sessionUpdate === 'agent_message_chunk')
      .map((u) => u.content.text);
    expect(received).toEqual(texts);
    expect((await rowsOf(s.sessionId)).filter((r) => r.text?.startsWith('t')).map((r) => r.text)).toEqual(texts);
  });

  it('through the agent runtime: a refused batch sends none of its updates; the client saw exactly what is stored', async () => {
    const { counting, store } = await rig('runtime-refused');
    const check = new pg.Client({ connectionString: db.url });
    await check.connect();
    cleanups.push(() => check.end());
    await check.query(`CREATE OR REPLACE FUNCTION refuse_boom() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.body->'content'->>'text' = 'boom ' THEN RAISE EXCEPTION 'boom refused'; END IF; RETURN NEW; END $$`);
    await check.query(
      `CREATE OR REPLACE TRIGGER refuse_boom BEFORE INSERT ON acp_updates FOR EACH ROW EXECUTE FUNCTION refuse_boom()`,
    );
    cleanups.push(() => check.query('DROP TRIGGER IF EXISTS refuse_boom ON acp_updates'));
    const definition: AgentDefinition = {
      info: { name: 'refused-agent', version: '0.0.0' },
      async prompt(turn) {
        await turn.send(chunk('before '));
        // one tick: one batch, refused for its second update
        await Promise.all(['a ', 'boom ', 'c '].map((t) => turn.send(chunk(t))));
        return 'end_turn';
      },
    };
    const pair = await connectInProcess(definition, { version: 2, serve: { store } });
    cleanups.push(() => pair.close());
    const s = await pair.conn.newSession({ cwd: CWD });
    const end = await s.prompt('go');
    expect(end).toMatchObject({ stopReason: 'error', error: { code: SESSION_STORE_UNAVAILABLE } });
    await pair.conn.listAllSessions();
    const refused = counting.batches.find((b) => b.includes('boom '));
    expect(refused).toEqual(expect.arrayContaining(['a ', 'boom ', 'c ']));
    const received = updatesOf(pair)
      .filter((u) => u.sessionUpdate === 'agent_message_chunk')
      .map((u) => u.content.text);
    const stored = (await rowsOf(s.sessionId)).map((r) => r.text).filter((t) => t !== null);
    expect(received).not.toContain('a ');
    expect(received).toEqual(stored);
  });
});

function updatesOf(p: InProcessPair): any[] {
  return p.wire
    .filter((e: WireEntry) => e.dir === 'in' && e.msg.method === 'session/update')
    .map((e) => e.msg.params.update);
}
