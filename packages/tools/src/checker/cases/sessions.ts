import { at } from '@acp-kit/protocol/internal';
import { advertisedCase, isUpdate, updateOf, type CaseContext, type CheckCase } from '../case.js';
import type { WireMessage } from '../driver.js';
import { lateUpdates } from './prompt.js';
import { listAll } from './session-list.js';

/** The session ids `session/list` answers for the checker's cwd, every page (a bounded number of them). */
async function listedIds(ctx: CaseContext): Promise<{ ids: unknown[]; seqs: number[] }> {
  const { sessions, seqs } = await listAll(ctx);
  return { ids: sessions.map((s) => at(s, 'sessionId')), seqs };
}

/**
 * The session just made is in the list ("session/list allows Clients to discover sessions known to
 * an Agent"; a session it created and still holds is known to it). An agent may list only sessions
 * with a conversation (some write nothing before the first prompt): then a short turn comes first,
 * and only a session still missing after it fails.
 */
async function createdIsListed(ctx: CaseContext, sid: string): Promise<void> {
  let listed = await listedIds(ctx);
  if (!listed.ids.includes(sid)) {
    await ctx.turn(sid, ctx.driver, ctx.shortPrompt);
    listed = await listedIds(ctx);
  }
  ctx.judge(
    'ACP-ALL-LIST-01',
    listed.ids.includes(sid),
    `the session ${sid} made by session/new (cwd ${ctx.settings.cwd}) is not in session/list, not even after a turn in it`,
    listed.seqs,
  );
}

/** session/list filtered by cwd: a sessions array, every entry of that cwd, the session just made among them. */
export const sessionList = advertisedCase(
  {
    name: 'sessions/list',
    title: 'session/list with a cwd filter',
    ids: ['ACP-ALL-LIST-01', 'ACP-ALL-LIST-02'],
    needs: ['sessionCapabilities.list', 'session'],
  },
  async (ctx) => {
    const sid = await ctx.newSession();
    const r = await ctx.driver.request('session/list', { cwd: ctx.settings.cwd }, ctx.timeout);
    const sessions = at(r.result, 'sessions');
    if (
      !ctx.judge(
        'ACP-ALL-LIST-01',
        Array.isArray(sessions),
        `session/list must answer a sessions array; got ${JSON.stringify(r.error ?? r.result)}`,
        [r.seq],
      ) ||
      !Array.isArray(sessions)
    )
      return;
    const other = sessions.filter((s) => at(s, 'cwd') !== ctx.settings.cwd);
    ctx.judge(
      'ACP-ALL-LIST-02',
      other.length === 0,
      `session/list filtered by cwd ${ctx.settings.cwd} returned sessions of other directories: ${other.map((s) => JSON.stringify(at(s, 'cwd'))).join(', ')}`,
      [r.seq],
    );
    await createdIsListed(ctx, sid);
  },
);

/** session/close of a fresh session returns {}. */
export const sessionClose = advertisedCase(
  {
    name: 'sessions/close',
    title: 'session/close',
    ids: ['ACP-ALL-CLOSE-01'],
    needs: ['sessionCapabilities.close', 'session'],
  },
  async (ctx) => {
    const sid = await ctx.newSession();
    const r = await ctx.driver.request('session/close', { sessionId: sid }, ctx.timeout);
    ctx.judge(
      'ACP-ALL-CLOSE-01',
      r.result !== undefined && r.error === undefined && typeof r.result === 'object' && r.result !== null,
      `session/close must return {}; got ${JSON.stringify(r.error ?? r.result)}`,
      [r.seq],
    );
  },
);

