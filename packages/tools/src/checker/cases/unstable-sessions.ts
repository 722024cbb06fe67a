import { randomBytes } from 'node:crypto';
import { at } from '@acp-kit/protocol/internal';
import { advertisedCase, isUpdate, updateOf, type CaseContext } from '../case.js';
import { isError, MISSING_SESSION, replayedUserText } from './unstable-steps.js';
import { canList, entryOf, listAll } from './session-list.js';

/**
 * `session/fork` (unstable; the digest's ACP-V1-FORK-01 is MAY, and the schema: "Creates a new
 * session based on the context of an existing one ... without affecting the original session's
 * history"): after a short turn the fork has a new id, its replayed history is the parent's, and a
 * turn in the fork leaves the parent's history as it was. Without a way to replay history (v1
 * without `loadSession`, a refused replay) only the new id is judged.
 */
export const sessionFork = advertisedCase(
  {
    name: 'unstable/session-fork',
    title: 'session/fork: a new id, the parent history, the parent unchanged',
    ids: ['unstable/session-fork'],
    needs: ['sessionCapabilities.fork', 'session.fork'],
  },
  async (ctx) => {
    const id = 'unstable/session-fork';
    const sid = await ctx.newSession();
    await ctx.turn(sid, ctx.driver, ctx.shortPrompt);
    const before = await replayedUserText(ctx, sid);
    const r = await ctx.driver.request(
      'session/fork',
      { sessionId: sid, cwd: ctx.settings.cwd, mcpServers: [] },
      ctx.timeout,
    );
    const fid = at(r.result, 'sessionId');
    if (
      !ctx.judge(
        id,
        typeof fid === 'string' && fid !== sid,
        `session/fork must answer a new sessionId; got ${JSON.stringify(r.error ?? r.result)} for the session ${sid}`,
        [r.seq],
      ) ||
      typeof fid !== 'string' ||
      before === undefined
    )
      return;
    const forked = await replayedUserText(ctx, fid);
    ctx.judge(
      id,
      forked === before,
      `the fork ${fid} replays the user history ${JSON.stringify(forked)}; its parent's is ${JSON.stringify(before)}`,
      [r.seq],
    );
    await ctx.turn(fid, ctx.driver, ctx.shortPrompt);
    const after = await replayedUserText(ctx, sid);
    ctx.judge(
      id,
      after === before,
      `a turn in the fork ${fid} (session/fork of ${sid}) changed its parent: the parent's user history was ${JSON.stringify(before)}, now ${JSON.stringify(after)}`,
      [r.seq],
    );
  },
);

/**
 * `session/archive` / `session/unarchive` (unstable schema: archiving "hides the session from
 * default `session/list` results", unarchiving "returns the session to default `session/list`
 * results with the same ID", the agent "MUST include" `archived` "on every listed session", a
 * missing session "gets -32002").
 */
export const sessionArchive = advertisedCase(
  {
    name: 'unstable/session-archive',
    title: 'session/archive and session/unarchive move a session out of session/list and back',
    ids: ['unstable/session-archive'],
    needs: ['sessionCapabilities.archive', 'session.archive'],
  },
  async (ctx) => {
    const id = 'unstable/session-archive';
    if (!canList(ctx)) ctx.skip('the agent offers no session/list to see the archive state in');
    const sid = await ctx.newSession();
    // an agent may list only sessions with a conversation (see createdIsListed)
    await ctx.turn(sid, ctx.driver, ctx.shortPrompt);
    const a = await ctx.driver.request('session/archive', { sessionId: sid }, ctx.timeout);
    if (!ctx.judge(id, a.error === undefined, `session/archive failed: ${JSON.stringify(a.error)}`, [a.seq])) return;
    const hidden = await listAll(ctx);
    ctx.judge(
      id,
      entryOf(hidden.sessions, sid) === undefined,
      `after session/archive the session ${sid} is still in the default session/list`,
      [a.seq, ...hidden.seqs],
    );
    const only = await listAll(ctx, { archived: 'only' });
    ctx.judge(
      id,
      at(entryOf(only.sessions, sid), 'archived') === true,
      `session/list with archived "only" does not list the archived session ${sid} with archived: true: ${JSON.stringify(only.error ?? entryOf(only.sessions, sid) ?? null)}`,
      only.seqs,
    );
    const unmarked = [...hidden.sessions, ...only.sessions].filter((s) => typeof at(s, 'archived') !== 'boolean');
    ctx.judge(id, unmarked.length === 0, `${unmarked.length} listed session(s) without a boolean archived field`, [
      ...hidden.seqs,
      ...only.seqs,
    ]);
    const u = await ctx.driver.request('session/unarchive', { sessionId: sid }, ctx.timeout);
    const back = await listAll(ctx);
    ctx.judge(
      id,
      u.error === undefined && at(entryOf(back.sessions, sid), 'archived') === false,
      `after session/unarchive (${JSON.stringify(u.error ?? u.result)}) the default session/list does not show ${sid} with archived: false`,
      [u.seq, ...back.seqs],
    );
    const missing = await ctx.driver.request('session/archive', { sessionId: MISSING_SESSION }, ctx.timeout);
    ctx.judge(
      id,
      isError(missing, -32002),
      `archiving a session that does not exist must get -32002; got ${JSON.stringify(missing.error ?? missing.result)}`,
      [missing.seq],
    );
  },
);

