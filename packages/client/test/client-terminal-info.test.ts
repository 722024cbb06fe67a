/** `ClientSession.clientTerminal`: the public lookup of v1 client-executed terminals. */
import { afterEach, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { connect, type ClientConnection, type ClientSession, type ClientTerminalInfo } from '../src/index.js';

const RAW = fileURLToPath(new URL('../../../test/fixtures/client-raw-agent.mjs', import.meta.url));
const open: ClientConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function start(args: string[], opts: Partial<Parameters<typeof connect>[0]>) {
  const conn = await connect({ command: process.execPath, args: [RAW, ...args], ...(opts as object) });
  open.push(conn);
  return { conn };
}

describe('ClientSession.clientTerminal (v1 client-executed commands)', () => {
  it('gives the onOutput/onExit callbacks the requested command, cwd and output so far; undefined once released', async () => {
    let session: ClientSession | undefined;
    const onOutput: Array<ClientTerminalInfo | undefined> = [];
    const onExit: Array<ClientTerminalInfo | undefined> = [];
    const ids: string[] = [];
    const { conn } = await start(['--versions=1'], {
      terminals: {
        onOutput: (id: string) => (ids.push(id), onOutput.push(session!.clientTerminal(id))),
        onExit: (id: string) => onExit.push(session!.clientTerminal(id)),
      },
    });
    session = await conn.newSession({ cwd: process.cwd() });
    await session.prompt('term');
    expect(onOutput[0]).toEqual({
      terminalId: ids[0],
      sessionId: session.sessionId,
      command: process.execPath,
      args: ['-e', 'console.log("from terminal")'],
      cwd: process.cwd(),
      output: 'from terminal\n',
      truncated: false,
    });
    expect(onExit[0]).toMatchObject({
      terminalId: ids[0],
      output: 'from terminal\n',
      exitStatus: { exitCode: 0, signal: null },
    });
    // the agent released it (ACP-V1-TERM-08)
    expect(session.clientTerminal(ids[0]!)).toBeUndefined();
    expect(session.clientTerminal('term_nope')).toBeUndefined();
  });

  it('a command line without args is shown as the agent sent it (not /bin/sh -c); truncation and exit status', async () => {
    const { conn } = await start(['--versions=1'], { terminals: true });
    const s = await conn.newSession({ cwd: process.cwd() });
    await s.prompt('term-sh');
    const id = /term-sh:(\S+):3/.exec(s.state.messageList.map((m) => m.text).join('|'))![1]!;
    expect(s.clientTerminal(id)).toEqual({
      terminalId: id,
      sessionId: s.sessionId,
      command: "printf 'abcdefgh'; exit 3",
      args: [],
      cwd: process.cwd(),
      output: 'efgh',
      truncated: true,
      exitStatus: { exitCode: 3, signal: null },
    });
  });

  it('is undefined without terminal support, and on another session', async () => {
    const { conn } = await start(['--versions=1'], { terminals: true });
    const a = await conn.newSession({ cwd: process.cwd() });
    const b = await conn.newSession({ cwd: process.cwd() });
    await a.prompt('term-sh');
    const id = /term-sh:(\S+):3/.exec(a.state.messageList.map((m) => m.text).join('|'))![1]!;
    expect(a.clientTerminal(id)?.command).toBe("printf 'abcdefgh'; exit 3");
    expect(b.clientTerminal(id)).toBeUndefined();
  });
});
