import { at, isObj } from '@acp-kit/protocol/internal';
import type { CheckCase } from '../case.js';
import { hasMessage, type MessageLine } from '../wire.js';

/** Ids are echoed exactly: a string id with non-ASCII text and a large integer. */
export const idsEchoed: CheckCase = {
  name: 'jsonrpc/ids',
  // its requests are initialize itself, before any other
  ownProcess: true,
  title: 'string and large integer request ids are echoed',
  ids: ['ACP-ALL-RPC-03'],
  protocols: [1, 2],
  async run(ctx) {
    for (const id of ['acp-kit-check:é/1', 9007199254740991]) {
      const sent = ctx.driver.send('initialize', ctx.initializeParams(), id);
      const r = await ctx.driver.waitFor(
        (l): l is MessageLine => l.dir === 'in' && hasMessage(l) && l.msg.method === undefined,
        ctx.timeout,
        `the response to initialize with id ${JSON.stringify(id)}`,
        sent.seq,
      );
      if (
        !ctx.judge(
          'ACP-ALL-RPC-03',
          JSON.stringify(r.msg.id) === JSON.stringify(id),
          `initialize sent with id ${JSON.stringify(id)} was answered with id ${JSON.stringify(r.msg.id)}`,
          [sent.seq, r.seq],
        )
      )
        return;
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
    ctx.judge('ACP-ALL-RPC-02', answers.length === 0, 'the agent answered a session/cancel notification', [
      n,
      ...answers.map((m) => m.seq),
    ]);
  },
};

/** Requests with omitted params and a line that is not JSON get error answers with a message; the agent lives on. */
export const malformedInput: CheckCase = {
  name: 'jsonrpc/malformed',
  // a line that is not JSON may legitimately end the process
  ownProcess: true,
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
    ctx.judge(
      'ACP-ALL-RPC-05',
      code !== -32700 && code !== -32601,
      `session/new without params was answered ${code} (${code === -32700 ? 'parse error' : 'method not found'}), but the line parsed and the method exists; got ${JSON.stringify(r.error)}`,
      [r.seq],
    );
    if (r.error)
      ctx.judge(
        'ACP-ALL-RPC-04',
        typeof message === 'string' && message.length > 0,
        'the error for session/new without params has no message',
        [r.seq],
      );
    const bad = ctx.driver.writeRaw('{"jsonrpc":"2.0","id":77,"method":');
    const ping = await ctx.driver.roundTrip(ctx.timeout).catch(() => undefined);
    if (
      !ctx.judge(
        'ACP-ALL-RPC-05',
        ping !== undefined,
        `after a line that is not JSON the agent no longer answers (${ctx.driver.alive ? 'no answer' : ctx.driver.describeExit()})`,
        [bad],
      )
    )
      return;
    const errs = ctx.driver.received(bad, ping).filter((m) => m.method === undefined && m.seq !== ping);
    ctx.judge(
      'ACP-ALL-RPC-05',
      errs.every((m) => at(m.error, 'code') === -32700),
      `a line that is not JSON may only be answered with -32700 (parse error); got ${errs.map((m) => JSON.stringify(m.error ?? m.result)).join(', ')}`,
      [bad, ...errs.map((m) => m.seq)],
    );
  },
};

/**
 * Batches (`ACP-V2-TRANS-11`, informational in every version): the spec pages keep the JSON-RPC 2.0
 * batch rules and the public conformance kit tests them, while the official TypeScript SDK refuses
 * arrays; so an agent is never failed for either. Accepted: one array holding the entry's response
 * (JSON-RPC 2.0 section 6), or one -32600 with id null and nothing run (the SDK). Anything else
 * (no answer, the reply outside an array, both) is reported under the informational tier.
 */
export const batchBehaviour: CheckCase = {
  name: 'jsonrpc/batch',
  // transport-level input (an array line) that an agent may not survive
  ownProcess: true,
  title: 'a JSON-RPC 2.0 batch is answered per section 6 or refused as a whole (reported, never a failure)',
  ids: ['ACP-V2-TRANS-11'],
  protocols: [1, 2],
  async run(ctx) {
    await ctx.init();
    const seq = ctx.driver.writeRaw(
      JSON.stringify([{ jsonrpc: '2.0', id: 'acp-kit-check-batched', method: '_acp_kit_check/batched', params: {} }]),
    );
    const ping = await ctx.driver.roundTrip(ctx.timeout);
    // answers on lines of their own (the entries of an array line are judged as the array)
    const inBatch = new Set(ctx.driver.transcript.filter((l) => l.batch !== undefined).map((l) => l.seq));
    const answers = ctx.driver
      .received(seq, ping)
      .filter((m) => m.method === undefined && m.seq !== ping && !inBatch.has(m.seq));
    const arrays = ctx.driver.transcript.filter(
      (l) =>
        l.dir === 'in' && l.batch === undefined && l.seq > seq && l.seq < ping && l.raw.trimStart().startsWith('['),
    );
    const refused =
      arrays.length === 0 &&
      answers.length === 1 &&
      answers[0]?.id === null &&
      at(answers[0]?.error, 'code') === -32600;
    const answered =
      answers.length === 0 && arrays.length === 1 && batchAnswers(arrays[0]?.raw ?? '', 'acp-kit-check-batched');
    ctx.judge(
      'ACP-V2-TRANS-11',
      refused || answered,
      `a batch was neither answered with one array holding its response nor refused with one -32600 id null; got ${[...answers.map((m) => JSON.stringify(m)), ...arrays.map((l) => l.raw)].join(' ') || 'no answer'}`,
      [seq, ...answers.map((m) => m.seq), ...arrays.map((l) => l.seq)],
    );
  },
};

/** True when `raw` is a JSON array of responses (no requests or notifications) that answers `id`. */
function batchAnswers(raw: string, id: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return false;
  }
  if (!Array.isArray(parsed)) return false;
  const responses = parsed.filter(
    (e): e is Record<string, unknown> => isObj(e) && e.method === undefined && ('result' in e || 'error' in e),
  );
  return responses.length === parsed.length && responses.some((e) => e.id === id);
}
