// acp-devtools exports, read with the exports acp-devtools itself wrote (test/fixtures/acp-devtools: real editors
// and agents, see its README): every message is a frame in every acp-kit command that reads captures.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCapture } from '../src/proxy/index.js';
import { loadCapture } from '../src/inspector/source.js';
import { BIN, cliEnv, ndjson, runCli } from '../../../test/fixtures/cli-helpers.js';
import { jsonLines } from '../../../test/support/json-lines.js';
import { tempDir } from '../../../test/support/temp.js';

const DIR = join(import.meta.dirname, '../../../test/fixtures', 'acp-devtools');
const EXPORTS = readdirSync(DIR).filter((n) => n.endsWith('.json'));
const ZED = join(DIR, 'zed-1.5.4-claude-code-0.43.0.json');
const GOOSE = join(DIR, 'goose-1.37.0.json');

interface Message {
  seq: number;
  timestamp: number;
  direction: string;
  raw: string;
}
interface Export {
  session: { agentCommand: string | null; startedAt: number };
  messages: Message[];
}
const load = (path: string): Export => JSON.parse(readFileSync(path, 'utf8')) as Export;

describe('acp-devtools exports (written by acp-devtools)', () => {
  it.each(EXPORTS)(
    '%s: every message is a frame (seq, direction, time since the session started, raw line) and the header has the agent command and start',
    async (name) => {
      const doc = load(join(DIR, name));
      const c = await readCapture(join(DIR, name));
      expect(c.skipped).toEqual([]);
      expect(c.frames.map((f) => [f.seq, f.dir, f.t, f.raw])).toEqual(
        doc.messages.map((m) => [
          m.seq,
          m.direction === 'editor-to-agent' ? 'editor->agent' : 'agent->editor',
          m.timestamp - doc.session.startedAt,
          m.raw,
        ]),
      );
      expect(c.header).toMatchObject({
        source: 'acp-devtools',
        agent: (doc.session.agentCommand ?? '').split(' ').filter(Boolean),
        start: new Date(doc.session.startedAt).toISOString(),
      });
    },
  );

  it('the Zed export: requests with the id after params are requests, the answers match them', async () => {
    const c = await readCapture(ZED);
    expect(c.header?.agent).toEqual(['npx', '-y', '@agentclientprotocol/claude-agent-acp']);
    const requests = c.frames.filter((f) => f.dir === 'editor->agent');
    expect(requests.map((f) => [f.kind, f.method, typeof f.id])).toEqual([
      ['request', 'initialize', 'string'],
      ['request', 'session/new', 'string'],
      ['request', 'session/new', 'string'],
      ['request', 'session/prompt', 'string'],
    ]);
    for (const r of requests)
      expect(c.frames.filter((f) => f.dir === 'agent->editor' && f.kind === 'response' && f.id === r.id)).toHaveLength(
        1,
      );
  });

  it('the one-line export (acp-devtools export --no-pretty) reads as the pretty one', async () => {
    const pretty = await readCapture(join(DIR, 'codex-acp-0.16.0.json'));
    const compact = await readCapture(join(DIR, 'codex-acp-0.16.0.no-pretty.json'));
    expect(compact.frames).toEqual(pretty.frames);
    expect(compact.header).toEqual(pretty.header);
  });

  it('validate, stats, captures show and diff see the frames', async () => {
    const goose = load(GOOSE);
    const [validate, stats, show, same, differ] = await Promise.all([
      runCli(['validate', GOOSE, '--json']),
      runCli(['stats', GOOSE, '--json']),
      runCli(['captures', 'show', ZED]),
      runCli(['diff', join(DIR, 'codex-acp-0.16.0.json'), join(DIR, 'codex-acp-0.16.0.no-pretty.json')]),
      runCli(['diff', ZED, GOOSE]),
    ]);
    expect(validate.code).toBe(0);
    expect(ndjson(validate.stdout).at(-1)).toMatchObject({
      type: 'result',
      frames: goose.messages.length,
      protocolVersion: 1,
      violations: 0,
    });
    expect(stats.code).toBe(0);
    expect(stats.stderr).toBe('');
    const s = ndjson(stats.stdout)[0]!;
    expect(s).toMatchObject({ frames: goose.messages.length, protocolVersion: 1, stopReasons: { end_turn: 2 } });
    expect(s.methods.find((m: { method: string }) => m.method === 'fs/read_text_file')).toMatchObject({
      dir: 'agent->editor',
      requests: 6,
      unanswered: 0,
    });
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(
      /^capture of npx -y @agentclientprotocol\/claude-agent-acp, started .*, from acp-devtools$/m,
    );
    expect(show.stdout.split('\n').filter((l) => /^ +\d+ +[\d.]+s /.test(l))).toHaveLength(load(ZED).messages.length);
    expect(show.stdout).toMatch(/editor -> agent +request initialize #"923b32c5-8128-4f02-8682-f46726460ef8"/);
    expect(same.code).toBe(0);
    expect(same.stdout).toMatch(/no differences/);
    expect(differ.code).toBe(1);
    expect(differ.stdout).toMatch(/A: .* \(18 frames\)\nB: .* \(571 frames\)/);
  }, 30_000);

  it('the inspector loads an export and replay --as agent answers from it (real process)', async () => {
    const goose = load(GOOSE);
    const model = await loadCapture(GOOSE);
    expect(model.frames).toHaveLength(goose.messages.length);
    expect(model.rows.length).toBeGreaterThan(0);
    const zed = load(ZED);
    const init = zed.messages[0]!;
    const answer = zed.messages.find(
      (m) =>
        m.direction === 'agent-to-editor' &&
        (JSON.parse(m.raw) as { id?: unknown }).id === (JSON.parse(init.raw) as { id?: unknown }).id,
    )!;
    const replay = spawn(process.execPath, [BIN, 'replay', ZED, '--as', 'agent', '--fast'], {
      env: cliEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const exited = new Promise((res) => replay.on('close', res));
    const out = jsonLines(replay.stdout);
    replay.stdin.write(`${init.raw}\n`);
    expect(await out.next()).toEqual(JSON.parse(answer.raw));
    replay.kill();
    await exited;
  }, 30_000);

  it('a message with an unknown direction is skipped at the line where it starts', async () => {
    const doc = load(ZED);
    doc.messages[3]!.direction = 'sideways';
    const text = `${JSON.stringify(doc, null, 4)}\n`; // acp-devtools' serializeExport
    const p = join(tempDir('acp-devtools-'), 'x.json');
    writeFileSync(p, text);
    const c = await readCapture(p);
    // the message's "{" is on the line before its "seq"
    const line = text.split('\n').findIndex((l) => l.trim() === `"seq": ${doc.messages[3]!.seq},`);
    expect(c.skipped).toEqual([
      { line, reason: 'messages[3]: direction "sideways" is neither "editor-to-agent" nor "agent-to-editor"' },
    ]);
    expect(c.frames).toHaveLength(doc.messages.length - 1);
  });
});
