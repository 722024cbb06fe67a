import { createServer } from 'node:http';
import { at, isObj } from '@acp-kit/protocol/internal';
import { advertisedCase, type CaseContext } from '../case.js';
import type { WireMessage } from '../driver.js';

/** The one model of the providers case's endpoint, in the Anthropic and the OpenAI model-list shapes at once. */
const MODEL = {
  id: 'acp-kit-check-model',
  type: 'model',
  object: 'model',
  display_name: 'acp-kit check',
  created_at: '2025-01-01T00:00:00Z',
  created: 1735689600,
  owned_by: 'acp-kit',
};
const MODELS = { object: 'list', data: [MODEL], has_more: false, first_id: MODEL.id, last_id: MODEL.id };

/**
 * The endpoint the providers case routes a provider to, on loopback: an agent may check an
 * endpoint before it takes it (claude-agent-acp 0.101 lists its models: an unreachable URL is
 * refused), so every GET answers a model list; anything else is 404. No turn runs against it.
 */
async function modelsEndpoint(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(MODELS));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { url: `http://127.0.0.1:${port}/acp-kit-check`, close };
}

/**
 * `auth/status` (unstable schema: "Queries the agent's current authentication state without
 * changing it. Agents MUST NOT reject it with auth_required (-32000)"): answered with a `state`.
 * The `auth/status_update`s sent so far are judged too (see {@link judgeStatusUpdates}).
 */
export const authStatus = advertisedCase(
  {
    name: 'unstable/auth-status',
    title: 'auth/status answers the authentication state',
    ids: ['unstable/auth-status', 'unstable/auth-status-update'],
    needs: ['auth.status', 'auth.status'],
  },
  async (ctx) => {
    const r = await ctx.driver.request('auth/status', {}, ctx.timeout);
    ctx.judge(
      'unstable/auth-status',
      r.error === undefined && typeof at(r.result, 'state') === 'string',
      at(r.error, 'code') === -32000
        ? 'auth/status was rejected with auth_required (-32000), which it must never be: clients call it to learn whether authentication is required'
        : `auth/status must answer a state; got ${JSON.stringify(r.error ?? r.result)}`,
      [r.seq],
    );
    await judgeStatusUpdates(ctx);
  },
);

/** What an auth/status_update reports (its params without `_meta`), to compare two of them. */
function reported(m: WireMessage): string {
  const params = isObj(m.params) ? { ...m.params } : {};
  delete params._meta;
  return JSON.stringify(params);
}

/**
 * The `auth/status_update`s the agent sent on this connection (unstable schema: "SHOULD only send
 * it when the reported status differs from the last one sent on the connection"; it "Carries the
 * same fields as the auth/status response"): no two in a row report the same, and the last one
 * agrees with the `state` of an `auth/status` asked after it. None sent: not exercised.
 */
export async function judgeStatusUpdates(ctx: CaseContext): Promise<void> {
  const id = 'unstable/auth-status-update';
  const ping = await ctx.driver.roundTrip(ctx.timeout);
  const updates = ctx.driver.received(0, ping).filter((m) => m.method === 'auth/status_update' && m.id === undefined);
  const last = updates.at(-1);
  if (last === undefined) return;
  const repeats = updates.filter((m, i) => i > 0 && reported(m) === reported(updates[i - 1] ?? {}));
  ctx.judge(
    id,
    repeats.length === 0,
    `${repeats.length} auth/status_update(s) repeat the status the one before reported`,
    repeats.map((m) => m.seq),
  );
  const now = await ctx.driver.request('auth/status', {}, ctx.timeout);
  // a failed auth/status is the auth/status rule's: nothing to compare the update with
  if (now.error !== undefined) return;
  ctx.judge(
    id,
    at(now.result, 'state') === at(last.params, 'state'),
    `the last auth/status_update said state ${JSON.stringify(at(last.params, 'state'))}, auth/status asked after it answers ${JSON.stringify(now.error ?? now.result)}`,
    [last.seq, now.seq],
  );
}

/** The provider entry `providerId` of a providers/list answer. */
const providerOf = (result: unknown, providerId: unknown): unknown => {
  const list = at(result, 'providers');
  return (Array.isArray(list) ? list : []).find((p) => at(p, 'providerId') === providerId);
};

