// Issue 28: `--agent <id>` in every command that starts an agent (run, chat, proxy, check,
// conduct, serve, and a profile of the config file naming an id), and the binary distributions
// that no npm package covers: a tar.gz and a zip made here, served over loopback with their
// sha256 (a wrong one refused), unpacked into the data dir, and `agents update` to a newer
// version. The agent in the archives is a shell script that starts acp-kit's built-in agent on
// its offline demo model and, first, appends the manifest's $REG_MARK to a file: every command's
// test sees one more line, so the manifest's env reached the process the command started.
import { createHash } from 'node:crypto';
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformKey } from '../packages/tools/src/registry/index.js';
import { BIN, ndjson, startCli, waitFor } from './fixtures/cli-helpers.js';
import { useCli } from './support/cli.js';
import { registryText, startRegistryServer, type RegistryServer } from './support/registry-server.js';
import { tempDir } from './support/temp.js';
import { HAS_TMUX, useTmuxChat } from './support/tmux-chat.js';

const cli = useCli();
const TOKEN = 'reg-launch-token-0123456789abcdef';
const { startChat } = useTmuxChat();
const work = tempDir('acp-reg-launch-');
const markFile = join(work, 'marks');
const marks = (): string[] => (existsSync(markFile) ? readFileSync(markFile, 'utf8').split('\n').filter(Boolean) : []);
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** Packs `bin/demo-agent` into a tar.gz and a zip (the registry's archive kinds), with the tools a user has. */
function makeArchives(): { tgz: Buffer; zip: Buffer } {
  const src = join(work, 'src');
  mkdirSync(join(src, 'bin'), { recursive: true });
  const script = join(src, 'bin', 'demo-agent');
  writeFileSync(
    script,
    `#!/bin/sh\necho "$REG_MARK" >> '${markFile}'\nexec '${process.execPath}' '${BIN}' agent --model demo "$@"\n`,
  );
  chmodSync(script, 0o755);
  execFileSync('tar', ['-czf', join(work, 'demo.tar.gz'), '-C', src, 'bin']);
  execFileSync('zip', ['-q', '-r', join(work, 'demo.zip'), 'bin'], { cwd: src });
  return { tgz: readFileSync(join(work, 'demo.tar.gz')), zip: readFileSync(join(work, 'demo.zip')) };
}

const here = platformKey();
let files: Server;
let base = '';
/** Downloads per path: an installed agent is not downloaded again. */
const downloads = new Map<string, number>();
let registry: RegistryServer;
let archives: { tgz: Buffer; zip: Buffer };
let data: string;

/** A binary-only manifest for this platform. */
function manifest(id: string, version: string, file: string, sum: string): Record<string, unknown> {
  if (!here) throw new Error('this test needs a platform the registry has binaries for');
  return {
    id,
    name: id,
    version,
    description: `${id} from a loopback archive`,
    distribution: {
      binary: {
        [here]: { archive: `${base}/${version}/${file}`, sha256: sum, cmd: './bin/demo-agent', env: { REG_MARK: id } },
      },
    },
  };
}

const agentsAt = (tgzVersion: string): unknown[] => [
  manifest('demo-tgz', tgzVersion, 'demo.tar.gz', sha(archives.tgz)),
  manifest('demo-zip', '1.0.0', 'demo.zip', sha(archives.zip)),
  manifest('bad-sum', '1.0.0', 'demo.tar.gz', 'ab'.repeat(32)),
];

beforeAll(async () => {
  archives = makeArchives();
  files = createServer((req, res) => {
    const path = req.url ?? '';
    downloads.set(path, (downloads.get(path) ?? 0) + 1);
    res.end(path.endsWith('.zip') ? archives.zip : archives.tgz);
  });
  await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  registry = await startRegistryServer(registryText(agentsAt('1.0.0')));
  data = tempDir('acp-reg-launch-data-');
});
afterAll(async () => {
  await registry.close();
  files.closeAllConnections();
  await new Promise((r) => files.close(r));
});

const envFor = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: tempDir('acp-reg-launch-home-'),
  ACP_KIT_DATA_DIR: data,
  ACP_KIT_REGISTRY: registry.url,
  ACP_KIT_DEMO_DELAY_MS: '0',
  NO_COLOR: '1',
  ...extra,
});

