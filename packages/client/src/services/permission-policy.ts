import type { PermissionOption, PermissionOptionKind, PermissionOutcome, PermissionRequest } from '@acp-kit/protocol';

/**
 * What a policy may know about the tool call behind a request beyond the request itself: a
 * v1 permission request carries a *patch* of the tool call, so `kind`/`name`/`title` may have
 * been sent earlier in a `tool_call` update. Callers that track tool calls pass the merged state.
 */
export interface KnownToolCall {
  kind?: string | null;
  name?: string | null;
  title?: string | null;
}

/** Context of one permission decision. */
export interface PermissionContext {
  /** Aborts when the turn is cancelled (or the request is `$/cancel_request`ed): answer `cancelled`. */
  signal: AbortSignal;
  /** Merged state of the tool call the request is about, when the caller tracks it. */
  toolCall?: KnownToolCall;
}

/**
 * Decides a `session/request_permission`. Implementations must only select offered
 * `optionId`s; {@link decidePermission} enforces that and the cancellation rule for any policy.
 */
export type PermissionPolicy = (request: PermissionRequest, ctx: PermissionContext) => Promise<PermissionOutcome>;

/** What the user or a rule wants; mapped onto an offered option by {@link selectOption}. */
export type PermissionDecision = 'allow' | 'reject';

const CANCELLED: PermissionOutcome = Object.freeze<PermissionOutcome>({ outcome: 'cancelled' });

/** Tool kinds {@link approveReads} lets through: they only look at things. */
export const READ_ONLY_KINDS: readonly string[] = ['read', 'search', 'fetch', 'think'];

function options(request: PermissionRequest): PermissionOption[] {
  const offered = request?.options;
  return Array.isArray(offered) ? offered.filter((o) => o && typeof o.optionId === 'string') : [];
}

/**
 * Maps a decision onto an offered option, in preference order:
 * `allow` -> `allow_once`, then `allow_always`; `reject` -> `reject_once`, then `reject_always`
 * (`preferAlways` swaps the order). Custom (`_`) kinds are never chosen automatically. If no
 * option of the wanted kind was offered the outcome is `cancelled` (= not approved, ACP-V2-PERM-06):
 * an id that was not offered is never invented.
 */
export function selectOption(
  request: PermissionRequest,
  decision: PermissionDecision,
  preferAlways = false,
): PermissionOutcome {
  const order: PermissionOptionKind[] =
    decision === 'allow' ? ['allow_once', 'allow_always'] : ['reject_once', 'reject_always'];
  if (preferAlways) order.reverse();
  const offered = options(request);
  for (const kind of order) {
    const o = offered.find((x) => x.kind === kind);
    if (o) return { outcome: 'selected', optionId: o.optionId };
  }
  return CANCELLED;
}

/** The offered option a `selected` outcome names, or `undefined`. */
export function selectedOption(request: PermissionRequest, outcome: PermissionOutcome): PermissionOption | undefined {
  if (outcome?.outcome !== 'selected') return undefined;
  const id = outcome.optionId;
  return options(request).find((o) => o.optionId === id);
}

/** Facts policies match on: tool name, kind and title, from the request's subject and `ctx.toolCall`. */
export function permissionFacts(
  request: PermissionRequest,
  ctx?: Pick<PermissionContext, 'toolCall'>,
): {
  toolName?: string;
  kind?: string;
  title: string;
  command?: string;
} {
  const subject = request?.subject;
  const known = ctx?.toolCall;
  const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
  if (subject?.type === 'tool_call') {
    const tc = subject.toolCall ?? {};
    return {
      toolName: str(tc.name) ?? str(known?.name),
      kind: str(tc.kind) ?? str(known?.kind),
      title: str(request.title) ?? str(tc.title) ?? str(known?.title) ?? '',
    };
  }
  if (subject?.type === 'command') {
    // a v2 command subject: approving it lets the agent run the command (ACP-V2-PERM-04)
    return { kind: 'execute', title: str(request.title) ?? str(subject.command) ?? '', command: str(subject.command) };
  }
  return { toolName: str(known?.name), kind: str(known?.kind), title: str(request?.title) ?? str(known?.title) ?? '' };
}