/** session/delete: a missing session is deleted quietly; a deleted one leaves the list. */
export const sessionDelete = advertisedCase(
  {
    name: 'sessions/delete',
    title: 'session/delete',
    ids: ['ACP-ALL-DEL-02', 'ACP-ALL-DEL-03'],
    needs: ['sessionCapabilities.delete', 'session.delete'],
  },
  async (ctx) => {
    const missing = await ctx.driver.request(
      'session/delete',
      { sessionId: 'acp-kit-check-no-such-session' },
      ctx.timeout,
    );
    ctx.judge(
      'ACP-ALL-DEL-03',
      missing.error === undefined,
      `deleting a missing session should succeed quietly; got ${JSON.stringify(missing.error)}`,
      [missing.seq],
    );
    const sid = await ctx.newSession();
    const r = await ctx.driver.request('session/delete', { sessionId: sid }, ctx.timeout);
    if (
      !ctx.judge('ACP-ALL-DEL-02', r.error === undefined, `session/delete failed: ${JSON.stringify(r.error)}`, [r.seq])
    )
      return;
    if (ctx.advertises(ctx.version === 2 ? 'session' : 'sessionCapabilities.list')) {
      const l = await ctx.driver.request('session/list', { cwd: ctx.settings.cwd }, ctx.timeout);
      const sessions = at(l.result, 'sessions');
      const ids = (Array.isArray(sessions) ? sessions : []).map((s) => at(s, 'sessionId'));
      ctx.judge('ACP-ALL-DEL-02', !ids.includes(sid), `the deleted session ${sid} is still listed by session/list`, [
        r.seq,
        l.seq,
      ]);
    }
  },
);

/** Two session/new in one process: two different session ids (across processes no text asks it). */
export const sessionIdsUnique: CheckCase = {
  name: 'sessions/unique-ids',
  title: 'session/new twice gives two session ids',
  ids: ['ACP-ALL-SESS-02'],
  protocols: [1, 2],
  async run(ctx) {
    await ctx.init();
    const a = await ctx.newSession();
    const b = await ctx.newSession();
    const last = ctx.driver.received().at(-1)?.seq ?? 0;
    ctx.judge('ACP-ALL-SESS-02', a !== b, `two session/new calls both answered sessionId ${JSON.stringify(a)}`, [last]);
  },
};

/** v1 session/load: the conversation is replayed as updates (at least a message of the checker's turn), all before the response. */
export const sessionLoadV1: CheckCase = {
  name: 'sessions/load-v1',
  // closes the agent's stdin and loads in a second process (ctx.spawn)
  ownProcess: true,
  title: 'session/load replays the conversation',
  ids: ['ACP-V1-LOAD-02', 'ACP-V1-LOAD-03'],
  protocols: [1],
  async run(ctx) {
    await ctx.init();
    if (ctx.capabilities.loadSession !== true) ctx.skip('the agent does not advertise loadSession');
    const sid = await ctx.newSession();
    // any turn that ends makes a conversation to replay: the short prompt, not the general one
    await ctx.turn(sid, ctx.driver, ctx.shortPrompt);
    // a second process (after the first ended: an agent may lock its open sessions) loads it: the replay must come from the agent's store
    await ctx.driver.closeStdin(ctx.timeout);
    const d = ctx.spawn();
    await ctx.init(d);
    const r = await d.request(
      'session/load',
      { sessionId: sid, cwd: ctx.settings.cwd, mcpServers: [] },
      ctx.turnTimeout,
    );
    // no spec text promises that a session outlives its process: a refusal here is not exercised, not a failure
    if (r.error)
      ctx.skip(
        `a new process of the agent does not know the session (${JSON.stringify(r.error)}); load across processes is not exercised`,
      );
    // the round trip proves the replay is all in; the rule is the capture validator's
    const ping = await d.roundTrip(ctx.timeout);
    // v1 load replays "the entire conversation" (unlike v2, no "retained history" leeway): the checker's turn is in it
    const replayed = d
      .received(0, ping)
      .filter((m) => isUpdate(m, sid) && /^(user|agent)_(message|thought)/.test(String(updateOf(m)?.sessionUpdate)));
    ctx.judge(
      'ACP-V1-LOAD-02',
      replayed.length > 0,
      'session/load replayed no message of the conversation (the checker had a turn in it): the history must be replayed as session/update',
      [r.seq],
      d,
    );
    const late = lateUpdates(
      d,
      d.violationsOf('replay-after-load-response', r.seq, ping).filter((v) => v.seqs[1] === r.seq),
    );
    ctx.judge(
      'ACP-V1-LOAD-03',
      late.length === 0,
      `${late.length} replayed update(s) arrived after the session/load response`,
      [r.seq, ...late.map((m) => m.seq)],
      d,
    );
  },
};

