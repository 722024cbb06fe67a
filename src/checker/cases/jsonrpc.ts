import { at } from '../../proxy/json.js';
import type { CheckCase } from '../case.js';

/** Ids are echoed exactly: a string id with non-ASCII text and a large integer. */
export const idsEchoed: CheckCase = {
  name: 'jsonrpc/ids',
  title: 'string and large integer request ids are echoed',
  ids: ['ACP-ALL-RPC-03'],
  protocols: [1, 2],
  async run(ctx) {
    for (const id of ['acp-kit-check:é/1', 9007199254740991]) {
      const sent = ctx.driver.send('initialize', ctx.initializeParams(), id);
      const r = await ctx.driver.waitFor((l) => l.dir === 'in' && l.msg !== undefined && l.msg.method === undefined, ctx.timeout, `the response to initialize with id ${JSON.stringify(id)}`, sent.seq);
      if (!ctx.judge('ACP-ALL-RPC-03', JSON.stringify(r.msg!.id) === JSON.stringify(id), `initialize sent with id ${JSON.stringify(id)} was answered with id ${JSON.stringify(r.msg!.id)}`, [sent.seq, r.seq])) return;
    }
  },
};

/** A notification the agent knows (session/cancel of an unknown session) is never answered. */
export const notificationsUnanswered: CheckCase = {
  name: 'jsonrpc/notifications',
  title: 'notifications are never answered',
  ids: ['ACP-ALL-RPC-02'],
  protocols: [1, 2],
  async run(ctx) {
    await ctx.init();
    const n = ctx.driver.notify('session/cancel', { sessionId: 'acp-kit-check-no-such-session' });
    const ping = await ctx.driver.roundTrip(ctx.timeout);
    const answers = ctx.driver.received(n, ping).filter((m) => m.method === undefined && m.seq !== ping);
    ctx.judge('ACP-ALL-RPC-02', answers.length === 0, 'the agent answered a session/cancel notification', [n, ...answers.map((m) => m.seq)]);
  },
};

/** Requests with omitted params and a line that is not JSON get error answers with a message; the agent lives on. */
export const malformedInput: CheckCase = {
  name: 'jsonrpc/malformed',
  title: 'omitted params, invalid JSON and an unknown method',
  ids: ['ACP-ALL-RPC-04', 'ACP-ALL-RPC-05'],
  protocols: [1, 2],
  async run(ctx) {
    await ctx.init();
    const r = await ctx.driver.request('session/new', undefined, ctx.timeout);
    const message = at(r.error, 'message');
    // a session with defaults or any error will do (the requirement is that reserved codes keep their
    // meaning, not which one is chosen): only "parse error" and "method not found" would say something false
    const code = at(r.error, 'code');
    ctx.judge('ACP-ALL-RPC-05', code !== -32700 && code !== -32601, `session/new without params was answered ${code} (${code === -32700 ? 'parse error' : 'method not found'}), but the line parsed and the method exists; got ${JSON.stringify(r.error)}`, [r.seq]);
    if (r.error) ctx.judge('ACP-ALL-RPC-04', typeof message === 'string' && message.length > 0, 'the error for session/new without params has no message', [r.seq]);
    const bad = ctx.driver.writeRaw('{"jsonrpc":"2.0","id":77,"method":');
    const ping = await ctx.driver.roundTrip(ctx.timeout).catch(() => undefined);
    if (!ctx.judge('ACP-ALL-RPC-05', ping !== undefined, `after a line that is not JSON the agent no longer answers (${ctx.driver.alive ? 'no answer' : ctx.driver.describeExit()})`, [bad])) return;
    const errs = ctx.driver.received(bad, ping).filter((m) => m.method === undefined && m.seq !== ping);
    ctx.judge('ACP-ALL-RPC-05', errs.every((m) => at(m.error, 'code') === -32700), `a line that is not JSON may only be answered with -32700 (parse error); got ${errs.map((m) => JSON.stringify(m.error ?? m.result)).join(', ')}`, [bad, ...errs.map((m) => m.seq)]);
  },
};

/**
 * No batches: an array is one -32600 with id null, and none of it runs. v2 forbids them
 * (`ACP-V2-TRANS-11`, MUST). v1 only says it is JSON-RPC 2.0, whose §6 has batches, but its schema
 * has no batch types and the official SDK refuses arrays in both versions: so under v1 refusing is a
 * SHOULD (`ACP-V1-TRANS-01`), and a JSON-RPC 2.0 batch reply is a warning, not a MUST failure.
 */
export const batchRejected: CheckCase = {
  name: 'jsonrpc/batch',
  title: 'a JSON array (batch) is refused',
  ids: ['ACP-V2-TRANS-11', 'ACP-V1-TRANS-01'],
  protocols: [1, 2],
  async run(ctx) {
    const id = ctx.version === 2 ? 'ACP-V2-TRANS-11' : 'ACP-V1-TRANS-01';
    await ctx.init();
    const seq = ctx.driver.writeRaw(JSON.stringify([{ jsonrpc: '2.0', id: 'acp-kit-check-batched', method: '_acp_kit_check/batched', params: {} }]));
    const ping = await ctx.driver.roundTrip(ctx.timeout);
    const answers = ctx.driver.received(seq, ping).filter((m) => m.method === undefined && m.seq !== ping);
    const ran = answers.filter((m) => m.id === 'acp-kit-check-batched');
    const arrays = ctx.driver.transcript.filter((l) => l.dir === 'in' && l.seq > seq && l.seq < ping && l.raw.trimStart().startsWith('['));
    ctx.judge(
      id,
      ran.length === 0 && arrays.length === 0 && answers.length === 1 && answers[0]!.id === null && at(answers[0]!.error, 'code') === -32600,
      `a batch must be answered with exactly one -32600 error with id null and none of its entries run; got ${[...answers.map((m) => JSON.stringify(m)), ...arrays.map((l) => l.raw)].join(' ') || 'no answer'}`,
      [seq, ...answers.map((m) => m.seq)],
    );
  },
};