/** `initialize` then the end of stdin: what an editor sends first, for proxy and conduct. */
const INIT = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } })}\n`;
const initAnswer = (stdout: string) =>
  ndjson(
    stdout
      .split('\n')
      .filter((l) => l.endsWith('}'))
      .join('\n'),
  ).find((m) => m.id === 1);

describe('binary distributions', () => {
  it('run --agent demo-tgz: downloads the tar.gz, checks its sha256, unpacks it, runs a turn; the second run reuses it', async () => {
    const before = marks().length;
    const first = await cli(['run', '--json', '--agent', 'demo-tgz', 'hello'], { env: envFor() });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/installed demo-tgz@1\.0\.0 \(binary\) in \S+agents\/demo-tgz\/1\.0\.0-binary/);
    const dir = join(data, 'agents', 'demo-tgz', '1.0.0-binary');
    expect(readFileSync(join(dir, '.complete'), 'utf8').trim()).toBe(sha(archives.tgz));
    expect(ndjson(first.stdout).at(-1)).toMatchObject({ type: 'result', stopReason: 'end_turn', exitCode: 0 });
    const second = await cli(['run', '--json', '--agent', 'demo-tgz', 'again'], { env: envFor() });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toContain('installed demo-tgz');
    expect(downloads.get('/1.0.0/demo.tar.gz')).toBe(1);
    expect(marks().slice(before)).toEqual(['demo-tgz', 'demo-tgz']);
  }, 60_000);

  it('a wrong sha256 is refused: exit 9, both sums named, nothing installed', async () => {
    const r = await cli(['agents', 'install', 'bad-sum'], { env: envFor() });
    expect(r.code).toBe(9);
    expect(r.stderr).toContain(
      `bad-sum: the archive's sha256 is ${sha(archives.tgz)}, the manifest says ${'ab'.repeat(32)}: not installed`,
    );
    expect(r.stderr).toContain('do not run it');
    expect(readdirSync(join(data, 'agents', 'bad-sum'))).toEqual([]);
  });

  it('check agent --agent demo-zip: the zip unpacked and checked', async () => {
    const before = marks().length;
    const r = await cli(['check', 'agent', '--agent', 'demo-zip', '--only', 'ACP-ALL-INIT-03', '--json'], {
      env: envFor(),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(data, 'agents', 'demo-zip', '1.0.0-binary', 'bin', 'demo-agent'))).toBe(true);
    const report = ndjson(r.stdout).find((e) => e.type === 'report');
    expect(report?.agent).toMatch(/^demo-zip@1\.0\.0 \(ACP Registry, /);
    const judged = (report?.requirements ?? []) as Array<{ id: string; status: string }>;
    expect(judged.map((x) => [x.id, x.status])).toEqual([
      ['ACP-ALL-INIT-03', 'pass'],
      ['ACP-ALL-INIT-03', 'pass'],
    ]);
    expect(marks().slice(before)).toContain('demo-zip');
  }, 60_000);

  it('agents update: the newer version of the registry is installed beside the old one (kept)', async () => {
    registry.setBody(registryText(agentsAt('1.1.0')));
    try {
      const r = await cli(['agents', 'update'], { env: envFor() });
      expect(r.stdout).toContain('demo-tgz: 1.1.0 installed');
      expect(r.stdout).toContain('demo-zip: 1.0.0 already current');
      expect(readdirSync(join(data, 'agents', 'demo-tgz')).sort()).toEqual(['1.0.0-binary', '1.1.0-binary']);
      expect(downloads.get('/1.1.0/demo.tar.gz')).toBe(1);
    } finally {
      registry.setBody(registryText(agentsAt('1.0.0')));
    }
  }, 60_000);
});

