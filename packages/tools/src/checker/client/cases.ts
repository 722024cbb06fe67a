import { existsSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { validateElicitationContent } from '@acp-kit/client';
import { getValidator, type ElicitationSchema } from '@acp-kit/protocol';
import { at } from '@acp-kit/protocol/internal';
import { WaitTimeout, type TranscriptLine } from '../driver.js';
import { ClientSetupError, type ClientCase } from './context.js';
import { ClientGone } from './peer.js';
import { intoTurn, pendingToolCall, survives } from './steps.js';
import { clientTerminalKillWait, clientTerminalRelease } from './terminal-cases.js';
import { clientWithdrawnRequest } from './withdrawn-request.js';
import { clientUnstableUpdates } from './unstable-updates.js';

/**
 * A plain turn; the agent's own requests use a string id and a number id, which the client must
 * echo exactly, and name a method no client has (-32601).
 */
export const clientBasic: ClientCase = {
  name: 'client/basic',
  title: 'a plain turn; string and number ids',
  ids: ['ACP-ALL-RPC-03', 'ACP-ALL-EXT-05'],
  protocols: [1, 2],
  async run(ctx) {
    const { sid, req } = await intoTurn(ctx);
    ctx.say(sid, 'Hello from the acp-kit check scripted agent.');
    await ctx.ping(ctx.id('ping'));
    await ctx.ping(7_000_001);
    ctx.endTurn(req, sid);
  },
};

/**
 * The client offers v2 and the agent answers v1: the client either disconnects or carries on in
 * pure v1 (everything it sends afterwards is checked against the v1 schema).
 */
export const clientNegotiateDown: ClientCase = {
  name: 'client/negotiate-v1',
  title: 'a v2 offer answered with v1',
  ids: ['ACP-V2-INIT-03'],
  protocols: [2],
  async run(ctx) {
    await ctx.launch();
    const init = await ctx.handshake(1);
    let sid: string;
    try {
      sid = await ctx.openSession();
    } catch (e) {
      // disconnecting is the other correct answer to a version it does not speak
      if (e instanceof ClientSetupError && e.gone) return ctx.pass('ACP-V2-INIT-03', 'the client disconnected');
      throw e;
    }
    const req = await ctx.startTurn(sid);
    ctx.say(sid, 'Hello from a v1 agent.');
    await ctx.ping();
    ctx.endTurn(req, sid);
    const mixed = ctx.p.findings.filter((f) => f.id === 'schema/v1');
    const v2Only = ctx.p.transcript.flatMap((l) => {
      const method = l.msg?.method;
      return l.dir === 'in' &&
        l.seq > init.seq &&
        typeof method === 'string' &&
        !getValidator(1).knows(method) &&
        !method.startsWith('_')
        ? [{ seq: l.seq, method }]
        : [];
    });
    ctx.judge(
      'ACP-V2-INIT-03',
      mixed.length === 0 && v2Only.length === 0,
      `the client asked for v2, got v1 and then sent what v1 does not have: ${[...mixed.map((f) => f.message), ...v2Only.map((l) => `method ${l.method}`)].join('; ')}`,
      [...mixed.flatMap((f) => f.seqs), ...v2Only.map((l) => l.seq)],
    );
  },
};

/** A line on the agent's stdout that is not JSON (a stray log line): the client must carry on. */
export const clientNonJsonLine: ClientCase = {
  name: 'client/non-json-line',
  title: 'a non-JSON line on the agent stdout during a turn',
  ids: ['ACP-ALL-TRANS-05'],
  protocols: [1, 2],
  async run(ctx) {
    const { sid, req } = await intoTurn(ctx);
    const seq = ctx.p.writeRaw('acp-kit check: this log line on stdout is not JSON');
    if (!(await survives(ctx, 'ACP-ALL-TRANS-05', 'a non-JSON line on the agent stdout', () => ctx.ping(), [seq])))
      return;
    ctx.pass('ACP-ALL-TRANS-05');
    ctx.say(sid, 'Still here.');
    ctx.endTurn(req, sid);
  },
};

/**
 * `_meta` everywhere, a custom notification, and (v2) update kinds the client cannot know: each
 * is followed by a round trip that proves the client read it and carries on.
 */
export const clientUnknownUpdates: ClientCase = {
  name: 'client/unknown-updates',
  title: '_meta, custom notifications and unknown update kinds',
  ids: ['ACP-ALL-EXT-02', 'ACP-ALL-EXT-06', 'ACP-V2-EXT-03'],
  protocols: [1, 2],
  async run(ctx) {
    const { sid, req } = await intoTurn(ctx);
    const p = ctx.p;
    const meta = {
      'acp-kit-check/meta': { nested: [1, null, { deep: 'value' }] },
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    };
    const chunk: Record<string, unknown> = {
      sessionUpdate: 'agent_message_chunk',
      content: { type: 'text', text: 'Text with _meta. ', _meta: meta },
      _meta: meta,
    };
    if (ctx.version === 2) chunk.messageId = 'check-meta-1';
    const s1 = p.update(sid, chunk, { _meta: meta });
    if (!(await survives(ctx, 'ACP-ALL-EXT-02', 'updates carrying _meta', () => ctx.ping(), [s1]))) return;
    ctx.pass('ACP-ALL-EXT-02');
    const s2 = p.notify('_acp_kit_check/notice', {
      sessionId: sid,
      note: 'a custom notification no client knows',
      _meta: meta,
    });
    if (!(await survives(ctx, 'ACP-ALL-EXT-06', 'a custom notification', () => ctx.ping(), [s2]))) return;
    ctx.pass('ACP-ALL-EXT-06');
    if (ctx.version === 2) {
      const s3 = p.update(sid, { sessionUpdate: 'acp_kit_check_future_kind', something: { a: 1 } });
      const s4 = p.update(sid, { sessionUpdate: '_acp_kit_check_custom', payload: [1, 2, 3] });
      if (!(await survives(ctx, 'ACP-V2-EXT-03', 'session updates of unknown kinds', () => ctx.ping(), [s3, s4])))
        return;
      ctx.pass('ACP-V2-EXT-03');
    }
    ctx.say(sid, 'Done.');
    ctx.endTurn(req, sid);
  },
};

/**
 * A permission request is pending when the checker presses Ctrl-C (SIGINT to the client's process
 * group); once the client cancels, the agent asks once more for the cancelled turn (as an agent
 * that had not yet seen the cancel does). Every permission request of the cancelled turn must be
 * answered `cancelled`: not an error, not a choice.
 */
export const clientCancelPermission: ClientCase = {
  name: 'client/cancel-permission',
  title: 'Ctrl-C while a permission request is pending',
  ids: ['ACP-ALL-PERM-03', 'ACP-V1-CANCEL-03'],
  protocols: [1, 2],
  async run(ctx) {
    const { sid, req } = await intoTurn(ctx);
    const p = ctx.p;
    const toolCallId = 'check-tool-1';
    const params = pendingToolCall(ctx, sid, toolCallId);
    const idA = ctx.id('permission');
    const seqA = p.send('session/request_permission', params, idA);
    // once this is answered the client has read the permission request
    await ctx.ping();
    const answer = (id: string, after: number) => (l: TranscriptLine) =>
      l.dir === 'in' && l.seq > after && l.msg?.method === undefined && l.msg?.id === id;
    ctx.interrupt();
    let cancelSeq: number;
    try {
      cancelSeq = (
        await p.waitFor(
          (l) => l.dir === 'in' && l.msg?.method === 'session/cancel' && l.msg.id === undefined,
          ctx.timeout,
          'session/cancel after Ctrl-C',
          seqA,
        )
      ).seq;
    } catch (e) {
      if (e instanceof ClientGone || e instanceof WaitTimeout)
        ctx.skip(
          `the client did not send session/cancel after Ctrl-C (SIGINT to its process group): ${e.message}; the case needs a client that cancels the turn on Ctrl-C`,
        );
      throw e;
    }
    const idB = ctx.id('permission');
    const seqB = p.send('session/request_permission', params, idB);
    // the client writes in order: an answer to A before its session/cancel is already in the transcript
    const answeredA = p.transcript.find(answer(idA, seqA));
    const pendingAtCancel = !answeredA || answeredA.seq > cancelSeq;
    const answered = (line: TranscriptLine) =>
      line.msg?.error !== undefined
        ? `the JSON-RPC error ${JSON.stringify(line.msg.error)}`
        : `outcome ${JSON.stringify(at(line.msg, 'result', 'outcome'))}`;
    // sent after the cancel, so no passive rule knows it belongs to the cancelled turn: judged here
    const judgeAnswer = async (id: string, sent: number, ids: string[], what: string) => {
      const line = await p.waitFor(answer(id, sent), ctx.timeout, `the answer to the ${what}`, sent);
      const outcome = at(line.msg, 'result', 'outcome', 'outcome');
      for (const rid of ids)
        ctx.judge(
          rid,
          line.msg?.error === undefined && outcome === 'cancelled',
          `the ${what} was answered with ${answered(line)}; after the client cancelled the turn it must be {outcome: "cancelled"}`,
          [cancelSeq, sent, line.seq],
        );
    };
    if (pendingAtCancel) {
      // pending at the cancel: the capture validator's rule, read off the transcript once the answer is in
      const line = await p.waitFor(
        answer(idA, seqA),
        ctx.timeout,
        'the answer to the permission request pending at session/cancel',
        seqA,
      );
      const broken = p
        .violationsOf('permission-pending-after-cancel', line.seq - 1, line.seq)
        .filter((v) => v.seqs[0] === seqA);
      for (const rid of ctx.version === 1 ? ['ACP-ALL-PERM-03', 'ACP-V1-CANCEL-03'] : ['ACP-ALL-PERM-03'])
        ctx.judge(
          rid,
          broken.length === 0,
          `the permission request pending at session/cancel was answered with ${answered(line)}; after the client cancelled the turn it must be {outcome: "cancelled"}`,
          [cancelSeq, seqA, line.seq],
        );
    }
    await judgeAnswer(
      idB,
      seqB,
      ['ACP-ALL-PERM-03'],
      'permission request of the cancelled turn sent after session/cancel',
    );
    p.update(sid, {
      sessionUpdate: 'tool_call_update',
      toolCallId,
      status: ctx.version === 1 ? 'failed' : 'cancelled',
    });
    ctx.endTurn(req, sid, 'cancelled');
  },
};

/**
 * v2 updates that arrive before the session/new response: the client must keep them. Observable
 * only through what the client prints: judged when the client shows the turn's text; when it
 * shows no agent text at all the case is informational.
 */
export const clientEarlyUpdates: ClientCase = {
  name: 'client/early-updates',
  title: 'updates before the session/new response (observed on the client stdout)',
  ids: ['ACP-V2-SESS-05'],
  protocols: [2],
  async run(ctx) {
    await ctx.launch();
    await ctx.handshake();
    const early = `EARLY-${ctx.token.slice(-6)}`;
    const turn = `TURN-${ctx.token.slice(-6)}`;
    let earlySeq = 0;
    const sid = await ctx.openSession((sessionId) => {
      earlySeq = ctx.p.update(sessionId, {
        sessionUpdate: 'agent_message',
        messageId: 'check-early-1',
        content: [{ type: 'text', text: `${early} (sent before the session/new response)` }],
      });
    });
    const req = await ctx.startTurn(sid);
    ctx.say(sid, `${turn} `);
    await ctx.ping();
    ctx.endTurn(req, sid);
    await ctx.waitExit(ctx.timeout);
    if (!ctx.stdout.includes(turn))
      ctx.skip(
        'informational: the client printed no agent text on stdout, so whether it kept the early update is not observable',
      );
    ctx.judge(
      'ACP-V2-SESS-05',
      ctx.stdout.includes(early),
      `the client printed the turn's text but not the agent message that arrived before the session/new response (it dropped it)`,
      [earlySeq],
    );
  },
};

/**
 * v2 message upserts: a full `content` replaces (chunks included), `null` and `[]` clear. No
 * request of the agent's has an answer that depends on the client's message state (v2 has no fs
 * or terminal methods), so it is observable only when the client prints the final state. The
 * first text (`OLD`) is in no correct final state and every streaming client prints it: when it
 * shows, the client streams and the case is informational; otherwise each stale text left is the
 * rule it breaks (a chunk outliving a full replacement: MSG-03; a `null` or `[]` that did not
 * clear: MSG-04).
 */
export const clientUpserts: ClientCase = {
  name: 'client/upserts',
  title: 'v2 message upserts, replacements and null clears (observed on the client stdout)',
  ids: ['ACP-V2-MSG-03', 'ACP-V2-MSG-04'],
  protocols: [2],
  async run(ctx) {
    const { sid, req } = await intoTurn(ctx);
    const p = ctx.p;
    const tag = ctx.token.slice(-6);
    const text = (t: string) => [{ type: 'text', text: t }];
    const first = p.update(sid, {
      sessionUpdate: 'agent_message',
      messageId: 'check-m1',
      content: text(`OLD-${tag} `),
    });
    const chunk = p.update(sid, {
      sessionUpdate: 'agent_message_chunk',
      messageId: 'check-m1',
      content: { type: 'text', text: `OLDCHUNK-${tag} ` },
    });
    p.update(sid, { sessionUpdate: 'agent_message', messageId: 'check-m1', content: text(`NEW-${tag} `) });
    p.update(sid, { sessionUpdate: 'agent_message', messageId: 'check-m2', content: text(`GONE-${tag} `) });
    const cleared = p.update(sid, { sessionUpdate: 'agent_message', messageId: 'check-m2', content: null });
    p.update(sid, { sessionUpdate: 'agent_message', messageId: 'check-m3', content: text(`EMPTIED-${tag} `) });
    const last = p.update(sid, { sessionUpdate: 'agent_message', messageId: 'check-m3', content: [] });
    if (!(await survives(ctx, 'ACP-V2-MSG-03', 'message upserts', () => ctx.ping(), [first, last]))) return;
    ctx.endTurn(req, sid);
    await ctx.waitExit(ctx.timeout);
    const out = ctx.stdout;
    if (!out.includes(`NEW-${tag}`))
      ctx.skip(
        'informational: the client printed no agent message text on stdout, so its message state is not observable',
      );
    if (out.includes(`OLD-${tag} `))
      ctx.skip(
        `informational: the client prints messages as they stream (it showed OLD-${tag}, the text that was replaced), so its final message state is not observable`,
      );
    const shown = (t: string) => out.includes(`${t}-${tag}`);
    ctx.judge(
      'ACP-V2-MSG-03',
      !shown('OLDCHUNK'),
      `the client's final text still shows OLDCHUNK-${tag}, a chunk of message check-m1 that a later full content replaced`,
      [chunk],
    );
    const kept = ['GONE', 'EMPTIED'].filter(shown);
    ctx.judge(
      'ACP-V2-MSG-04',
      kept.length === 0,
      `the client's final text still shows ${kept.map((t) => `${t}-${tag}`).join(' and ')}, cleared by ${kept.map((t) => (t === 'GONE' ? 'content: null' : 'content: []')).join(' and ')}`,
      [cleared, last],
    );
  },
};

/**
 * v1 fs/* when the client advertises it: reads and writes outside the session cwd (an absolute
 * path, a `..` path, a symlink inside the cwd pointing out) must be refused.
 */
export const clientFsRoots: ClientCase = {
  name: 'client/fs-roots',
  title: 'fs/* outside the session roots (v1, when the client advertises fs)',
  ids: ['ACP-V1-FS-05'],
  protocols: [1],
  async run(ctx) {
    const { sid, req } = await intoTurn(ctx);
    const fs = ctx.clientCapabilities.fs;
    const canRead = at(fs, 'readTextFile') === true;
    const canWrite = at(fs, 'writeTextFile') === true;
    if (!canRead && !canWrite) ctx.skip('the client does not advertise fs.readTextFile or fs.writeTextFile');
    const cwd = ctx.sessionCwd;
    if (!cwd) return ctx.skip('session/new carried no cwd');
    const outside = realpathSync(mkdtempSync(join(tmpdir(), 'acp-kit-check-outside-')));
    ctx.cleanups.push(() => rmSync(outside, { recursive: true, force: true }));
    const secret = `SECRET-${ctx.token.slice(-6)}`;
    writeFileSync(join(outside, 'secret.txt'), `${secret}\n`);
    const paths = [join(outside, 'secret.txt'), `${cwd}/${relative(cwd, join(outside, 'secret.txt'))}`];
    // a symlink only where the checker owns the directory (the client's scratch cwd)
    if (ctx.ownsCwd && realpathSync(cwd) === realpathSync(ctx.clientCwd)) {
      const link = join(cwd, 'acp-kit-check-link');
      symlinkSync(outside, link);
      ctx.cleanups.push(() => rmSync(link, { force: true }));
      paths.push(join(link, 'secret.txt'));
    }
    const p = ctx.p;
    if (canRead) {
      for (const path of paths) {
        const r = await p.request('fs/read_text_file', { sessionId: sid, path }, ctx.id('read'), ctx.timeout);
        const leaked = JSON.stringify(r.result ?? '').includes(secret);
        ctx.judge(
          'ACP-V1-FS-05',
          !leaked,
          `fs/read_text_file of ${path}, outside the session cwd ${cwd}, returned the file's content; it must be refused`,
          [r.seq],
        );
      }
    }
    if (canWrite) {
      for (const [i, path] of paths.entries()) {
        const file = path.replace(/secret\.txt$/, `written-${i}.txt`);
        const r = await p.request(
          'fs/write_text_file',
          { sessionId: sid, path: file, content: 'written by acp-kit check' },
          ctx.id('write'),
          ctx.timeout,
        );
        const written = existsSync(join(outside, `written-${i}.txt`));
        ctx.judge(
          'ACP-V1-FS-05',
          !written && r.error !== undefined,
          `fs/write_text_file of ${file}, outside the session cwd ${cwd}, ${written ? 'wrote the file' : 'was answered with success'}; it must be refused`,
          [r.seq],
        );
      }
    }
    ctx.endTurn(req, sid);
  },
};

const SIZE_FORM: ElicitationSchema = {
  type: 'object',
  properties: {
    size: { type: 'string', title: 'Size', enum: ['small', 'large'] },
    count: { type: 'integer', minimum: 1, maximum: 9 },
  },
  required: ['size'],
};

/**
 * A client that advertises form elicitation answers one (ACP-ALL-ELIC-07): `accept` with content
 * that fits the requested schema, `decline` or `cancel`, never an error. Whether the user could
 * decline or cancel is not visible on the wire, so it is not judged.
 */
export const clientElicitation: ClientCase = {
  name: 'client/elicitation',
  title: 'a form elicitation (when the client advertises elicitation.form)',
  ids: ['ACP-ALL-ELIC-07'],
  protocols: [1, 2],
  async run(ctx) {
    const { sid, req } = await intoTurn(ctx);
    const form = at(ctx.clientCapabilities, 'elicitation', 'form');
    if (form === undefined || form === null) ctx.skip('the client does not advertise elicitation.form');
    const params = { sessionId: sid, mode: 'form', message: 'Which size?', requestedSchema: SIZE_FORM };
    // a person may be answering: a turn's time, not one answer's
    const r = await ctx.p.request('elicitation/create', params, ctx.id('elicit'), ctx.timeout * 4);
    const action = at(r.result, 'action');
    const checked =
      action === 'accept' ? validateElicitationContent(SIZE_FORM, at(r.result, 'content') ?? {}) : undefined;
    const problem =
      r.error !== undefined
        ? `was answered with an error (${JSON.stringify(r.error)}) though the client advertises form mode`
        : action !== 'accept' && action !== 'decline' && action !== 'cancel'
          ? `was answered with action ${JSON.stringify(action)}`
          : checked && !checked.ok
            ? `was accepted with content that does not fit the requested schema: ${checked.problems.join('; ')}`
            : undefined;
    // an off-schema accept is also the wire rule's finding (elicitation-answer-off-schema): judged there
    if (!checked || checked.ok)
      ctx.judge('ACP-ALL-ELIC-07', problem === undefined, `elicitation/create ${problem ?? ''}`, [r.seq]);
    ctx.endTurn(req, sid);
  },
};

/**
 * elicitation/complete, which a client must take quietly for an id it no longer waits on (ACP-ALL-
 * ELIC-09): after a url elicitation is answered, the checker completes it twice (the second time
 * the id is already completed), then a request proves the client read both, is alive and answered
 * neither notification.
 */
export const clientElicitationComplete: ClientCase = {
  name: 'client/elicitation-complete',
  title: 'elicitation/complete of a finished url elicitation, twice (when the client advertises elicitation.url)',
  ids: ['ACP-ALL-ELIC-09'],
  protocols: [1, 2],
  async run(ctx) {
    const { sid, req } = await intoTurn(ctx);
    const url = at(ctx.clientCapabilities, 'elicitation', 'url');
    if (url === undefined || url === null) ctx.skip('the client does not advertise elicitation.url');
    const elicitationId = ctx.id('url-elicitation');
    const params = {
      sessionId: sid,
      mode: 'url',
      message: 'Sign in to the example service',
      url: 'https://example.com/acp-kit-check/consent',
      elicitationId,
    };
    const r = await ctx.p.request('elicitation/create', params, ctx.id('elicit-url'), ctx.timeout * 4);
    if (r.error !== undefined) ctx.skip(`the client refused the url elicitation: ${JSON.stringify(r.error)}`);
    const first = ctx.p.notify('elicitation/complete', { elicitationId });
    ctx.p.notify('elicitation/complete', { elicitationId });
    let answered = 0;
    const alive = await survives(
      ctx,
      'ACP-ALL-ELIC-09',
      'two elicitation/complete notifications',
      async () => (answered = await ctx.ping()),
      [r.seq, first],
    );
    if (!alive) return;
    const replies = ctx.p.transcript.filter(
      (l) => l.dir === 'in' && l.seq > first && l.seq < answered && l.msg !== undefined && l.msg.method === undefined,
    );
    ctx.judge(
      'ACP-ALL-ELIC-09',
      replies.length === 0,
      `the client answered an elicitation/complete notification: ${replies.map((l) => l.raw.slice(0, 120)).join('; ')}`,
      [first, ...replies.map((l) => l.seq)],
    );
    ctx.endTurn(req, sid);
  },
};

/** Every client case, in report order. */
export const CLIENT_CASES: readonly ClientCase[] = [
  clientBasic,
  clientNegotiateDown,
  clientNonJsonLine,
  clientUnknownUpdates,
  clientUnstableUpdates,
  clientCancelPermission,
  clientEarlyUpdates,
  clientUpserts,
  clientFsRoots,
  clientTerminalRelease,
  clientTerminalKillWait,
  clientElicitation,
  clientElicitationComplete,
  clientWithdrawnRequest,
];
