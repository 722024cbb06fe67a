import { at } from '@acp-kit/protocol/internal';
import { isUpdate, updateOf, type CheckCase } from '../case.js';
import type { AgentDriver, WireMessage } from '../driver.js';
import type { Violation } from '../../captures/violation.js';

const V1_STOP = new Set(['end_turn', 'max_tokens', 'max_turn_requests', 'refusal', 'cancelled']);
const V2_STOP = new Set([...V1_STOP, 'error']);
/** v1 updates that belong to a turn (mode or command updates may come any time). */
export const V1_TURN_UPDATES = new Set([
  'agent_message_chunk',
  'agent_thought_chunk',
  'tool_call',
  'tool_call_update',
  'plan',
  'user_message_chunk',
]);
/** v2 updates that belong to foreground work. */
export const V2_WORK_UPDATES = new Set([
  'agent_message_chunk',
  'agent_thought_chunk',
  'agent_message',
  'agent_thought',
  'tool_call_update',
  'plan_update',
]);

/** A v1 prompt turn: updates while pending, one response with a known stop reason, nothing after it. */
export const promptTurnV1: CheckCase = {
  name: 'prompt-v1/turn',
  title: 'one prompt turn',
  ids: ['ACP-V1-PROMPT-03', 'ACP-V1-STOP-01'],
  protocols: [1],
  async run(ctx) {
    await ctx.init();
    const sid = await ctx.newSession();
    const t = await ctx.turn(sid);
    if (t.response.error)
      return ctx.fail('ACP-V1-PROMPT-03', `session/prompt failed: ${JSON.stringify(t.response.error)}`, [
        t.response.seq,
      ]);
    if (
      !ctx.judge(
        'ACP-V1-STOP-01',
        typeof t.stopReason === 'string' && V1_STOP.has(t.stopReason),
        `stopReason ${JSON.stringify(t.stopReason)} is not one of ${[...V1_STOP].join(', ')}`,
        [t.response.seq],
      )
    )
      return;
    // the stimulus is the turn and a round trip after it; the rule is the capture validator's
    const ping = await ctx.driver.roundTrip(ctx.timeout);
    const late = lateUpdates(
      ctx.driver,
      ctx.driver
        .violationsOf('update-after-prompt-response', t.response.seq, ping)
        .filter((v) => v.seqs[1] === t.response.seq),
    );
    ctx.judge(
      'ACP-V1-PROMPT-03',
      late.length === 0,
      `${late.length} update(s) of the turn (${late.map((m) => updateOf(m)?.sessionUpdate).join(', ')}) arrived after the session/prompt response ended it`,
      [t.response.seq, ...late.map((m) => m.seq)],
    );
    observed(ctx, 1);
  },
};

/** The v2 prompt lifecycle: {messageId} answer, user-message echo, running, idle with a stop reason. */
export const promptLifecycleV2: CheckCase = {
  name: 'lifecycle-v2/prompt',
  title: 'one prompt through its lifecycle',
  ids: ['ACP-V2-LIFE-03', 'ACP-V2-LIFE-04', 'ACP-V2-LIFE-05', 'ACP-V2-LIFE-06', 'ACP-V2-STOP-01'],
  protocols: [2],
  async run(ctx) {
    await ctx.init();
    const sid = await ctx.newSession();
    const t = await ctx.turn(sid);
    if (t.response.error)
      return ctx.fail('ACP-V2-LIFE-03', `session/prompt failed: ${JSON.stringify(t.response.error)}`, [t.response.seq]);
    const messageId = at(t.response.result, 'messageId');
    ctx.judge(
      'ACP-V2-LIFE-03',
      typeof messageId === 'string',
      `the session/prompt result must be {messageId}; got ${JSON.stringify(t.response.result)}`,
      [t.response.seq],
    );
    const turn = ctx.driver.received(t.promptSeq, t.endSeq).filter((m) => isUpdate(m, sid));
    const echo = turn.filter((m) =>
      ['user_message', 'user_message_chunk'].includes(String(updateOf(m)?.sessionUpdate)),
    );
    ctx.judge(
      'ACP-V2-LIFE-04',
      echo.some((m) => updateOf(m)?.messageId === messageId),
      `no user_message or user_message_chunk with the prompt's messageId ${JSON.stringify(messageId)} arrived before idle${echo.length ? ` (echoes had ${echo.map((m) => JSON.stringify(updateOf(m)?.messageId)).join(', ')})` : ''}`,
      [t.response.seq, t.endSeq],
    );
    const running = turn.find((m) => updateOf(m)?.sessionUpdate === 'state_update' && updateOf(m)?.state === 'running');
    ctx.judge('ACP-V2-LIFE-05', running !== undefined, 'no running state_update arrived between the prompt and idle', [
      t.promptSeq,
      t.endSeq,
    ]);
    ctx.judge('ACP-V2-LIFE-06', true, '');
    ctx.judge(
      'ACP-V2-STOP-01',
      typeof t.stopReason === 'string' && (V2_STOP.has(t.stopReason) || t.stopReason.startsWith('_')),
      `idle stopReason ${JSON.stringify(t.stopReason)} is neither a known stop reason nor a custom one starting with _`,
      [t.endSeq],
    );
    // the work's output ends with idle: nothing of it afterwards (proved by a round trip; judged by the capture validator)
    const ping = await ctx.driver.roundTrip(ctx.timeout);
    const late = ctx.driver.violationsOf('update-after-idle', t.endSeq, ping).filter((v) => v.seqs[0] === t.endSeq);
    if (late.length)
      ctx.fail('ACP-V2-LIFE-06', `${late.length} update(s) of the finished work arrived after its idle state_update`, [
        t.endSeq,
        ...late.flatMap((v) => v.seqs.slice(-1)),
      ]);
    observed(ctx, 2);
  },
};

