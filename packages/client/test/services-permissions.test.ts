import { describe, expect, it } from 'vitest';
import type { PermissionOption, PermissionOutcome, PermissionRequest } from '../../protocol/src/model/session.js';
import {
  approveAll,
  approveReads,
  decidePermission,
  denyAll,
  describePermissionDecision,
  interactive,
  remembering,
  rules,
  type PermissionPolicy,
} from '../src/services/index.js';

const ALL: PermissionOption[] = [
  { optionId: 'a1', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'aa', name: 'Always allow', kind: 'allow_always' },
  { optionId: 'r1', name: 'Reject', kind: 'reject_once' },
  { optionId: 'ra', name: 'Always reject', kind: 'reject_always' },
];

function req(
  kind: string | undefined,
  opts: PermissionOption[] = ALL,
  extra: { name?: string; title?: string; sessionId?: string } = {},
): PermissionRequest {
  return {
    sessionId: extra.sessionId ?? 's1',
    title: extra.title ?? `${kind ?? 'tool'} notes.txt`,
    subject: {
      type: 'tool_call',
      toolCall: { toolCallId: 'tc1', ...(kind ? { kind } : {}), ...(extra.name ? { name: extra.name } : {}) },
    },
    options: opts,
  };
}

const ctx = () => ({ signal: new AbortController().signal });
const sel = (optionId: string): PermissionOutcome => ({ outcome: 'selected', optionId });
const CANCELLED = { outcome: 'cancelled' };

/** A policy that counts calls and answers with a fixed option id. */
function counting(answer: string | 'cancelled'): PermissionPolicy & { calls: number } {
  const p = (async () => {
    p.calls++;
    return answer === 'cancelled' ? { outcome: 'cancelled' } : sel(answer);
  }) as PermissionPolicy & { calls: number };
  p.calls = 0;
  return p;
}

describe('approveAll / denyAll', () => {
  it('approveAll prefers allow_once, then allow_always, else cancelled', async () => {
    expect(await approveAll()(req('edit'), ctx())).toEqual(sel('a1'));
    expect(await approveAll()(req('edit', [ALL[3], ALL[1]]), ctx())).toEqual(sel('aa'));
    expect(await approveAll()(req('edit', [ALL[2], ALL[3]]), ctx())).toEqual(CANCELLED);
  });

  it('denyAll prefers reject_once, then reject_always, else cancelled', async () => {
    expect(await denyAll()(req('read'), ctx())).toEqual(sel('r1'));
    expect(await denyAll()(req('read', [ALL[0], ALL[3]]), ctx())).toEqual(sel('ra'));
    expect(await denyAll()(req('read', [ALL[0], ALL[1]]), ctx())).toEqual(CANCELLED);
    expect(await denyAll()(req('read', []), ctx())).toEqual(CANCELLED);
  });

  it('never picks custom option kinds automatically', async () => {
    const custom: PermissionOption[] = [{ optionId: 'x', name: 'Sandbox', kind: '_sandboxed' }];
    expect(await approveAll()(req('edit', custom), ctx())).toEqual(CANCELLED);
  });
});

describe('approveReads', () => {
  it('allows read/search/fetch/think and rejects the rest', async () => {
    for (const k of ['read', 'search', 'fetch', 'think'])
      expect(await approveReads()(req(k), ctx())).toEqual(sel('a1'));
    for (const k of ['edit', 'delete', 'move', 'execute', 'other', 'switch_mode', '_custom']) {
      expect(await approveReads()(req(k), ctx())).toEqual(sel('r1'));
    }
    expect(await approveReads()(req(undefined), ctx())).toEqual(sel('r1'));
  });

  it('uses ctx.toolCall when the request patch omits the kind', async () => {
    expect(await approveReads()(req(undefined), { ...ctx(), toolCall: { kind: 'read' } })).toEqual(sel('a1'));
    // the request's own kind wins over the tracked state
    expect(await approveReads()(req('edit'), { ...ctx(), toolCall: { kind: 'read' } })).toEqual(sel('r1'));
  });

  it('rejects v2 command subjects (they authorize execution)', async () => {
    const r: PermissionRequest = {
      sessionId: 's',
      title: 'Run ls',
      subject: { type: 'command', command: 'ls', cwd: '/tmp' },
      options: ALL,
    };
    expect(await approveReads()(r, ctx())).toEqual(sel('r1'));
  });
});