/** v2 session/resume with replayFrom start: messages with ids, a state_update, all before the response. */
export const sessionResumeV2: CheckCase = {
  name: 'sessions/resume-v2',
  // closes the agent's stdin and resumes in a second process (ctx.spawn)
  ownProcess: true,
  title: 'session/resume with replayFrom start',
  ids: ['ACP-V2-RESUME-02', 'ACP-V2-RESUME-03', 'ACP-V2-RESUME-04', 'ACP-V2-RESUME-08'],
  protocols: [2],
  async run(ctx) {
    await ctx.init();
    if (!ctx.advertises('session')) ctx.skip('the agent advertises no session capability');
    const sid = await ctx.newSession();
    // any turn that ends makes a conversation to replay: the short prompt, not the general one
    await ctx.turn(sid, ctx.driver, ctx.shortPrompt);
    await resumeWithoutReplay(ctx, sid);
    await resumeWithReplayHere(ctx, sid);
    await ctx.driver.closeStdin(ctx.timeout);
    const d = ctx.spawn();
    await ctx.init(d);
    const r = await d.request(
      'session/resume',
      { sessionId: sid, cwd: ctx.settings.cwd, mcpServers: [], replayFrom: { type: 'start' } },
      ctx.turnTimeout,
    );
    // as for v1 load: no route is guaranteed to persist, and an empty replay ("all retained history") conforms
    if (r.error)
      ctx.skip(
        `a new process of the agent does not know the session (${JSON.stringify(r.error)}); resume across processes is not exercised`,
      );
    const replay = d.received(0, r.seq).filter((m) => isUpdate(m, sid));
    const messages = replay.filter((m) => /^(user|agent)_(message|thought)/.test(String(updateOf(m)?.sessionUpdate)));
    ctx.pass('ACP-V2-RESUME-03');
    ctx.judge(
      'ACP-V2-RESUME-04',
      messages.every((m) => typeof updateOf(m)?.messageId === 'string'),
      'a replayed message has no messageId',
      [r.seq, ...messages.filter((m) => typeof updateOf(m)?.messageId !== 'string').map((m) => m.seq)],
      d,
    );
    const lastState = replay.filter((m) => updateOf(m)?.sessionUpdate === 'state_update').at(-1);
    const lastMessage = messages.at(-1);
    ctx.judge(
      'ACP-V2-RESUME-08',
      lastState !== undefined && (lastMessage === undefined || lastState.seq > lastMessage.seq),
      'no state_update arrived after the replay and before the session/resume response',
      [r.seq],
      d,
    );
  },
};

/**
 * `session/resume` without `replayFrom`, in the process that holds the conversation: nothing of
 * it may be replayed (ACP-V2-RESUME-02; the SDK draft only says omitted "means" no replay: draft
 * tier). An agent that refuses to resume a session open in the same process is not exercised.
 */
async function resumeWithoutReplay(ctx: CaseContext, sid: string): Promise<void> {
  const d = ctx.driver;
  const r = await d.request(
    'session/resume',
    { sessionId: sid, cwd: ctx.settings.cwd, mcpServers: [] },
    ctx.turnTimeout,
  );
  if (r.error) return;
  const ping = await d.roundTrip(ctx.timeout);
  const start =
    d.transcript.find(
      (l) =>
        l.dir === 'out' &&
        l.msg?.method === 'session/resume' &&
        l.msg.id !== undefined &&
        JSON.stringify(l.msg.id) === JSON.stringify(r.id),
    )?.seq ?? r.seq;
  const replayed = d
    .received(start, ping)
    .filter((m) => isUpdate(m, sid) && /^(user|agent)_(message|thought)/.test(String(updateOf(m)?.sessionUpdate)));
  ctx.judge(
    'ACP-V2-RESUME-02',
    replayed.length === 0,
    `session/resume without replayFrom replayed ${replayed.length} message update(s); history is replayed only when replayFrom asks for it`,
    [start, ...replayed.map((m) => m.seq)],
  );
}

/**
 * `session/resume` with `replayFrom: {type:"start"}` in the process that holds the conversation
 * (an agent that keeps history in memory is judged here; the second process may know nothing):
 * every replayed message carries a messageId (ACP-V2-RESUME-04) and the whole replay comes before
 * the response (ACP-V2-RESUME-03, proved by a round trip after it). A refusal is not exercised.
 */
