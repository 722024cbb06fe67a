/**
 * The inspector page (Chromium) shows an elicitation as a form card (issue 26 item 2): the
 * message, each field with its type, choices and required mark, the answer's action and content
 * beside it, in a capture recorded through `acp-kit proxy --record` from `acp-kit run` answering
 * the built-in agent.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startInspector } from '../src/inspector/index.js';
import { BIN, cliEnv, runCli, tempDir } from '../../../test/fixtures/cli-helpers.js';
import { useBrowser } from '../../../test/support/inspector.js';

const browser = useBrowser('acp-inspector-elicit-');

describe('inspector page: elicitation', () => {
  it('a form card with its fields, and the answer beside it', async () => {
    const cwd = tempDir('inspector-elicit-page');
    const cap = join(cwd, 'cap.ndjson');
    const agent = `${process.execPath} ${BIN} proxy --record ${cap} -- ${process.execPath} ${BIN} agent --model demo`;
    const r = await runCli(
      [
        'run',
        '--protocol',
        '2',
        '--agent',
        agent,
        '--answer',
        'answer=sqlite',
        'ask Which database? choices postgres, sqlite',
      ],
      { cwd, env: cliEnv() },
    );
    expect(r.code, r.stderr).toBe(0);
    const h = await startInspector({ captures: [cap], listLive: false });
    browser.servers.push(h);
    const { page, errors } = await browser.open(h.url);
    const card = page.getByTestId('item-elicitation').first();
    await card.waitFor({ timeout: 20_000 });
    expect(await card.locator('.label').first().innerText()).toMatch(/Elicitation \(form\): Which database\?\s+accept/);
    expect(await card.getByTestId('elicitation-fields').innerText()).toMatch(
      /Which database\? \* \(string: postgres \| sqlite\)/,
    );
    expect(JSON.parse(await card.getByTestId('elicitation-content').innerText())).toEqual({ answer: 'sqlite' });
    expect(errors).toEqual([]);
  }, 90_000);
});