/**
 * `providers/list|set|disable` (unstable schema, custom LLM endpoint: set "Replaces the full
 * configuration for one provider ID"; list's `current` is the "effective non-secret routing
 * config", "Null or omitted means provider is disabled"; a `required` provider must not be
 * disabled). The checker routes a provider to its loopback endpoint, lists it, disables it (unless
 * required), lists again; a provider that was routed before is set back to its listed routing
 * afterwards (its headers, never listed, cannot be). A set the agent refuses (it may check the
 * endpoint) is not exercised. Then the auth/status_updates the changes caused are judged, when
 * `auth.status` is advertised.
 */
export const providers = advertisedCase(
  {
    name: 'unstable/providers',
    // reroutes a provider: agent-wide state the turns of later cases would run on
    ownProcess: true,
    title: 'providers/set routes a provider; providers/list shows it; providers/disable clears it',
    ids: ['unstable/providers', 'unstable/auth-status-update'],
    needs: ['providers', 'providers'],
  },
  async (ctx) => {
    const first = await ctx.driver.request('providers/list', {}, ctx.timeout);
    const list = at(first.result, 'providers');
    if (
      !ctx.judge(
        'unstable/providers',
        Array.isArray(list),
        `providers/list must answer a providers array; got ${JSON.stringify(first.error ?? first.result)}`,
        [first.seq],
      ) ||
      !Array.isArray(list)
    )
      return;
    // a disabled optional provider first: setting and disabling it leaves the agent as it was
    const target =
      list.find((p) => at(p, 'required') !== true && at(p, 'current') == null) ??
      list.find((p) => at(p, 'required') !== true) ??
      list[0];
    if (target === undefined) return ctx.skip('providers/list lists no provider');
    const endpoint = await modelsEndpoint();
    try {
      await setAndList(ctx, target, endpoint.url);
      if (at(target, 'required') !== true) await disable(ctx, at(target, 'providerId'));
      await restore(ctx, at(target, 'providerId'), at(target, 'current'));
    } finally {
      await endpoint.close();
    }
    if (ctx.advertises('auth.status')) await judgeStatusUpdates(ctx);
  },
);

/** providers/set of `target` to `baseUrl`, then providers/list shows that routing as its `current`. */
async function setAndList(ctx: CaseContext, target: unknown, baseUrl: string): Promise<void> {
  const providerId = at(target, 'providerId');
  const supported = at(target, 'supported');
  const apiType = (Array.isArray(supported) ? supported : []).find((t) => typeof t === 'string') ?? 'openai';
  const set = await ctx.driver.request('providers/set', { providerId, apiType, baseUrl }, ctx.timeout);
  // no text makes an agent take any endpoint it is given
  if (set.error !== undefined) return;
  const shown = await ctx.driver.request('providers/list', {}, ctx.timeout);
  const current = at(providerOf(shown.result, providerId), 'current');
  ctx.judge(
    'unstable/providers',
    at(current, 'baseUrl') === baseUrl && at(current, 'apiType') === apiType,
    `after providers/set of ${JSON.stringify(providerId)} to ${apiType} ${baseUrl} providers/list shows current ${JSON.stringify(current ?? null)}`,
    [set.seq, shown.seq],
  );
}

/** providers/disable of `providerId`, then providers/list shows no `current` for it. */
async function disable(ctx: CaseContext, providerId: unknown): Promise<void> {
  const off = await ctx.driver.request('providers/disable', { providerId }, ctx.timeout);
  const after = await ctx.driver.request('providers/list', {}, ctx.timeout);
  const current = at(providerOf(after.result, providerId), 'current');
  ctx.judge(
    'unstable/providers',
    off.error === undefined && current == null,
    `after providers/disable of ${JSON.stringify(providerId)} (${JSON.stringify(off.error ?? off.result)}) providers/list still shows current ${JSON.stringify(current)}`,
    [off.seq, after.seq],
  );
}

/** Sets a provider that was routed before the case back to the routing providers/list showed. */
async function restore(ctx: CaseContext, providerId: unknown, was: unknown): Promise<void> {
  if (was == null) return;
  await ctx.driver.request(
    'providers/set',
    { providerId, apiType: at(was, 'apiType'), baseUrl: at(was, 'baseUrl') },
    ctx.timeout,
  );
}
