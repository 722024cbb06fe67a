import { at, isObj } from '@acp-kit/protocol/internal';
import type { CaseContext, CheckCase } from '../case.js';

/** The latest protocol version with a schema: an agent cannot support a later one. */
const LATEST_VERSION = 2;

/** initialize at the case's version: version echoed, info, capability shapes (schema-checked by the driver). */
export const initializeBasic: CheckCase = {
  name: 'initialize/basic',
  // initialize itself: the handshake of a fresh process
  ownProcess: true,
  title: 'initialize at the requested version',
  ids: [
    'ACP-ALL-INIT-03',
    'ACP-ALL-INIT-06',
    'ACP-ALL-RPC-10',
    'ACP-V1-INIT-01',
    'ACP-V2-INIT-01',
    'ACP-V2-INIT-02',
    'ACP-V1-CAP-02',
    'ACP-V2-CAP-01',
    'ACP-V1-AUTH-04',
    'ACP-V2-AUTH-04',
    'ACP-V2-AUTH-07',
  ],
  protocols: [1, 2],
  async run(ctx) {
    const r = await ctx.init();
    const seq = ctx.driver.received().find((m) => m.result === r)?.seq ?? ctx.driver.received().at(-1)?.seq ?? 0;
    authMethodRules(ctx, r.authMethods, seq);
    ctx.pass('ACP-ALL-INIT-03');
    ctx.pass('ACP-ALL-RPC-10');
    ctx.pass(ctx.version === 2 ? 'ACP-V2-CAP-01' : 'ACP-V1-CAP-02');
    if (ctx.version === 2) {
      ctx.judge(
        'ACP-ALL-INIT-06',
        typeof r.capabilities === 'object' && r.capabilities !== null,
        'the initialize result has no capabilities object',
        [seq],
      );
      ctx.judge(
        'ACP-V2-INIT-01',
        typeof at(r.info, 'name') === 'string' && typeof at(r.info, 'version') === 'string',
        `the initialize result must carry info {name, version}; got ${JSON.stringify(r.info)}`,
        [seq],
      );
      const v1Names = ['agentCapabilities', 'agentInfo', 'clientCapabilities', 'clientInfo'].filter((k) => k in r);
      ctx.judge(
        'ACP-V2-INIT-02',
        v1Names.length === 0,
        `a v2 initialize result uses the v1 field names ${v1Names.join(', ')}`,
        [seq],
      );
    } else {
      ctx.pass('ACP-ALL-INIT-06');
      ctx.judge(
        'ACP-V1-INIT-01',
        typeof at(r.agentInfo, 'name') === 'string' && typeof at(r.agentInfo, 'version') === 'string',
        `the initialize result should carry agentInfo {name, version}; got ${JSON.stringify(r.agentInfo)}`,
        [seq],
      );
    }
  },
};

/** A version newer than any: the agent answers one it speaks, at or below the request. */
export const initializeUnknownVersion: CheckCase = {
  name: 'initialize/unknown-version',
  // version negotiation: the first initialize of a fresh process
  ownProcess: true,
  title: 'initialize asking for a future protocol version',
  ids: ['ACP-ALL-INIT-03', 'ACP-ALL-RPC-10'],
  protocols: [1, 2],
  async run(ctx) {
    const r = await ctx.driver.request('initialize', ctx.initializeParams(999), ctx.timeout);
    const pv = at(r.result, 'protocolVersion');
    if (r.error)
      return ctx.fail(
        'ACP-ALL-INIT-03',
        `initialize with protocolVersion 999 was refused (${JSON.stringify(r.error)}); the agent must answer with the latest version it supports`,
        [r.seq],
      );
    if (
      !ctx.judge(
        'ACP-ALL-RPC-10',
        typeof pv === 'number' && Number.isInteger(pv) && pv >= 0 && pv <= 65535,
        `protocolVersion ${JSON.stringify(pv)} must be an integer in 0..65535`,
        [r.seq],
      )
    )
      return;
    // echoing 999 claims a version no schema defines: the answer must be one that exists (1 or 2 today) and at least the one it speaks
    ctx.judge(
      'ACP-ALL-INIT-03',
      typeof pv === 'number' && pv >= ctx.version && pv <= LATEST_VERSION,
      `asked for 999, the agent answered ${JSON.stringify(pv)}: it must answer the latest version it supports (at least ${ctx.version}, which it speaks; at most ${LATEST_VERSION}, the latest defined)`,
      [r.seq],
    );
  },
};

/** A version older than any (0): the agent offers one it speaks, or (SDK draft) fails with -32022. */
export const initializeOldVersion: CheckCase = {
  name: 'initialize/old-version',
  // version negotiation, in a second process it starts (ctx.spawn)
  ownProcess: true,
  title: 'initialize asking for protocol version 0',
  ids: ['ACP-ALL-INIT-03', 'ACP-V2-INIT-05'],
  protocols: [2],
  async run(ctx) {
    // first learn that the agent speaks v2 at all (else the case does not apply)
    await ctx.init();
    const d = ctx.spawn();
    const r = await d.request('initialize', ctx.initializeParams(0), ctx.timeout);
    if (r.error) {
      ctx.judge(
        'ACP-V2-INIT-05',
        at(r.error, 'code') === -32022 &&
          at(r.error, 'data', 'requested') === 0 &&
          Array.isArray(at(r.error, 'data', 'supported')),
        `initialize with protocolVersion 0 must fail with -32022 and data {requested: 0, supported: [...]}; got ${JSON.stringify(r.error)}`,
        [r.seq],
        d,
      );
      return;
    }
    const pv = at(r.result, 'protocolVersion');
    // the spec pages' rule (answer the latest version you support) is met by any version the agent
    // speaks; -32022 is the SDK draft's (ACP-V2-INIT-05, tier draft)
    ctx.judge(
      'ACP-ALL-INIT-03',
      pv === 1 || pv === 2,
      `asked for 0, the agent answered ${JSON.stringify(pv)}; it must answer a version it supports (or fail with -32022)`,
      [r.seq],
      d,
    );
  },
};

