/**
 * `check agent --elicitation` (issue 26 item 2): the checker advertises form elicitation, declines
 * every question and judges what arrives with the wire rules (ACP-ALL-ELIC-01, -03). Calibrated on
 * the built-in agent asking through its ask_user tool (conformant, and the question did arrive),
 * and on the checker fixture asking with two scopes at once (ACP-ALL-ELIC-03). Without the flag
 * the checker advertises nothing and a question breaks ACP-ALL-CAP-01 as before.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { checkAgent } from '../src/checker/check-agent.js';
import type { InProcessAgent } from '../src/checker/launch.js';
import type { CheckRun } from '../src/checker/runner.js';
import { startFixtureAgent } from '../../../test/fixtures/checker/agent-core.mjs';
import { acpKitAgent } from '../../../test/support/checker-agents.js';
import { tempDir } from '../../../test/support/temp.js';

const ASK = 'ask Which database? choices postgres, sqlite';
const failed = (run: CheckRun, re: RegExp) =>
  run.requirements
    .filter((r) => r.status === 'fail' && re.test(r.id))
    .map((r) => `v${r.protocol} ${r.id}`)
    .sort();

/** `agent`, counting the elicitation/create requests it writes. */
function tapped(agent: InProcessAgent): { agent: InProcessAgent; asked: () => number } {
  let asked = 0;
  return {
    asked: () => asked,
    agent: (io) => {
      const out = new PassThrough();
      out.on('data', (d: Buffer) => {
        asked += String(d).split('"elicitation/create"').length - 1;
      });
      out.pipe(io.output);
      return agent({ ...io, output: out });
    },
  };
}

const fixture =
  (BREAK: string): InProcessAgent =>
  (io) =>
    startFixtureAgent(io, { BREAK });

describe('check agent --elicitation', () => {
  it('the built-in agent asks (its ask_user tool) and is judged conformant on v1 and v2', async () => {
    const a = tapped(acpKitAgent(tempDir('check-elicit-')).agent);
    const run = await checkAgent(a.agent, {
      prompt: ASK,
      cancelPrompt: 'run sleep 3',
      elicitation: true,
      cwd: tempDir('check-elicit-cwd-'),
    });
    expect(a.asked()).toBeGreaterThan(0);
    expect(failed(run, /ELIC|CAP-01/)).toEqual([]);
  }, 120_000);

  it('without --elicitation the built-in agent does not ask (nothing was advertised)', async () => {
    const a = tapped(acpKitAgent(tempDir('check-elicit-')).agent);
    const run = await checkAgent(a.agent, {
      prompt: ASK,
      cancelPrompt: 'run sleep 3',
      cwd: tempDir('check-elicit-cwd-'),
    });
    expect(a.asked()).toBe(0);
    expect(failed(run, /ELIC|CAP-01/)).toEqual([]);
  }, 120_000);

  it('a question scoped to a session and a request at once breaks ACP-ALL-ELIC-03; unadvertised, ACP-ALL-CAP-01 too', async () => {
    const withFlag = await checkAgent(fixture('elicit-two-scopes'), {
      prompt: 'go',
      elicitation: true,
      cwd: tempDir('check-elicit-cwd-'),
    });
    expect(failed(withFlag, /ELIC|CAP-01/)).toEqual(['v1 ACP-ALL-ELIC-03', 'v2 ACP-ALL-ELIC-03']);
    const without = await checkAgent(fixture('elicit-two-scopes'), { prompt: 'go', cwd: tempDir('check-elicit-cwd-') });
    expect(failed(without, /CAP-01|ELIC-01/)).toEqual([
      'v1 ACP-ALL-CAP-01',
      'v1 ACP-ALL-ELIC-01',
      'v2 ACP-ALL-CAP-01',
      'v2 ACP-ALL-ELIC-01',
    ]);
  }, 120_000);
});
