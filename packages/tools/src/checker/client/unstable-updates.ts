import { at } from '@acp-kit/protocol/internal';
import type { ClientCase, ClientCaseContext } from './context.js';
import { survives } from './steps.js';

/** One message of the case: what it is (for the report) and how to send it (its seq). */
type Step = readonly [what: string, send: () => number];

const ID = 'unstable/client-updates';

/**
 * What the scripted agent sends, each followed by a round trip: v2 has no client capability for
 * them (its update union is open, ACP-V2-EXT-03), v1 gates `plan_removed` by the client's `plan`
 * and the subagent kinds by its `subagents` (schema.unstable.json), so a v1 client that advertises
 * neither gets only `auth/status_update` (the agent advertises `auth.status` for it).
 */
function steps(ctx: ClientCaseContext, sid: string): Step[] {
  const p = ctx.p;
  const v2 = ctx.version === 2;
  const has = (cap: string) => {
    const v = at(ctx.clientCapabilities, cap);
    return v === true || (typeof v === 'object' && v !== null);
  };
  const out: Step[] = [];
  if (v2 || has('plan')) {
    const planId = 'check-plan-1';
    // v2: a plan first (plan_update is stable there), so the removal names one the client holds
    if (v2)
      p.update(sid, {
        sessionUpdate: 'plan_update',
        plan: { type: 'items', planId, entries: [{ content: 'Check', priority: 'medium', status: 'pending' }] },
      });
    out.push(['plan_removed', () => p.update(sid, { sessionUpdate: 'plan_removed', planId })]);
  }
  if (v2 || has('subagents')) {
    const child = `${sid}-check-subagent`;
    const messageId = 'check-session-message-1';
    out.push(
      [
        'subagent_update',
        () => p.update(sid, { sessionUpdate: 'subagent_update', sessionId: child, title: 'acp-kit check subagent' }),
      ],
      [
        'session_message',
        () =>
          p.update(sid, {
            sessionUpdate: 'session_message',
            messageId,
            senderSessionId: child,
            content: [{ type: 'text', text: 'A message from a subagent.' }],
          }),
      ],
      [
        'session_message_chunk',
        () =>
          p.update(sid, {
            sessionUpdate: 'session_message_chunk',
            messageId,
            content: { type: 'text', text: ' More.' },
          }),
      ],
    );
  }
  // a kind no schema has yet: v2 receivers keep or ignore it (v1's update union is closed)
  if (v2)
    out.push([
      'a future update kind',
      () => p.update(sid, { sessionUpdate: 'acp_kit_check_next_kind', data: { a: 1 } }),
    ]);
  out.push(['auth/status_update', () => p.notify('auth/status_update', { state: 'authenticated' })]);
  return out;
}

/**
 * The unstable update kinds (`plan_removed`, `session_message`, `session_message_chunk`,
 * `subagent_update`), a future kind and `auth/status_update`: "newer update kinds rejected" is a
 * pain users report. Each is followed by a round trip that proves the client read it and still
 * answers; the turn then ends as usual. The rule is the unstable tier's: reported, never in the verdict.
 */
export const clientUnstableUpdates: ClientCase = {
  name: 'client/unstable-updates',
  title: 'plan_removed, session_message(_chunk), subagent_update, a future kind and auth/status_update',
  ids: [ID],
  protocols: [1, 2],
  async run(ctx) {
    await ctx.launch();
    await ctx.handshake(ctx.version, { auth: { status: {} } });
    const sid = await ctx.openSession();
    const req = await ctx.startTurn(sid);
    const taken: string[] = [];
    for (const [what, send] of steps(ctx, sid)) {
      const seq = send();
      if (!(await survives(ctx, ID, what, () => ctx.ping(), [seq]))) return;
      taken.push(what);
    }
    ctx.pass(ID, `the client took ${taken.join(', ')} and answered a round trip after each`);
    ctx.say(sid, 'Done.');
    ctx.endTurn(req, sid);
  },
};