/** A prompt for a session that does not exist: -32002 with data.sessionId. */
export const promptUnknownSessionV2: CheckCase = {
  name: 'lifecycle-v2/unknown-session',
  title: 'session/prompt for an unknown session',
  ids: ['ACP-V2-RPC-01'],
  protocols: [2],
  async run(ctx) {
    await ctx.init();
    if (!ctx.advertises('session')) ctx.skip('the agent advertises no session capability');
    const sid = 'acp-kit-check-no-such-session';
    const r = await ctx.driver.request('session/prompt', ctx.promptParams(sid, 'hello'), ctx.timeout);
    ctx.judge(
      'ACP-V2-RPC-01',
      at(r.error, 'code') === -32002 && at(r.error, 'data', 'sessionId') === sid,
      `session/prompt for an unknown session must fail with -32002 and data {sessionId}; got ${JSON.stringify(r.error ?? r.result)}`,
      [r.seq],
    );
  },
};

/** The received messages at the seqs where `violations` were found (the last seq of each). */
export function lateUpdates(
  driver: AgentDriver,
  violations: readonly Violation[],
): Array<WireMessage & { seq: number }> {
  const seqs = new Set(violations.flatMap((v) => v.seqs.slice(-1)));
  return driver.received().filter((m) => seqs.has(m.seq));
}

/**
 * Marks the update-shape requirements a turn exercised as checked (failures come from the driver):
 * the updates of this case (`since`: where it began on a shared process).
 */
export function observed(
  ctx: { driver: { received(after?: number): WireMessage[] }; since: number; pass(id: string): void },
  version: 1 | 2,
): void {
  const kinds = new Set(ctx.driver.received(ctx.since).map((m) => String(updateOf(m)?.sessionUpdate ?? '')));
  if (version === 2) {
    if (
      [
        'agent_message_chunk',
        'agent_thought_chunk',
        'user_message_chunk',
        'user_message',
        'agent_message',
        'agent_thought',
      ].some((k) => kinds.has(k))
    )
      ctx.pass('ACP-V2-MSG-01');
    if (kinds.has('plan_update')) ctx.pass('ACP-V2-PLAN-01');
    if (kinds.has('tool_call_update')) ctx.pass('ACP-V2-TOOL-02');
  } else {
    if (kinds.has('plan')) ctx.pass('ACP-V1-PLAN-01');
    if (kinds.has('tool_call')) ctx.pass('ACP-V1-TOOL-01');
  }
}
/** A 1x1 transparent PNG: the smallest image any agent that takes images can read. */
const PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

/**
 * An agent that advertises image prompts takes a prompt with an image block: an advertised
 * capability is supported (v1: `promptCapabilities.image: true`, ACP-V1-CAP-02; v2:
 * `session.prompt.image` present, ACP-V2-CAP-01). A text turn runs first, so that an agent that
 * fails every prompt (no model, no key) is not reported for images.
 */
export const imagePrompt: CheckCase = {
  name: 'prompt/image',
  title: 'an advertised image prompt is taken',
  ids: ['ACP-V1-CAP-02', 'ACP-V2-CAP-01'],
  protocols: [1, 2],
  async run(ctx) {
    await ctx.init();
    const path = ctx.version === 2 ? 'session.prompt.image' : 'promptCapabilities.image';
    if (!ctx.advertises(path)) return ctx.skip(`the agent does not advertise ${path}`);
    const sid = await ctx.newSession();
    const text = await ctx.turn(sid, ctx.driver, ctx.shortPrompt);
    if (text.response.error)
      return ctx.skip(`a text prompt fails too (${JSON.stringify(text.response.error)}); images not exercised`);
    const t = await ctx.turn(sid, ctx.driver, ctx.shortPrompt, [
      { type: 'image', mimeType: 'image/png', data: PIXEL_PNG },
    ]);
    const id = ctx.version === 2 ? 'ACP-V2-CAP-01' : 'ACP-V1-CAP-02';
    ctx.judge(
      id,
      t.response.error === undefined,
      `the agent advertises ${path} but refused a prompt with an image block: ${JSON.stringify(t.response.error)}`,
      [t.response.seq],
    );
  },
};