describe('--agent <id> in the commands that start an agent', () => {
  it('proxy --agent demo-tgz relays initialize to the registry agent', async () => {
    const before = marks().length;
    const r = await cli(['proxy', '--agent', 'demo-tgz'], { env: envFor(), input: INIT });
    expect(initAnswer(r.stdout)?.result?.agentInfo?.name, r.stderr).toBe('acp-kit-agent');
    expect(marks().slice(before)).toEqual(['demo-tgz']);
  }, 30_000);

  it('conduct --agent demo-tgz: the registry agent ends the chain (no component)', async () => {
    const before = marks().length;
    // the conductor stops when the editor leaves: stdin stays open until the answer is there
    const child = spawn(process.execPath, [BIN, 'conduct', '--agent', 'demo-tgz'], { env: envFor() });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString('utf8')));
    child.stderr.on('data', (b: Buffer) => (err += b.toString('utf8')));
    const exited = new Promise<number | null>((r) => child.on('close', r));
    try {
      child.stdin.write(INIT);
      const answer = await waitFor(
        () => initAnswer(out),
        20_000,
        () => `the initialize answer; stderr: ${err}`,
      );
      expect(answer.result?.agentInfo?.name).toBe('acp-kit-agent');
    } finally {
      child.stdin.end();
    }
    expect(await exited).toBe(0);
    expect(marks().slice(before)).toEqual(['demo-tgz']);
  }, 30_000);

  it('a profile whose agent is {"id": "demo-zip"} runs it; profiles list shows the id', async () => {
    const config = tempDir('acp-reg-launch-xdg-');
    mkdirSync(join(config, 'acp-kit'));
    writeFileSync(
      join(config, 'acp-kit', 'config.json'),
      JSON.stringify({ version: 1, profiles: { reg: { agent: { id: 'demo-zip', env: { EXTRA: '1' } } } } }),
    );
    const env = envFor({ XDG_CONFIG_HOME: config });
    const before = marks().length;
    const r = await cli(['run', '--json', '--profile', 'reg', 'hello'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(ndjson(r.stdout)[0]).toMatchObject({ type: 'connection', agentInfo: { name: 'acp-kit-agent' } });
    expect(marks().slice(before)).toEqual(['demo-zip']);
    expect((await cli(['profiles', 'list'], { env })).stdout).toMatch(/^reg\s+demo-zip$/m);
  }, 30_000);

  it('a profile agent with an id and args: exit 2 naming the field', async () => {
    const config = tempDir('acp-reg-launch-xdg-');
    mkdirSync(join(config, 'acp-kit'));
    writeFileSync(
      join(config, 'acp-kit', 'config.json'),
      JSON.stringify({ version: 1, profiles: { both: { agent: { id: 'demo-zip', args: ['--x'] } } } }),
    );
    const r = await cli(['run', '--profile', 'both', 'hello'], { env: envFor({ XDG_CONFIG_HOME: config }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'profiles.both.agent: "id" names a registry agent; it goes without "command" and "args"',
    );
  });

  it('a profile naming an id the registry lacks: exit 2, not taken for a command', async () => {
    const config = tempDir('acp-reg-launch-xdg-');
    mkdirSync(join(config, 'acp-kit'));
    writeFileSync(
      join(config, 'acp-kit', 'config.json'),
      JSON.stringify({ version: 1, profiles: { gone: { agent: { id: 'no-such-agent' } } } }),
    );
    const r = await cli(['run', '--profile', 'gone', 'hello'], { env: envFor({ XDG_CONFIG_HOME: config }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no agent "no-such-agent" in the registry');
  });

  it('serve --agent demo-tgz: a client over WebSocket gets the registry agent', async () => {
    const serve = startCli(['serve', '--port', '0', '--token', TOKEN, '--agent', 'demo-tgz'], { env: envFor() });
    try {
      const url = await waitFor(() => /listening on (ws:\/\/\S+)/.exec(serve.stderr())?.[1], 20_000, 'serve');
      expect(serve.stderr()).toMatch(/demo-tgz@1\.0\.0 \(ACP Registry, (linux|darwin|windows)-/);
      const before = marks().length;
      const r = await cli(['run', '--json', '--agent-url', url, 'hello'], {
        env: envFor({ ACP_KIT_AGENT_TOKEN: TOKEN }),
      });
      expect(r.code, r.stderr).toBe(0);
      expect(ndjson(r.stdout)[0]).toMatchObject({ type: 'connection', agentInfo: { name: 'acp-kit-agent' } });
      expect(marks().slice(before)).toEqual(['demo-tgz']);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.done;
    }
  }, 60_000);

  it.runIf(HAS_TMUX)(
    'chat --agent demo-zip: the chat talks to the registry agent',
    async () => {
      const before = marks().length;
      const c = startChat(
        { ACP_KIT_DATA_DIR: data, ACP_KIT_REGISTRY: registry.url, HOME: tempDir('acp-reg-launch-home-') },
        ['--agent', 'demo-zip'],
      );
      await c.waitScreen(/acp-kit chat · acp-kit coding agent/, 'the agent header');
      c.type('hello');
      await c.waitScreen(/hello/i, 'the turn');
      c.key('C-d');
      expect(await c.exitCode()).toBe('EXIT=0');
      expect(marks().slice(before)).toEqual(['demo-zip']);
    },
    60_000,
  );
});