async function resumeWithReplayHere(ctx: CaseContext, sid: string): Promise<void> {
  const d = ctx.driver;
  const sent = d.send('session/resume', {
    sessionId: sid,
    cwd: ctx.settings.cwd,
    mcpServers: [],
    replayFrom: { type: 'start' },
  });
  const line = await d.waitFor(
    (l) => l.dir === 'in' && l.msg?.method === undefined && JSON.stringify(l.msg?.id) === JSON.stringify(sent.id),
    ctx.turnTimeout,
    'the session/resume response',
    sent.seq,
  );
  if (line.msg?.error) return;
  const ping = await d.roundTrip(ctx.timeout);
  const isMessage = (m: WireMessage) =>
    isUpdate(m, sid) && /^(user|agent)_(message|thought)/.test(String(updateOf(m)?.sessionUpdate));
  const replay = d.received(sent.seq, line.seq).filter(isMessage);
  const late = d.received(line.seq, ping).filter(isMessage);
  ctx.judge(
    'ACP-V2-RESUME-03',
    late.length === 0,
    `${late.length} replayed message update(s) arrived after the session/resume response; the replay must be complete before it`,
    [line.seq, ...late.map((m) => m.seq)],
  );
  const bare = [...replay, ...late].filter((m) => typeof updateOf(m)?.messageId !== 'string');
  ctx.judge('ACP-V2-RESUME-04', bare.length === 0, `${bare.length} replayed message update(s) have no messageId`, [
    line.seq,
    ...bare.map((m) => m.seq),
  ]);
}

/** The id of a config option: v1 `id`, v2 `configId`. */
const configIdOf = (o: unknown, version: 1 | 2): unknown => at(o, version === 2 ? 'configId' : 'id');

/**
 * session/set_config_option answers the complete option list (ACP-ALL-CFG-05: the v1 page and the
 * v2 schema's `configOptions` "full list"). The checker sets an option to its current value, which
 * every agent must take, so that only the shape of the answer is judged. v1 boolean options need a
 * client capability the checker does not send: only select options are set there.
 */
export const setConfigOption: CheckCase = {
  name: 'sessions/set-config-option',
  title: 'session/set_config_option answers every option',
  ids: ['ACP-ALL-CFG-05'],
  protocols: [1, 2],
  async run(ctx) {
    await ctx.init();
    if (ctx.version === 2 && !ctx.advertises('session')) return ctx.skip('the agent advertises no session capability');
    const n = await ctx.driver.request('session/new', { cwd: ctx.settings.cwd, mcpServers: [] }, ctx.timeout);
    const sid = at(n.result, 'sessionId');
    const options = at(n.result, 'configOptions');
    if (typeof sid !== 'string' || !Array.isArray(options) || options.length === 0)
      return ctx.skip('session/new returned no configOptions');
    const v = ctx.version;
    const target = options.find((o) => at(o, 'type') === 'select' || (v === 2 && at(o, 'type') === 'boolean'));
    if (target === undefined)
      return ctx.skip('no select option to set (v1 boolean options need a capability the checker does not send)');
    const value = at(target, 'currentValue');
    const params = {
      sessionId: sid,
      configId: configIdOf(target, v),
      ...(v === 2 ? { type: at(target, 'type') === 'boolean' ? 'boolean' : 'id' } : {}),
      value,
    };
    const r = await ctx.driver.request('session/set_config_option', params, ctx.timeout);
    if (r.error)
      return ctx.skip(
        `setting option ${JSON.stringify(params.configId)} to its current value ${JSON.stringify(value)} failed (${JSON.stringify(r.error)}); not exercised`,
      );
    const answered = at(r.result, 'configOptions');
    const got = new Set((Array.isArray(answered) ? answered : []).map((o) => configIdOf(o, v)));
    const missing = options.map((o) => configIdOf(o, v)).filter((id) => !got.has(id));
    ctx.judge(
      'ACP-ALL-CFG-05',
      missing.length === 0,
      `session/set_config_option must answer the complete configOptions list; missing ${missing.map((id) => JSON.stringify(id)).join(', ')} (session/new listed ${options.length})`,
      [n.seq, r.seq],
    );
  },
};
