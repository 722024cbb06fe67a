/**
 * `acp-kit run` renders the unstable subagent kinds: a subagent is announced, its own session's
 * messages are indented under the parent's, an inter-session message shows sender -> recipient
 * and grows with its `session_message_chunk`s, a removed plan (`plan_removed`) is named,
 * and `--json` carries the child's updates with `parentSessionId`. Real processes: the CLI (dist)
 * spawns the scripted e2e agent, which sends the child's updates under the child's session id.
 */
import { describe, expect, it } from 'vitest';
import { E2E_AGENT } from './support/e2e.js';
import { cliEnv, ndjson, runCli } from './fixtures/cli-helpers.js';

const text = (t: string) => ({ type: 'text', text: t });
const send = (update: Record<string, unknown>) => ({ send: update });
const child = (sessionId: string, update: Record<string, unknown>) => ({
  clientNotify: 'session/update',
  params: { sessionId, update },
});
const SCRIPT = JSON.stringify({
  actions: [
    send({ sessionUpdate: 'agent_message_chunk', messageId: 'm0', content: text('Delegating.\n') }),
    send({ sessionUpdate: 'subagent_update', sessionId: 'child-1', title: 'Searcher', state: { state: 'running' } }),
    child('child-1', {
      sessionUpdate: 'agent_message_chunk',
      messageId: 'c1',
      content: text('child line one\nchild '),
    }),
    child('child-1', { sessionUpdate: 'agent_message_chunk', messageId: 'c1', content: text('line two') }),
    send({
      sessionUpdate: 'session_message',
      messageId: 'sm1',
      senderSessionId: 'child-1',
      recipientSessionId: 'parent',
      content: [text('found 3 files')],
    }),
    // streamed on: the chunk extends the same session message under its heading
    send({ sessionUpdate: 'session_message_chunk', messageId: 'sm1', content: text(' and 1 dir') }),
    send({ sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: text('Parent done.') }),
    // raw, as agents on the unstable schema send them (acp-kit's own encoders send a removal as an
    // empty plan for stable clients, and a v1 plan as the one implicit plan)
    child('$session', {
      sessionUpdate: 'plan_update',
      plan: { type: 'items', planId: 'research', entries: [{ content: 'scan', priority: 'high', status: 'pending' }] },
    }),
    child('$session', { sessionUpdate: 'plan_removed', planId: 'research' }),
    child('$session', { sessionUpdate: 'plan_removed', planId: 'never-shown' }),
  ],
});

describe.each(['1', '2'] as const)('acp-kit run over v%s: subagents', (protocol) => {
  const agent = `node ${E2E_AGENT}`;

  it('text: the subagent is announced and its lines are indented under the parent', async () => {
    const r = await runCli(['run', '--agent', agent, '--protocol', protocol, SCRIPT], { env: cliEnv() });
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout;
    expect(out).toContain('↳ subagent Searcher (child-1) running');
    expect(out).toContain('  │ child line one\n');
    expect(out).toContain('  │ child line two\n');
    // session_message_chunk: the streamed rest of the message, on the same line as its start
    expect(out).toContain('✉ child-1 → parent: found 3 files and 1 dir');
    // plan_removed: the plan shown, then its removal named
    expect(out).toMatch(/Plan research:\n {2}\[ \] scan\n(.*\n)*plan research removed\n/);
    expect(out).not.toContain('never-shown');
    // the child's text is not in the parent's own lines
    expect(out.split('\n').filter((l) => l.includes('child line') && !l.startsWith('  │ '))).toEqual([]);
    expect(out.indexOf('Delegating.')).toBeLessThan(out.indexOf('↳ subagent'));
    expect(out.indexOf('  │ child line one')).toBeLessThan(out.indexOf('Parent done.'));
  });

  it('--json: the child update carries its session id and parentSessionId', async () => {
    const r = await runCli(['run', '--json', '--agent', agent, '--protocol', protocol, SCRIPT], { env: cliEnv() });
    expect(r.code, r.stderr).toBe(0);
    const events = ndjson(r.stdout) as Array<Record<string, unknown>>;
    const session = events.find((e) => e.type === 'session') as { sessionId: string };
    const updates = events.filter((e) => e.type === 'update') as Array<{
      sessionId: string;
      parentSessionId?: string;
      update: { sessionUpdate: string };
    }>;
    expect(updates.find((u) => u.update.sessionUpdate === 'subagent_update')?.sessionId).toBe(session.sessionId);
    const childUpdates = updates.filter((u) => u.sessionId === 'child-1');
    expect(childUpdates.map((u) => [u.parentSessionId, u.update.sessionUpdate])).toEqual([
      [session.sessionId, 'agent_message_chunk'],
      [session.sessionId, 'agent_message_chunk'],
    ]);
    expect(updates.some((u) => u.update.sessionUpdate === 'session_message')).toBe(true);
    expect(updates.find((u) => u.update.sessionUpdate === 'session_message_chunk')?.update).toMatchObject({
      messageId: 'sm1',
      content: text(' and 1 dir'),
    });
    expect(updates.find((u) => u.update.sessionUpdate === 'plan_removed')?.update).toMatchObject({
      planId: 'research',
    });
  });
});

