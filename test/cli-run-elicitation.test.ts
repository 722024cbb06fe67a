/**
 * `acp-kit run` answering the agent's questions (issue 26 item 2), as a real process against the
 * built-in demo agent over v1 and v2: forms are declined by default, answered from `--answer`
 * and `--answers <file>`, and `--json` carries the question and the answer as `elicitation` events.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cliEnv, ndjson, runCli, tempDir } from './fixtures/cli-helpers.js';

const ASK = 'ask Which database? choices postgres, sqlite';
type Ev = Record<string, any>;

describe.concurrent('acp-kit run: elicitation (built-in demo agent)', () => {
  for (const protocol of ['1', '2'] as const) {
    it(`v${protocol}: --json carries the question and the answer from --answer; the agent reads the answer`, async () => {
      const r = await runCli(['run', '--json', '--protocol', protocol, '--answer', 'answer=sqlite', ASK], {
        cwd: tempDir('run-elicit'),
        env: cliEnv(),
      });
      expect(r.code, r.stderr).toBe(0);
      const events: Ev[] = ndjson(r.stdout);
      const elic = events.filter((e) => e.type === 'elicitation');
      expect(elic.map((e) => e.event)).toEqual(['asked', 'answered']);
      expect(elic[0]?.request).toMatchObject({
        mode: 'form',
        message: 'Which database?',
        requestedSchema: { properties: { answer: { enum: ['postgres', 'sqlite'] } } },
      });
      expect(elic[1]?.response).toEqual({ action: 'accept', content: { answer: 'sqlite' } });
      const said = events
        .filter((e) => e.type === 'update' && e.update.sessionUpdate === 'agent_message_chunk')
        .map((e) => e.update.content.text)
        .join('');
      expect(said).toContain('The user answered: sqlite');
    });
  }

  // through the translating bridge, both ways: `--bridge 2` puts a v2 editor (this run) in front of
  // the built-in agent spoken to in v1, `--bridge 1` a v1 editor in front of it in v2
  for (const editor of ['1', '2'] as const) {
    it(`through the bridge (v${editor} run, v${editor === '1' ? '2' : '1'} agent): the form and the answer cross both legs`, async () => {
      const agent = `${process.execPath} ${BIN} proxy --bridge ${editor} -- ${process.execPath} ${BIN} agent --model demo`;
      const r = await runCli(
        ['run', '--json', '--protocol', editor, '--agent', agent, '--answer', 'answer=postgres', ASK],
        { cwd: tempDir('run-elicit-bridge'), env: cliEnv() },
      );
      expect(r.code, r.stderr).toBe(0);
      const events: Ev[] = ndjson(r.stdout);
      expect(events[0]).toMatchObject({ type: 'connection', protocolVersion: Number(editor) });
      const answered = events.find((e) => e.type === 'elicitation' && e.event === 'answered');
      expect(answered?.request).toMatchObject({ mode: 'form', message: 'Which database?' });
      expect(answered?.response).toEqual({ action: 'accept', content: { answer: 'postgres' } });
      const said = events
        .filter((e) => e.type === 'update' && e.update.sessionUpdate === 'agent_message_chunk')
        .map((e) => e.update.content.text)
        .join('');
      expect(said).toContain('The user answered: postgres');
    });
  }

  it('declines by default, with the reason in the answered event', async () => {
    const r = await runCli(['run', '--json', ASK], { cwd: tempDir('run-elicit'), env: cliEnv() });
    expect(r.code, r.stderr).toBe(0);
    const answered = ndjson(r.stdout).find((e: Ev) => e.type === 'elicitation' && e.event === 'answered');
    expect(answered).toMatchObject({
      response: { action: 'decline' },
      reason: expect.stringMatching(/answer: no answer given/),
    });
  });

  it('--answers file.json answers (text mode shows the question and the answer); an answer that fits no choice declines', async () => {
    const cwd = tempDir('run-elicit');
    const file = join(cwd, 'answers.json');
    writeFileSync(file, JSON.stringify({ answer: 'postgres' }));
    const ok = await runCli(['run', '--answers', file, ASK], { cwd, env: cliEnv({ NO_COLOR: '1' }) });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('? Which database?');
    expect(ok.stdout).toContain('accept {"answer":"postgres"}');
    expect(ok.stdout).toContain('The user answered: postgres');
    const bad = await runCli(['run', '--answer', 'answer=mysql', ASK], { cwd, env: cliEnv({ NO_COLOR: '1' }) });
    expect(bad.stdout).toMatch(/decline \(declined: answer: must be one of "postgres", "sqlite"/);
    expect(bad.stdout).toContain('The user declined to answer the question.');
  });

  it('a malformed --answer or answers file is a usage error (exit 2)', async () => {
    const cwd = tempDir('run-elicit');
    const r = await runCli(['run', '--answer', 'noequals', ASK], { cwd, env: cliEnv() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--answer "noequals": expected key=value');
    writeFileSync(join(cwd, 'bad.json'), '[1]');
    const f = await runCli(['run', '--answers', join(cwd, 'bad.json'), ASK], { cwd, env: cliEnv() });
    expect(f.code).toBe(2);
    expect(f.stderr).toContain('must hold one JSON object');
  });
});
