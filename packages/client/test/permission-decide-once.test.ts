// Issue 9.4: one permission decision on the client. The client session runs every policy through
// decidePermission; a built-in policy (and `observed`, which the CLI uses to report) already gives
// its guarantees, so the answer is chosen from the offered options once and not checked again.
// Counted by reading `request.options` (every choice or check against the offered options reads it).
import { describe, expect, it } from 'vitest';
import {
  approveAll,
  approveReads,
  decidePermission,
  denyAll,
  observed,
  remembering,
  type PermissionDecisionReport,
  type PermissionPolicy,
} from '../src/services/index.js';
import type { PermissionOption, PermissionOutcome, PermissionRequest } from '../../protocol/src/model/session.js';

const OPTIONS: PermissionOption[] = [
  { optionId: 'a1', name: 'Allow', kind: 'allow_once' },
  { optionId: 'aa', name: 'Always allow', kind: 'allow_always' },
  { optionId: 'r1', name: 'Reject', kind: 'reject_once' },
];

function counted(kind = 'read'): { request: PermissionRequest; reads: () => number } {
  let reads = 0;
  const request = {
    sessionId: 's1',
    title: 'Read notes.txt',
    subject: { type: 'tool_call', toolCall: { toolCallId: 't1', kind } },
    get options() {
      reads++;
      return OPTIONS;
    },
  } as unknown as PermissionRequest;
  return { request, reads: () => reads };
}

const ctx = () => ({ signal: new AbortController().signal });

describe('the client decides a permission request once', () => {
  it.each([
    ['approveAll', approveAll()],
    ['approveReads', approveReads()],
    ['denyAll', denyAll()],
  ] as const)('%s run the way the session runs it reads the offered options once', async (_name, policy) => {
    const { request, reads } = counted();
    const outcome = await decidePermission(policy, request, ctx());
    expect(outcome.outcome).toBe('selected');
    expect(reads()).toBe(1);
  });

  it('the CLI stack (observed over a built-in policy, run by the session): the policy runs once, the report carries the option', async () => {
    const { request, reads } = counted('edit');
    let calls = 0;
    const base: PermissionPolicy = async (req, c) => {
      calls++;
      return approveAll()(req, c);
    };
    const reports: PermissionDecisionReport[] = [];
    const outcome = await decidePermission(
      observed(base, (r) => reports.push(r)),
      request,
      ctx(),
    );
    expect(outcome).toEqual({ outcome: 'selected', optionId: 'a1' });
    expect(calls).toBe(1);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ outcome, option: OPTIONS[0], cancelled: false });
    // one read to choose (approveAll), one to check the user-written wrapper's answer, one to name the option in the report
    expect(reads()).toBe(3);
  });

  it('an answer that is not offered is still refused exactly once (cancelled), however many layers wrap it', async () => {
    const { request, reads } = counted();
    const rogue: PermissionPolicy = async () => ({ outcome: 'selected', optionId: 'not-offered' }) as PermissionOutcome;
    const reports: PermissionDecisionReport[] = [];
    const outcome = await decidePermission(
      observed(remembering(rogue), (r) => reports.push(r)),
      request,
      ctx(),
    );
    expect(outcome).toEqual({ outcome: 'cancelled' });
    expect(reports[0]).toMatchObject({ option: undefined, cancelled: false });
    expect(reads()).toBeLessThanOrEqual(3);
  });

  it('an aborted signal still answers cancelled through a built-in policy without asking it to decide', async () => {
    const { request, reads } = counted();
    const ac = new AbortController();
    ac.abort();
    expect(await decidePermission(approveAll(), request, { signal: ac.signal })).toEqual({ outcome: 'cancelled' });
    expect(await approveAll()(request, { signal: ac.signal })).toEqual({ outcome: 'cancelled' });
    expect(reads()).toBe(0);
  });
});
