import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { at } from '@acp-kit/protocol/internal';
import type { ClientCase, ClientCaseContext } from './context.js';
import { intoTurn, until } from './steps.js';

// The v1 terminal cases of `check client`: the checker, as the agent, runs a command in the client's
// terminal (when the client advertises `terminal`) and watches the process itself, outside the wire.

/** A started terminal: its id and the pid of the command (written by the command itself). */
interface Started {
  terminalId: string;
  pid: number;
  alive(): boolean;
}

/** terminal/create of a node process that writes its pid and idles; skips when the client will not run it. */
async function startTerminal(ctx: ClientCaseContext, sid: string): Promise<Started> {
  if (ctx.clientCapabilities.terminal !== true) ctx.skip('the client does not advertise terminal');
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'acp-kit-check-term-')));
  const pidFile = join(dir, 'pid');
  let pid: number | undefined;
  ctx.cleanups.push(() => {
    if (pid !== undefined) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone, as it should be */
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });
  const script = `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000)`;
  const created = await ctx.p.request(
    'terminal/create',
    { sessionId: sid, command: process.execPath, args: ['-e', script] },
    ctx.id('terminal'),
    ctx.timeout,
  );
  const terminalId = at(created.result, 'terminalId');
  if (created.error || typeof terminalId !== 'string')
    ctx.skip(`the client refused terminal/create: ${JSON.stringify(created.error ?? created.result)}`);
  if (!(await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '', ctx.timeout)))
    ctx.skip(`the command of terminal/create did not start within ${ctx.timeout} ms`);
  const started = Number(readFileSync(pidFile, 'utf8'));
  pid = started;
  const alive = () => {
    try {
      process.kill(started, 0);
      return true;
    } catch {
      return false;
    }
  };
  return { terminalId, pid: started, alive };
}

/** v1 terminals when the client advertises them: terminal/release kills the command and retires the id. */
export const clientTerminalRelease: ClientCase = {
  name: 'client/terminal-release',
  title: 'terminal/release of a running command (v1, when the client advertises terminal)',
  ids: ['ACP-V1-TERM-08'],
  protocols: [1],
  async run(ctx) {
    const { sid, req } = await intoTurn(ctx);
    const t = await startTerminal(ctx, sid);
    const released = await ctx.p.request(
      'terminal/release',
      { sessionId: sid, terminalId: t.terminalId },
      ctx.id('release'),
      ctx.timeout,
    );
    if (
      !ctx.judge(
        'ACP-V1-TERM-08',
        released.error === undefined,
        `terminal/release failed: ${JSON.stringify(released.error)}`,
        [released.seq],
      )
    )
      return;
    ctx.judge(
      'ACP-V1-TERM-08',
      await until(() => !t.alive(), ctx.timeout),
      `the command of terminal ${t.terminalId} (pid ${t.pid}) still runs ${ctx.timeout} ms after terminal/release; release must kill it`,
      [released.seq],
    );
    const after = await ctx.p.request(
      'terminal/output',
      { sessionId: sid, terminalId: t.terminalId },
      ctx.id('output'),
      ctx.timeout,
    );
    ctx.judge(
      'ACP-V1-TERM-08',
      after.error !== undefined,
      `terminal/output for the released terminal ${t.terminalId} succeeded; release must retire the id`,
      [after.seq],
    );
    ctx.endTurn(req, sid);
  },
};

/**
 * v1 terminals: terminal/kill stops the command and keeps the terminal usable (ACP-V1-TERM-07);
 * terminal/wait_for_exit then resolves with the nullable exitCode and signal (ACP-V1-TERM-06), and
 * terminal/output carries the exit status (ACP-V1-TERM-05). The checker releases it after (the
 * agent's duty, ACP-V1-TERM-04).
 */
export const clientTerminalKillWait: ClientCase = {
  name: 'client/terminal-kill-wait',
  title: 'terminal/kill, then terminal/wait_for_exit and terminal/output (v1, when the client advertises terminal)',
  ids: ['ACP-V1-TERM-07', 'ACP-V1-TERM-06', 'ACP-V1-TERM-05'],
  protocols: [1],
  async run(ctx) {
    const { sid, req } = await intoTurn(ctx);
    const t = await startTerminal(ctx, sid);
    const ids = { sessionId: sid, terminalId: t.terminalId };
    const killed = await ctx.p.request('terminal/kill', ids, ctx.id('kill'), ctx.timeout);
    if (
      !ctx.judge(
        'ACP-V1-TERM-07',
        killed.error === undefined,
        `terminal/kill failed: ${JSON.stringify(killed.error)}`,
        [killed.seq],
      )
    )
      return;
    ctx.judge(
      'ACP-V1-TERM-07',
      await until(() => !t.alive(), ctx.timeout),
      `the command of terminal ${t.terminalId} (pid ${t.pid}) still runs ${ctx.timeout} ms after terminal/kill`,
      [killed.seq],
    );
    const waited = await ctx.p.request('terminal/wait_for_exit', ids, ctx.id('wait'), ctx.timeout);
    const code = at(waited.result, 'exitCode');
    const signal = at(waited.result, 'signal');
    ctx.judge(
      'ACP-V1-TERM-06',
      waited.error === undefined && (typeof code === 'number' || typeof signal === 'string'),
      `terminal/wait_for_exit after terminal/kill answered ${JSON.stringify(waited.error ?? waited.result)}; it must resolve with the exitCode or signal of the ended command`,
      [waited.seq],
    );
    const output = await ctx.p.request('terminal/output', ids, ctx.id('output'), ctx.timeout);
    ctx.judge(
      'ACP-V1-TERM-07',
      output.error === undefined,
      `terminal/output after terminal/kill failed: ${JSON.stringify(output.error)}; kill must keep the terminal usable until release`,
      [output.seq],
    );
    ctx.judge(
      'ACP-V1-TERM-05',
      output.error !== undefined || at(output.result, 'exitStatus') !== undefined,
      `terminal/output of the killed command has no exitStatus: ${JSON.stringify(output.result)}`,
      [output.seq],
    );
    await ctx.p.request('terminal/release', ids, ctx.id('release'), ctx.timeout);
    ctx.endTurn(req, sid);
  },
};