describe('interactive', () => {
  it('returns the chosen offered option and passes the request', async () => {
    const seen: string[] = [];
    const p = interactive(async (r) => {
      seen.push(r.title);
      return 'aa';
    });
    expect(await p(req('edit'), ctx())).toEqual(sel('aa'));
    expect(seen).toEqual(['edit notes.txt']);
    expect(await interactive(async () => 'cancelled')(req('edit'), ctx())).toEqual(CANCELLED);
  });

  it('never forwards an optionId that was not offered (ACP-V2-PERM-06)', async () => {
    expect(await interactive(async () => 'made-up')(req('edit'), ctx())).toEqual(CANCELLED);
    expect(await interactive(async () => 'aa')(req('edit', [ALL[0]]), ctx())).toEqual(CANCELLED);
  });

  it('a throwing prompt is not approval', async () => {
    expect(
      await interactive(async () => {
        throw new Error('ui closed');
      })(req('edit'), ctx()),
    ).toEqual(CANCELLED);
  });

  it('resolves cancelled promptly when the turn is cancelled, and tells the prompt (ACP-V1-CANCEL-03)', async () => {
    const ac = new AbortController();
    let promptSawAbort = false;
    const p = interactive(
      (_r, c) =>
        new Promise<string>(() => {
          c.signal.addEventListener('abort', () => (promptSawAbort = true));
        }),
    );
    const pending = p(req('edit'), { signal: ac.signal });
    setTimeout(() => ac.abort(), 20);
    const t0 = Date.now();
    expect(await pending).toEqual(CANCELLED);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(promptSawAbort).toBe(true);
  });

  it('an already aborted signal answers cancelled without asking', async () => {
    const ac = new AbortController();
    ac.abort();
    let asked = false;
    const out = await interactive(async () => {
      asked = true;
      return 'a1';
    })(req('edit'), { signal: ac.signal });
    expect(out).toEqual(CANCELLED);
    expect(asked).toBe(false);
  });
});

describe('rules', () => {
  const policy = () =>
    rules(
      [
        { match: { toolName: 'rm' }, decision: 'reject' },
        { match: { toolName: /^git_/ }, decision: 'allow' },
        { match: { kind: 'execute', title: /npm test/ }, decision: 'allow' },
        { match: { kind: ['edit', 'delete'] }, decision: 'ask' },
      ],
      denyAll(),
    );

  it('first matching rule wins; ask and no match go to the fallback', async () => {
    const fallbackCalls: string[] = [];
    const withAsk = rules(
      [
        { match: { kind: 'edit' }, decision: 'ask' },
        { match: { kind: 'read' }, decision: 'allow' },
      ],
      async (r) => {
        fallbackCalls.push(r.title);
        return sel('aa');
      },
    );
    expect(await withAsk(req('edit'), ctx())).toEqual(sel('aa'));
    expect(await withAsk(req('read'), ctx())).toEqual(sel('a1'));
    expect(await withAsk(req('execute'), ctx())).toEqual(sel('aa'));
    expect(fallbackCalls).toEqual(['edit notes.txt', 'execute notes.txt']);
  });

  it('matches tool names (string / RegExp), kinds and titles together', async () => {
    const p = policy();
    expect(await p(req('execute', ALL, { name: 'rm' }), ctx())).toEqual(sel('r1'));
    expect(await p(req('execute', ALL, { name: 'git_commit' }), ctx())).toEqual(sel('a1'));
    expect(await p(req('execute', ALL, { title: 'Run npm test' }), ctx())).toEqual(sel('a1'));
    expect(await p(req('execute', ALL, { title: 'Run npm publish' }), ctx())).toEqual(sel('r1')); // fallback denyAll
    expect(await p(req('read', ALL, { name: 'reader' }), ctx())).toEqual(sel('r1')); // no rule: fallback
  });

  it('a global RegExp does not flip between calls', async () => {
    const p = rules([{ match: { title: /notes/g }, decision: 'allow' }], denyAll());
    for (let i = 0; i < 3; i++) expect(await p(req('edit'), ctx())).toEqual(sel('a1'));
  });

  it('the fallback cannot smuggle an unoffered id', async () => {
    const p = rules([], async () => sel('ghost'));
    expect(await p(req('edit'), ctx())).toEqual(CANCELLED);
  });
});

