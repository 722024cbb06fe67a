import { at } from '@acp-kit/protocol/internal';
import type { CheckCase } from '../case.js';

/**
 * v1 legacy session modes (deprecated, still what agents such as claude-agent-acp send): an agent
 * whose session/new returns `modes` takes session/set_mode of a mode it listed and answers `{}`
 * (the method's result; its shape is judged by the wire checks). The digest holds no MUST for the
 * agent here: the case judges ACP-V1-MODE-01 (MAY: offering modes), so a refusal is reported
 * without failing the verdict. v2 has no modes (ACP-V2-CFG-04).
 */
export const setModeV1: CheckCase = {
  name: 'sessions/set-mode-v1',
  title: 'session/set_mode to a mode session/new offered (v1 legacy modes)',
  ids: ['ACP-V1-MODE-01'],
  protocols: [1],
  async run(ctx) {
    await ctx.init();
    const n = await ctx.driver.request('session/new', { cwd: ctx.settings.cwd, mcpServers: [] }, ctx.timeout);
    const sid = at(n.result, 'sessionId');
    const available = at(n.result, 'modes', 'availableModes');
    const current = at(n.result, 'modes', 'currentModeId');
    if (typeof sid !== 'string' || !Array.isArray(available) || available.length === 0)
      return ctx.skip('session/new returned no modes');
    // another mode than the current one when there is one: a switch, not a no-op
    const ids = available.map((m) => at(m, 'id')).filter((id): id is string => typeof id === 'string');
    const modeId = ids.find((id) => id !== current) ?? ids[0];
    if (modeId === undefined) return ctx.skip('the modes session/new returned have no id');
    const r = await ctx.driver.request('session/set_mode', { sessionId: sid, modeId }, ctx.timeout);
    ctx.judge(
      'ACP-V1-MODE-01',
      r.error === undefined,
      `session/set_mode to ${JSON.stringify(modeId)}, a mode session/new offered, failed: ${JSON.stringify(r.error)}`,
      [n.seq, r.seq],
    );
  },
};