/**
 * Runs `policy` for one request with the guarantees every policy needs (use this from the
 * `session/request_permission` handler):
 * - an aborted `signal` resolves `{outcome:"cancelled"}` at once, even while the policy (e.g. a
 *   user prompt) is still pending (ACP-V1-CANCEL-03, ACP-ALL-PERM-03);
 * - a `selected` outcome naming an id that was not offered, an unknown outcome, or a policy
 *   that throws becomes `cancelled` (= not approved; the agent never sees an unknown id,
 *   ACP-V2-PERM-06).
 */
export function decidePermission(
  policy: PermissionPolicy,
  request: PermissionRequest,
  ctx: PermissionContext,
): Promise<PermissionOutcome> {
  const { signal } = ctx;
  if (signal.aborted) return Promise.resolve({ outcome: 'cancelled' });
  // the built-in policies give these guarantees themselves: decided once, never checked again
  if (GUARDED.has(policy)) return policy(request, ctx);
  return new Promise<PermissionOutcome>((resolve) => {
    const onAbort = (): void => resolve({ outcome: 'cancelled' });
    signal.addEventListener('abort', onAbort, { once: true });
    let result: Promise<PermissionOutcome>;
    try {
      result = Promise.resolve(policy(request, ctx));
    } catch (e) {
      result = Promise.reject(e);
    }
    result.then(
      (outcome) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) return resolve({ outcome: 'cancelled' });
        resolve(sanitize(request, outcome));
      },
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve({ outcome: 'cancelled' });
      },
    );
  });
}

function sanitize(request: PermissionRequest, outcome: PermissionOutcome): PermissionOutcome {
  if (outcome?.outcome === 'selected') {
    const o = selectedOption(request, outcome);
    return o ? { outcome: 'selected', optionId: o.optionId } : { outcome: 'cancelled' };
  }
  return { outcome: 'cancelled' };
}

/**
 * Policies that already give {@link decidePermission}'s guarantees (the built-in ones): running
 * them through it again (the client session does for every policy) must not decide or check twice.
 */
const GUARDED = new WeakSet<PermissionPolicy>();
function guarded<P extends PermissionPolicy>(policy: P): P {
  GUARDED.add(policy);
  return policy;
}

/**
 * A policy built from a synchronous decision: {@link selectOption} only ever picks an offered
 * option, so its answer needs no second check; an aborted signal or a throwing rule is `cancelled`.
 */
function fromDecision(
  decide: (request: PermissionRequest, ctx: PermissionContext) => PermissionDecision,
): PermissionPolicy {
  return guarded(async (request, ctx) => {
    if (ctx.signal.aborted) return { outcome: 'cancelled' };
    try {
      return selectOption(request, decide(request, ctx));
    } catch {
      return { outcome: 'cancelled' };
    }
  });
}

/** What {@link observed} reports for each decided permission request. */
export interface PermissionDecisionReport {
  request: PermissionRequest;
  /** The final answer sent to the agent. */
  outcome: PermissionOutcome;
  /** The offered option the outcome selects (`undefined` for `cancelled`). */
  option: PermissionOption | undefined;
  /** True when the request's signal aborted (the turn was cancelled) before or while deciding. */
  cancelled: boolean;
}

/**
 * Wraps `policy` to report every final decision (e.g. a CLI printing what was approved): the
 * decision is made once, through {@link decidePermission}, and the report carries the chosen
 * option, so nobody has to look it up again.
 */
