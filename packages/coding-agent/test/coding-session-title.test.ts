/**
 * The built-in agent names its sessions after the first prompt (`session_info_update` title,
 * ACP-ALL-INFO-01), so `session/list` and pickers are not all "(untitled)".
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCodingAgent, createDemoModel, titleFromPrompt } from '../src/coding-agent.js';
import { startHarness, type Harness } from '../../../test/fixtures/coding-harness.js';

let h: Harness | undefined;
const dirs: string[] = [];
afterEach(async () => {
  h?.tap.assertAllValid();
  await h?.close();
  h = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function cwd(): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), 'coding-title-')));
  dirs.push(d);
  return d;
}

const titles = (updates: Array<Record<string, any>>) =>
  updates.filter((u) => u.sessionUpdate === 'session_info_update').map((u) => u.title);

describe('session titles from the first prompt', () => {
  it('titleFromPrompt: one line, collapsed whitespace, at most 60 characters cut at a word, with …', () => {
    expect(titleFromPrompt('  list   the\nfiles \t please ')).toBe('list the files please');
    const long = 'refactor the session store so that listing a thousand sessions reads only the headers of each file';
    const t = titleFromPrompt(long)!;
    expect(t).toBe('refactor the session store so that listing a thousand…');
    expect(t.length).toBeLessThanOrEqual(61);
    expect(titleFromPrompt('x'.repeat(100))).toBe(`${'x'.repeat(60)}…`);
    expect(titleFromPrompt(' \n ')).toBeUndefined();
  });

  for (const version of [1, 2] as const) {
    it(`v${version}: the first prompt sends one title, later prompts and slash commands none; session/list shows it`, async () => {
      h = await startHarness({
        version,
        cwd: cwd(),
        agent: createCodingAgent({ model: createDemoModel({ delayMs: 0 }) }),
      });
      expect(titles((await h.turn('/help')).updates)).toEqual([]);
      const first = await h.turn('list   the\nfiles');
      expect(titles(first.updates)).toEqual(['list the files']);
      // sent at the end of the first turn, after the answer
      const named = first.updates.findIndex((u) => u.sessionUpdate === 'session_info_update');
      expect(first.updates[named]).toEqual({ sessionUpdate: 'session_info_update', title: 'list the files' });
      expect(named).toBeGreaterThan(first.updates.findLastIndex((u) => u.sessionUpdate === 'agent_message_chunk'));
      expect(titles((await h.turn('search TODO')).updates)).toEqual([]);
      const list = (await h.peer.request('session/list', {})) as {
        sessions: Array<{ sessionId: string; title?: string | null }>;
      };
      expect(list.sessions.find((s) => s.sessionId === h!.sessionId)?.title).toBe('list the files');
    });
  }
});
