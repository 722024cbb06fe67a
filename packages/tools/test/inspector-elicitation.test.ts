/**
 * The inspector's session view of an elicitation (issue 26 item 2): in captures recorded through
 * `acp-kit proxy --record` from `acp-kit run` answering the built-in agent (v1 and v2), the
 * question shows as a form item among the turn's entries (message, fields with type, choices and
 * required mark) with its answer beside it (action and content), once answered (as permissions).
 * A url elicitation shows its URL and host.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { elicitationView } from '../src/inspector/elicitation-view.js';
import { loadCapture } from '../src/inspector/index.js';
import { BIN, cliEnv, runCli, tempDir } from '../../../test/fixtures/cli-helpers.js';

const ASK = 'ask Which database? choices postgres, sqlite';

async function record(protocol: '1' | '2', args: string[]): Promise<string> {
  const cwd = tempDir('inspector-elicit');
  const cap = join(cwd, 'cap.ndjson');
  const agent = `${process.execPath} ${BIN} proxy --record ${cap} -- ${process.execPath} ${BIN} agent --model demo`;
  const r = await runCli(['run', '--protocol', protocol, '--agent', agent, ...args, ASK], { cwd, env: cliEnv() });
  expect(r.code, r.stderr).toBe(0);
  return cap;
}

describe('inspector: elicitation', () => {
  for (const protocol of ['1', '2'] as const) {
    it(`v${protocol}: the form and its answer show in the session, in the turn`, async () => {
      const m = await loadCapture(await record(protocol, ['--answer', 'answer=sqlite']));
      const asked = m.frames.find((f) => f.method === 'elicitation/create');
      expect(asked).toBeDefined();
      const items = m.sessionViews()[0]?.items ?? [];
      const e = items.find((i) => i.kind === 'elicitation');
      expect(e).toMatchObject({
        mode: 'form',
        message: 'Which database?',
        fields: [{ name: 'answer', type: 'string', required: true, choices: ['postgres', 'sqlite'] }],
        action: 'accept',
        content: { answer: 'sqlite' },
      });
      // slotted in the turn: after the prompt's user message, before the agent's reply reading the answer
      const kinds = items.map((i) => i.kind);
      expect(kinds.indexOf('elicitation')).toBeGreaterThan(kinds.indexOf('message'));
      expect(kinds.lastIndexOf('message')).toBeGreaterThan(kinds.indexOf('elicitation'));
    }, 60_000);
  }

  it('a declined form shows decline; url mode shows the URL and its host', async () => {
    const m = await loadCapture(await record('2', []));
    expect(m.sessionViews()[0]?.items.find((i) => i.kind === 'elicitation')).toMatchObject({ action: 'decline' });
    const url = elicitationView(
      { sessionId: 's', mode: 'url', elicitationId: 'e', url: 'https://auth.example.com/x?y=1', message: 'Sign in' },
      { action: 'accept' },
      false,
      [3, 4],
    );
    expect(url).toMatchObject({ url: 'https://auth.example.com/x?y=1', host: 'auth.example.com', action: 'accept' });
  }, 60_000);
});
