// What `acp-kit run --agent-url` says when it cannot talk to the server: a real `acp-kit serve` and
// real CLI processes on loopback. The message names the URL and the hint says what to do (start the
// server, pass its token), not "check the --agent command line" (there is no command line).
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { useCli } from './support/cli.js';
import { startServe } from './support/serve-process.js';
import { tempDir } from './support/temp.js';

const cli = useCli();
const procs: ChildProcess[] = [];
afterAll(() => {
  for (const p of procs.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
});

/** A loopback port nobody listens on: bound, then closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  await new Promise((r) => server.close(r));
  return address.port;
}

describe('acp-kit run --agent-url: errors a new user meets', () => {
  it('nothing listens: says it could not connect to the URL and to start the server', async () => {
    const url = `ws://127.0.0.1:${await closedPort()}/acp`;
    const r = await cli(['run', '--agent-url', url, 'hi']);
    expect(r.code).toBe(9);
    expect(r.stderr).toContain(`could not connect to the agent at ${url}`);
    expect(r.stderr).toMatch(/hint: .*acp-kit serve/);
    expect(r.stderr).not.toContain('--agent command line');
  });

  it.each(['ws', 'http'])(
    'no token (%s): the hint names $ACP_KIT_AGENT_TOKEN and --agent-token-file',
    async (scheme) => {
      const serve = await startServe(['--token', 'the-token-0123456789abcdef', '--model', 'demo'], {
        procs,
        env: { ...process.env, ACP_KIT_DATA_DIR: tempDir('acp-url-errors-') },
      });
      const env = { ...process.env };
      delete env.ACP_KIT_AGENT_TOKEN;
      const r = await cli(['run', '--agent-url', scheme === 'ws' ? serve.ws : serve.url, 'hi'], { env });
      expect(r.code).toBe(11); // authentication required, one path for every 401 (issue 23 item 10)
      expect(r.stderr).toContain('401');
      expect(r.stderr).toMatch(/hint: .*ACP_KIT_AGENT_TOKEN.*--agent-token-file/);
      expect(r.stderr).not.toContain('--agent command line');
    },
  );
});

describe('acp-kit serve --token-file: a file that does not exist yet', () => {
  it('exits 2 and says how to create the token file (or to let serve generate a token)', async () => {
    const file = `${tempDir('acp-url-errors-')}/.acp-token`;
    const r = await cli(['serve', '--port', '0', '--token-file', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`cannot read --token-file ${file}`);
    expect(r.stderr).toMatch(/hint: .*openssl rand -hex 24 > /);
  });
});