export function observed(
  policy: PermissionPolicy,
  onDecision: (report: PermissionDecisionReport) => void,
): PermissionPolicy {
  return guarded(async (request, ctx) => {
    const outcome = await decidePermission(policy, request, ctx);
    onDecision({ request, outcome, option: selectedOption(request, outcome), cancelled: ctx.signal.aborted });
    return outcome;
  });
}

/** Approves everything: picks `allow_once`, else `allow_always`, else `cancelled`. */
export function approveAll(): PermissionPolicy {
  return fromDecision(() => 'allow');
}

/**
 * The default for non-interactive use: approves tool calls whose kind is one of
 * {@link READ_ONLY_KINDS} (`read`, `search`, `fetch`, `think`) and rejects everything else
 * (including unknown kinds and command subjects) with `reject_once`, else `reject_always`,
 * else `cancelled`.
 */
export function approveReads(): PermissionPolicy {
  return fromDecision((request, ctx) => {
    const { kind } = permissionFacts(request, ctx);
    return kind !== undefined && READ_ONLY_KINDS.includes(kind) ? 'allow' : 'reject';
  });
}

/** Rejects everything: picks `reject_once`, else `reject_always`, else `cancelled`. */
export function denyAll(): PermissionPolicy {
  return fromDecision(() => 'reject');
}

/**
 * Asks a person. `ask` shows the request (title, options) and resolves with the chosen
 * `optionId` or `'cancelled'`; it receives `ctx.signal` and should close its prompt when the
 * signal aborts (the policy itself already answers `cancelled` then). An id that was not
 * offered is answered as `cancelled`.
 */
export function interactive(
  ask: (request: PermissionRequest, ctx: PermissionContext) => Promise<string | 'cancelled'>,
): PermissionPolicy {
  return guarded((request, ctx) =>
    decidePermission(
      async () => {
        const answer = await ask(request, ctx);
        if (answer === 'cancelled') return CANCELLED;
        return { outcome: 'selected', optionId: answer };
      },
      request,
      ctx,
    ),
  );
}

/** One rule of {@link rules}: every given `match` field must match. */
export interface PermissionRule {
  match: {
    /** the tool's programmatic name (`toolCall.name`) */
    toolName?: string | RegExp;
    /** a tool kind (`read`, `edit`, `execute`, ...) or several */
    kind?: string | readonly string[];
    /** the request title (or the tool call title when the request has none) */
    title?: RegExp;
  };
  /** `ask` delegates to the fallback policy */
  decision: PermissionDecision | 'ask';
}

function matches(rule: PermissionRule, facts: ReturnType<typeof permissionFacts>): boolean {
  const m = rule.match;
  if (m.toolName !== undefined) {
    if (facts.toolName === undefined) return false;
    if (typeof m.toolName === 'string' ? m.toolName !== facts.toolName : !testRe(m.toolName, facts.toolName))
      return false;
  }
  if (m.kind !== undefined) {
    const kinds = typeof m.kind === 'string' ? [m.kind] : m.kind;
    if (facts.kind === undefined || !kinds.includes(facts.kind)) return false;
  }
  if (m.title !== undefined && !testRe(m.title, facts.title)) return false;
  return true;
}

function testRe(re: RegExp, s: string): boolean {
  re.lastIndex = 0; // a /g or /y regexp keeps state between calls
  return re.test(s);
}

/**
 * First matching rule wins: `allow`/`reject` select an offered option like
 * {@link selectOption}; `ask`, or no matching rule, delegates to `fallback`.
 */
export function rules(list: readonly PermissionRule[], fallback: PermissionPolicy): PermissionPolicy {
  const frozen = [...list];
  return guarded((request, ctx) =>
    decidePermission(
      async () => {
        const facts = permissionFacts(request, ctx);
        const rule = frozen.find((r) => matches(r, facts));
        if (!rule || rule.decision === 'ask') return fallback(request, ctx);
        return selectOption(request, rule.decision);
      },
      request,
      ctx,
    ),
  );
}