/**
 * `session/set_title` (unstable schema: "The Agent responds only after it has stored the title",
 * answers "The title the Agent stored"; "a title ... empty after normalization" gets -32602): the
 * stored title is then what `session/list` shows for the session, or what a `session_info_update`
 * of it says (for an agent without `session/list`).
 */
export const sessionSetTitle = advertisedCase(
  {
    name: 'unstable/session-title',
    title: 'session/set_title stores the title; session/list or session_info_update shows it',
    ids: ['unstable/session-title'],
    needs: ['sessionCapabilities.title', 'session.title'],
  },
  async (ctx) => {
    const id = 'unstable/session-title';
    const sid = await ctx.newSession();
    await ctx.turn(sid, ctx.driver, ctx.shortPrompt);
    const title = `acp-kit check ${randomBytes(4).toString('hex')}`;
    const r = await ctx.driver.request('session/set_title', { sessionId: sid, title }, ctx.timeout);
    const stored = at(r.result, 'title');
    if (
      !ctx.judge(
        id,
        typeof stored === 'string' && stored.trim() !== '',
        `session/set_title must answer the stored title; got ${JSON.stringify(r.error ?? r.result)}`,
        [r.seq],
      ) ||
      typeof stored !== 'string'
    )
      return;
    await shownTitle(ctx, id, sid, stored, r.seq);
    const empty = await ctx.driver.request('session/set_title', { sessionId: sid, title: '   ' }, ctx.timeout);
    ctx.judge(
      id,
      isError(empty, -32602),
      `a title that is empty after trimming must get -32602; got ${JSON.stringify(empty.error ?? empty.result)}`,
      [empty.seq],
    );
  },
);

/** The title `stored` is what session/list shows for `sid`, or what a session_info_update of it said (before a round trip). */
async function shownTitle(ctx: CaseContext, id: string, sid: string, stored: string, after: number): Promise<void> {
  const ping = await ctx.driver.roundTrip(ctx.timeout);
  const told = ctx.driver
    .received(after - 1, ping)
    .some((m) => isUpdate(m, sid, 'session_info_update') && updateOf(m)?.title === stored);
  const listed = canList(ctx) ? await listAll(ctx) : undefined;
  const shown = at(entryOf(listed?.sessions ?? [], sid), 'title');
  ctx.judge(
    id,
    shown === stored || (listed === undefined && told),
    listed
      ? `session/list shows the title ${JSON.stringify(shown)} for ${sid}; session/set_title stored ${JSON.stringify(stored)}`
      : `no session_info_update of ${sid} carried the stored title ${JSON.stringify(stored)}`,
    [after, ...(listed?.seqs ?? [ping])],
  );
}

/**
 * `session/status` (unstable schema): a session the agent holds answers a `status` (a fresh one,
 * open on this connection: `open`, which "SHOULD include" its `state`); "A session the Agent does
 * not know gets -32002 with the requested sessionId in data".
 */
export const sessionStatus = advertisedCase(
  {
    name: 'unstable/session-status',
    title: 'session/status of a session held and of one unknown',
    ids: ['unstable/session-status'],
    needs: ['sessionCapabilities.status', 'session.status'],
  },
  async (ctx) => {
    const id = 'unstable/session-status';
    const sid = await ctx.newSession();
    const r = await ctx.driver.request('session/status', { sessionId: sid }, ctx.timeout);
    const status = at(r.result, 'status');
    ctx.judge(
      id,
      // v1 has no foreground state to report
      status === 'open' && (ctx.version === 1 || typeof at(r.result, 'state', 'state') === 'string'),
      `session/status of the session ${sid} just made on this connection must answer status "open"${ctx.version === 2 ? ' with its state' : ''}; got ${JSON.stringify(r.error ?? r.result)}`,
      [r.seq],
    );
    const missing = await ctx.driver.request('session/status', { sessionId: MISSING_SESSION }, ctx.timeout);
    ctx.judge(
      id,
      isError(missing, -32002, MISSING_SESSION),
      `session/status of a session the agent does not know must get -32002 with data.sessionId; got ${JSON.stringify(missing.error ?? missing.result)}`,
      [missing.seq],
    );
  },
);