/** The auth method types the v2 schema defines; any other must start with `_` (ACP-V2-AUTH-04). */
const V2_AUTH_TYPES = new Set(['agent', 'terminal']);

/**
 * The advertised auth methods (the checker's initialize offers no terminal auth): v1 terminal
 * methods only for a client that sent `auth.terminal: true` (ACP-V1-AUTH-04); v2 custom types start
 * with `_` (ACP-V2-AUTH-04) and a terminal method's env names are unique (ACP-V2-AUTH-07), both of the
 * v2 auth page only (the SDK draft's schema takes any type and any env list): tier draft.
 */
function authMethodRules(ctx: CaseContext, methods: unknown, seq: number): void {
  if (!Array.isArray(methods) || methods.length === 0) return;
  const typeOf = (m: unknown) => at(m, 'type');
  if (ctx.version === 1) {
    const terminal = methods.filter((m) => typeOf(m) === 'terminal');
    ctx.judge(
      'ACP-V1-AUTH-04',
      terminal.length === 0,
      `the agent advertises terminal auth (${terminal.map((m) => JSON.stringify(at(m, 'id'))).join(', ')}) though the checker's clientCapabilities did not send auth.terminal: true`,
      [seq],
    );
    return;
  }
  const unprefixed = methods
    .map(typeOf)
    .filter((t) => typeof t === 'string' && !V2_AUTH_TYPES.has(t) && !t.startsWith('_'));
  ctx.judge(
    'ACP-V2-AUTH-04',
    unprefixed.length === 0,
    `auth method type(s) ${unprefixed.map((t) => JSON.stringify(t)).join(', ')} are neither ACP's (agent, terminal) nor custom ones starting with _`,
    [seq],
  );
  const duplicated = methods
    .filter((m) => typeOf(m) === 'terminal')
    .flatMap((m) => {
      const env = at(m, 'env');
      const names = (Array.isArray(env) ? env : []).map((e: unknown) => at(e, 'name'));
      return names
        .filter((n, i) => names.indexOf(n) !== i)
        .map((n) => `${JSON.stringify(at(m, 'methodId'))}: ${JSON.stringify(n)}`);
    });
  ctx.judge(
    'ACP-V2-AUTH-07',
    duplicated.length === 0,
    `terminal auth env names must be unique; repeated: ${duplicated.join(', ')}`,
    [seq],
  );
}
/**
 * Logout where the agent offers it (v1: `auth.logout` advertised; v2: any auth method, which
 * obliges both auth/login and auth/logout, ACP-V2-AUTH-01) answers `{}` (ACP-ALL-AUTH-01). A
 * missing method fails. Another error counts only after the checker logged in (--auth): no text
 * says what logging out without a login gives, so that is not exercised.
 */
export const logout: CheckCase = {
  name: 'auth/logout',
  // logging out changes the login state every later case of the process would inherit
  ownProcess: true,
  title: 'logout where the agent offers it',
  ids: ['ACP-ALL-AUTH-01', 'ACP-V1-CAP-02', 'ACP-V2-AUTH-01'],
  protocols: [1, 2],
  async run(ctx) {
    const init = await ctx.init();
    const v = ctx.version;
    const methods = at(init, 'authMethods');
    if (v === 1 && !ctx.advertises('auth.logout')) return ctx.skip('the agent does not advertise auth.logout');
    if (v === 2 && (!Array.isArray(methods) || methods.length === 0))
      return ctx.skip('the agent advertises no auth methods');
    const method = v === 2 ? 'auth/logout' : 'logout';
    const r = await ctx.driver.request(method, {}, ctx.timeout);
    const why = v === 2 ? 'it advertises auth methods, so it must implement auth/logout' : 'it advertises auth.logout';
    if (
      !ctx.judge(
        v === 2 ? 'ACP-V2-AUTH-01' : 'ACP-V1-CAP-02',
        at(r.error, 'code') !== -32601,
        `${method} is not implemented (${JSON.stringify(r.error)}) though ${why}`,
        [r.seq],
      )
    )
      return;
    if (r.error && ctx.settings.auth === undefined)
      return ctx.skip(
        `${method} without a login failed (${JSON.stringify(r.error)}); run with --auth to judge logout after a login`,
      );
    ctx.judge(
      'ACP-ALL-AUTH-01',
      r.error === undefined && isObj(r.result),
      `${method} after a login must answer {}; got ${JSON.stringify(r.error ?? r.result)}`,
      [r.seq],
    );
  },
};