describe('remembering', () => {
  it('remembers allow_always per (session, tool name) and answers without asking', async () => {
    const inner = counting('aa');
    const p = remembering(inner);
    expect(await p(req('edit', ALL, { name: 'write' }), ctx())).toEqual(sel('aa'));
    expect(await p(req('edit', ALL, { name: 'write' }), ctx())).toEqual(sel('aa'));
    expect(inner.calls).toBe(1);
    // another tool name, another session: asked again
    await p(req('edit', ALL, { name: 'other' }), ctx());
    await p(req('edit', ALL, { name: 'write', sessionId: 's2' }), ctx());
    expect(inner.calls).toBe(3);
    expect(p.remembered().get('s1|name:write')).toBe('allow');
  });

  it('remembers reject_always by kind when there is no tool name', async () => {
    const inner = counting('ra');
    const p = remembering(inner);
    await p(req('execute'), ctx());
    // later request offers only reject_once: still answered from memory
    expect(await p(req('execute', [ALL[0], ALL[2]]), ctx())).toEqual(sel('r1'));
    expect(inner.calls).toBe(1);
  });

  it('does not remember once answers, and asks again if no option of that direction is offered', async () => {
    const once = counting('a1');
    const p1 = remembering(once);
    await p1(req('edit'), ctx());
    await p1(req('edit'), ctx());
    expect(once.calls).toBe(2);

    const always = counting('aa');
    const p2 = remembering(always);
    await p2(req('edit'), ctx());
    const rejectOnly = await p2(req('edit', [ALL[2]]), ctx()); // counting answers 'aa': not offered
    expect(rejectOnly).toEqual(CANCELLED);
    expect(always.calls).toBe(2);
  });

  it('forget(session) and global scope', async () => {
    const inner = counting('aa');
    const p = remembering(inner, { scope: 'global' });
    await p(req('edit', ALL, { sessionId: 'a' }), ctx());
    await p(req('edit', ALL, { sessionId: 'b' }), ctx());
    expect(inner.calls).toBe(1);
    p.forget();
    await p(req('edit', ALL, { sessionId: 'b' }), ctx());
    expect(inner.calls).toBe(2);

    const q = remembering(counting('aa'));
    await q(req('edit'), ctx());
    q.forget('s1');
    expect(q.remembered().size).toBe(0);
  });

  it('a cancelled turn is answered cancelled even when an answer is remembered', async () => {
    const p = remembering(counting('aa'));
    await p(req('edit'), ctx());
    const ac = new AbortController();
    ac.abort();
    expect(await p(req('edit'), { signal: ac.signal })).toEqual(CANCELLED);
  });
});

describe('decidePermission guards any policy', () => {
  it('turns unknown outcomes, unoffered ids and throws into cancelled', async () => {
    expect(await decidePermission(async () => ({ outcome: 'maybe' }), req('edit'), ctx())).toEqual(CANCELLED);
    expect(await decidePermission(async () => sel('zz'), req('edit'), ctx())).toEqual(CANCELLED);
    expect(
      await decidePermission(
        () => {
          throw new Error('sync throw');
        },
        req('edit'),
        ctx(),
      ),
    ).toEqual(CANCELLED);
    expect(await decidePermission(async () => sel('r1'), req('edit'), ctx())).toEqual(sel('r1'));
  });

  it('fuzz: no factory ever returns an id outside the offered options', async () => {
    const kinds = ['allow_once', 'allow_always', 'reject_once', 'reject_always', '_x'];
    const policies: PermissionPolicy[] = [
      approveAll(),
      approveReads(),
      denyAll(),
      remembering(approveAll()),
      rules([{ match: { kind: 'read' }, decision: 'allow' }], denyAll()),
    ];
    let seed = 42;
    const rand = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 200; i++) {
      const opts = kinds
        .filter((_, j) => (i >> j) & 1 || rand() < 0.3)
        .map((k, j) => ({ optionId: `${k}-${i}-${j}`, name: k, kind: k }));
      const r = req(['read', 'edit', undefined][i % 3], opts);
      for (const p of policies) {
        const out = await p(r, ctx());
        if (out.outcome === 'selected') expect(opts.map((o) => o.optionId)).toContain(out.optionId);
        else expect(out).toEqual(CANCELLED);
      }
    }
  });
});

describe('describePermissionDecision', () => {
  it('formats approvals, rejections, cancels and invalid answers', () => {
    const r = req('edit', ALL, { title: 'Write notes.txt' });
    expect(describePermissionDecision(r, sel('a1'))).toBe('approved (allow_once): Write notes.txt');
    expect(describePermissionDecision(r, sel('ra'))).toBe('rejected (reject_always): Write notes.txt');
    expect(describePermissionDecision(r, { outcome: 'cancelled' })).toBe('cancelled: Write notes.txt');
    expect(describePermissionDecision(r, sel('nope'))).toBe('invalid answer (unknown option "nope"): Write notes.txt');
    const cmd: PermissionRequest = {
      sessionId: 's',
      title: '',
      subject: { type: 'command', command: 'make', cwd: '/w' },
      options: ALL,
    };
    expect(describePermissionDecision(cmd, sel('a1'))).toBe('approved (allow_once): make');
  });
});