/** Options of {@link remembering}. */
export interface RememberingOptions {
  /** `session` (default): answers are remembered per session; `global`: across sessions. */
  scope?: 'session' | 'global';
}

/** A policy that remembers "always" answers; see {@link remembering}. */
export interface RememberingPolicy extends PermissionPolicy {
  /** Forgets the answers of one session, or all when omitted. */
  forget(sessionId?: string): void;
  /** The remembered answers, keyed `"<sessionId>|name:<tool>"` or `"<sessionId>|kind:<kind>"`. */
  remembered(): ReadonlyMap<string, PermissionDecision>;
}

/**
 * Wraps `policy` so that an `allow_always` / `reject_always` answer is remembered per
 * (session, tool name — or the tool kind when the call has no name) and later requests with
 * the same key are answered without asking: `allow` picks `allow_always`, else `allow_once`;
 * `reject` picks `reject_always`, else `reject_once`. If the later request offers no option of
 * that direction, `policy` is asked again. Requests with neither a tool name nor a kind are
 * never answered from memory.
 */
export function remembering(policy: PermissionPolicy, opts: RememberingOptions = {}): RememberingPolicy {
  const memory = new Map<string, PermissionDecision>();
  const keyOf = (request: PermissionRequest, ctx: PermissionContext): string | undefined => {
    const facts = permissionFacts(request, ctx);
    const what =
      facts.toolName !== undefined
        ? `name:${facts.toolName}`
        : facts.kind !== undefined
          ? `kind:${facts.kind}`
          : undefined;
    if (what === undefined) return undefined;
    return `${opts.scope === 'global' ? '*' : request.sessionId}|${what}`;
  };
  const decide: PermissionPolicy = (request, ctx) =>
    decidePermission(
      async () => {
        const key = keyOf(request, ctx);
        const remembered = key !== undefined ? memory.get(key) : undefined;
        if (remembered) {
          const outcome = selectOption(request, remembered, true);
          if (outcome.outcome === 'selected') return outcome;
        }
        const outcome = await decidePermission(policy, request, ctx);
        const chosen = selectedOption(request, outcome);
        if (key !== undefined && chosen && !ctx.signal.aborted) {
          if (chosen.kind === 'allow_always') memory.set(key, 'allow');
          else if (chosen.kind === 'reject_always') memory.set(key, 'reject');
        }
        return outcome;
      },
      request,
      ctx,
    );
  const wrapped: RememberingPolicy = Object.assign(decide, {
    forget: (sessionId?: string): void => {
      if (sessionId === undefined) return memory.clear();
      for (const k of [...memory.keys()]) if (k.startsWith(`${sessionId}|`)) memory.delete(k);
    },
    remembered: (): ReadonlyMap<string, PermissionDecision> => new Map(memory),
  });
  return guarded(wrapped);
}

/**
 * One line for CLI output, e.g. `approved (allow_once): Write notes.txt`,
 * `rejected (reject_always): Run rm -rf build`, `cancelled: Write notes.txt`.
 */
export function describePermissionDecision(
  request: PermissionRequest,
  outcome: PermissionOutcome,
  option?: PermissionOption,
): string {
  const facts = permissionFacts(request);
  const what = facts.title || facts.command || facts.toolName || '(untitled request)';
  if (outcome?.outcome === 'selected') {
    // `option`: the selected option when the caller already has it (see `observed`)
    const o = option ?? selectedOption(request, outcome);
    if (!o)
      return `invalid answer (unknown option ${JSON.stringify('optionId' in outcome ? outcome.optionId : undefined)}): ${what}`;
    const verb = o.kind.startsWith('allow')
      ? 'approved'
      : o.kind.startsWith('reject')
        ? 'rejected'
        : `selected "${o.name}"`;
    return `${verb} (${o.kind}): ${what}`;
  }
  if (outcome?.outcome === 'cancelled') return `cancelled: ${what}`;
  return `${String(outcome?.outcome ?? 'no outcome')}: ${what}`;
}