describe('acp-kit run: tokens from the v1 prompt result (unstable PromptResponse.usage)', () => {
  const stopWithUsage = JSON.stringify({
    actions: [{ send: { sessionUpdate: 'agent_message_chunk', messageId: 'm', content: text('ok') } }],
    stop: { stopReason: 'end_turn', usage: { totalTokens: 1290, inputTokens: 1234, outputTokens: 56 } },
  });
  const agent = `node ${E2E_AGENT}`;

  it('the stop line and the --json result show them', async () => {
    const t = await runCli(['run', '--agent', agent, '--protocol', '1', stopWithUsage], { env: cliEnv() });
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toMatch(/stop reason: end_turn.* · 1290 tokens \(1234 in, 56 out\)/);
    const j = await runCli(['run', '--json', '--agent', agent, '--protocol', '1', stopWithUsage], { env: cliEnv() });
    expect(ndjson(j.stdout).at(-1)).toMatchObject({
      type: 'result',
      tokens: { inputTokens: 1234, outputTokens: 56, totalTokens: 1290 },
    });
  });
});

describe('acp-kit run: the agent’s auth state changes (unstable auth/status_update)', () => {
  const agent = `node ${E2E_AGENT}`;
  const status = { state: 'authenticated', accounts: [{ label: 'Team key', active: true }, { label: 'Old key' }] };
  const script = JSON.stringify({
    actions: [
      { clientNotify: 'auth/status_update', params: status },
      { send: { sessionUpdate: 'agent_message_chunk', messageId: 'm', content: text('after auth') } },
    ],
  });
  // the e2e agent advertises `auth.status` only with this: the client accepts the update only then
  const env = () => cliEnv({ E2E_AUTH_STATUS: '1' });

  it.each(['1', '2'])('v%s --json: an auth_status event with the state and accounts', async (protocol) => {
    const r = await runCli(['run', '--json', '--agent', agent, '--protocol', protocol, script], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    const events = ndjson(r.stdout) as Array<Record<string, unknown>>;
    expect(events.filter((e) => e.type === 'auth_status')).toEqual([{ type: 'auth_status', ...status }]);
    // in wire order: before the message the agent sent after it
    const at = events.findIndex((e) => e.type === 'auth_status');
    const msg = events.findIndex(
      (e) => e.type === 'update' && (e.update as { messageId?: string } | undefined)?.messageId === 'm',
    );
    expect(msg).toBeGreaterThan(0);
    expect(at).toBeLessThan(msg);
  });

  it('text: one stderr line naming the state and the active account', async () => {
    const r = await runCli(['run', '--agent', agent, '--protocol', '2', script], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('acp-kit: auth: authenticated (Team key)\n');
    expect(r.stdout).toContain('after auth');
  });
});
