/**
 * `run` showing a client terminal's output (v1 terminal/*): the work per output chunk must not
 * grow with the output so far. Before, every chunk looked the command up with
 * `session.clientTerminal()`, whose snapshot decodes the whole retained output (up to 16 MiB):
 * 10 MB took 4 s, 40 MB 31 s. The count of snapshots proves it without timing anything.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TerminalManager } from '../packages/client/src/services/index.js';
import { terminalNamer } from '../src/cli/session-runner.js';
import { FIXTURES, cliEnv, runCli, tempDir } from './fixtures/cli-helpers.js';

const managers: TerminalManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.releaseAll()));
});

describe('run: client terminal output', () => {
  it('names a terminal once however many chunks it prints (the output is decoded once, not once per chunk)', async () => {
    let snapshots = 0;
    let decoded = 0;
    let chunks = 0;
    const names: string[] = [];
    let manager: TerminalManager | undefined;
    // the session run.ts hands the namer, over a real TerminalManager and a real child process
    const session = {
      sessionId: 's1',
      clientTerminal(id: string) {
        snapshots++;
        const snap = manager!.snapshot(id);
        decoded += snap?.output.length ?? 0;
        return snap;
      },
    };
    const name = terminalNamer(() => session);
    let exited!: () => void;
    const exit = new Promise<void>((r) => (exited = r));
    manager = new TerminalManager({
      onOutput: (id) => {
        chunks++;
        const r = name(id);
        names.push(`${r.sessionId} ${r.terminalId} ${r.command?.command} ${r.command?.args.length}`);
      },
      onExit: () => exited(),
    });
    managers.push(manager);
    // 400 writes of 4 KiB, each after the previous one was flushed: many separate pipe reads
    const script =
      "let n=400;const w=()=>{if(n--<=0)return;process.stdout.write('y'.repeat(4095)+'\\n',()=>setImmediate(w));};w();";
    const { terminalId } = manager.create({ command: process.execPath, args: ['-e', script] });
    await exit;
    expect(manager.output(terminalId).output).toHaveLength(400 * 4096);
    expect(chunks).toBeGreaterThan(20); // enough chunks for a per-chunk lookup to show
    expect(new Set(names)).toEqual(new Set([`s1 ${terminalId} ${process.execPath} 2`]));
    // one snapshot for the command; a lookup per chunk decoded ~chunks/2 times the whole output
    expect(snapshots).toBe(1);
    expect(decoded).toBeLessThanOrEqual(400 * 4096);
  });

  it('a real agent polling terminal/output of a command printing 24 MiB gets the newest 16 MiB, truncated, and run shows the command once', async () => {
    const agent = `node ${join(FIXTURES, 'terminal-flood-agent.mjs')}`;
    const r = await runCli(['run', '--agent', agent, 'flood 24'], {
      cwd: tempDir('run-flood'),
      env: cliEnv({ NO_COLOR: '1' }),
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/polls=[1-9]\d* final=16777216 truncated=true exit=0/);
    expect(r.stdout.match(/^ {4}\$ .*node/gm)).toHaveLength(1);
    // every line of the command's output is one "│ x…" line, though the pipe cuts it into chunks
    expect(r.stdout.match(/^ {4}│ x{65535}$/gm)).toHaveLength(24 * 16);
    // all of the command's output is shown live (not only the retained 16 MiB)
    const shown = r.stdout
      .split('\n')
      .filter((l) => l.startsWith('    │ '))
      .map((l) => l.slice(6))
      .join('');
    expect(shown).toBe('x'.repeat(24 * 16 * 65535));
  });
});
