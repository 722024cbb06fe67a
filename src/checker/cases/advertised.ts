import { at, isObj } from '../../proxy/json.js';
import type { CheckCase } from '../case.js';

/** The id of a config option: v1 `id`, v2 `configId`. */
const configIdOf = (o: unknown, version: 1 | 2): unknown => at(o, version === 2 ? 'configId' : 'id');

/**
 * session/set_config_option answers the complete option list (ACP-ALL-CFG-05: the v1 page and the
 * v2 schema's `configOptions` "full list"). The checker sets an option to its current value, which
 * every agent must take, so that only the shape of the answer is judged. v1 boolean options need a
 * client capability the checker does not send: only select options are set there.
 */
export const setConfigOption: CheckCase = {
  name: 'sessions/set-config-option',
  title: 'session/set_config_option answers every option',
  ids: ['ACP-ALL-CFG-05'],
  protocols: [1, 2],
  async run(ctx) {
    await ctx.init();
    if (ctx.version === 2 && !ctx.advertises('session')) return ctx.skip('the agent advertises no session capability');
    const n = await ctx.driver.request('session/new', { cwd: ctx.settings.cwd, mcpServers: [] }, ctx.timeout);
    const sid = at(n.result, 'sessionId');
    const options = at(n.result, 'configOptions');
    if (typeof sid !== 'string' || !Array.isArray(options) || options.length === 0) return ctx.skip('session/new returned no configOptions');
    const v = ctx.version;
    const target = options.find((o) => at(o, 'type') === 'select' || (v === 2 && at(o, 'type') === 'boolean'));
    if (target === undefined) return ctx.skip('no select option to set (v1 boolean options need a capability the checker does not send)');
    const value = at(target, 'currentValue');
    const params = { sessionId: sid, configId: configIdOf(target, v), ...(v === 2 ? { type: at(target, 'type') === 'boolean' ? 'boolean' : 'id' } : {}), value };
    const r = await ctx.driver.request('session/set_config_option', params, ctx.timeout);
    if (r.error) return ctx.skip(`setting option ${JSON.stringify(params.configId)} to its current value ${JSON.stringify(value)} failed (${JSON.stringify(r.error)}); not exercised`);
    const answered = at(r.result, 'configOptions');
    const got = new Set((Array.isArray(answered) ? answered : []).map((o) => configIdOf(o, v)));
    const missing = options.map((o) => configIdOf(o, v)).filter((id) => !got.has(id));
    ctx.judge('ACP-ALL-CFG-05', missing.length === 0, `session/set_config_option must answer the complete configOptions list; missing ${missing.map((id) => JSON.stringify(id)).join(', ')} (session/new listed ${options.length})`, [n.seq, r.seq]);
  },
};

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
    if (text.response.error) return ctx.skip(`a text prompt fails too (${JSON.stringify(text.response.error)}); images not exercised`);
    const t = await ctx.turn(sid, ctx.driver, ctx.shortPrompt, [{ type: 'image', mimeType: 'image/png', data: PIXEL_PNG }]);
    const id = ctx.version === 2 ? 'ACP-V2-CAP-01' : 'ACP-V1-CAP-02';
    ctx.judge(id, t.response.error === undefined, `the agent advertises ${path} but refused a prompt with an image block: ${JSON.stringify(t.response.error)}`, [t.response.seq]);
  },
};

/**
 * Logout where the agent offers it (v1: `auth.logout` advertised; v2: any auth method, which
 * obliges both auth/login and auth/logout, ACP-V2-AUTH-01) answers `{}` (ACP-ALL-AUTH-01). A
 * missing method fails. Another error counts only after the checker logged in (--auth): no text
 * says what logging out without a login gives, so that is not exercised.
 */
export const logout: CheckCase = {
  name: 'auth/logout',
  title: 'logout where the agent offers it',
  ids: ['ACP-ALL-AUTH-01', 'ACP-V1-CAP-02', 'ACP-V2-AUTH-01'],
  protocols: [1, 2],
  async run(ctx) {
    const init = await ctx.init();
    const v = ctx.version;
    const methods = at(init, 'authMethods');
    if (v === 1 && !ctx.advertises('auth.logout')) return ctx.skip('the agent does not advertise auth.logout');
    if (v === 2 && (!Array.isArray(methods) || methods.length === 0)) return ctx.skip('the agent advertises no auth methods');
    const method = v === 2 ? 'auth/logout' : 'logout';
    const r = await ctx.driver.request(method, {}, ctx.timeout);
    const why = v === 2 ? 'it advertises auth methods, so it must implement auth/logout' : 'it advertises auth.logout';
    if (!ctx.judge(v === 2 ? 'ACP-V2-AUTH-01' : 'ACP-V1-CAP-02', at(r.error, 'code') !== -32601, `${method} is not implemented (${JSON.stringify(r.error)}) though ${why}`, [r.seq])) return;
    if (r.error && ctx.settings.auth === undefined) return ctx.skip(`${method} without a login failed (${JSON.stringify(r.error)}); run with --auth to judge logout after a login`);
    ctx.judge('ACP-ALL-AUTH-01', r.error === undefined && isObj(r.result), `${method} after a login must answer {}; got ${JSON.stringify(r.error ?? r.result)}`, [r.seq]);
  },
};
