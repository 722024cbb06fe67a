// The stale-lock race (issue 24, item 6): after the holder of a session lock is killed with SIGKILL,
// two real processes taking the lock over at the same moment: exactly one wins, every time.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SESSION_LOCKED } from '../src/index.js';
import { fixture, RawChild } from '../../../test/support/raw-child.js';
import { tempDir } from '../../../test/support/temp.js';

const TRIALS = Number(process.env.TRIALS ?? 200);
const children: RawChild[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill();
});

function racer(dir: string): RawChild {
  const c = new RawChild(fixture('lock-racer.mjs'), [dir]);
  children.push(c);
  return c;
}

describe('stale session lock', () => {
  it(`two processes taking over a SIGKILLed holder's lock at once: exactly one wins in each of ${TRIALS} trials`, async () => {
    const dir = tempDir('acp-kit-lock-race-');
    // a real holder, killed with SIGKILL: its lock file is what every trial starts from
    const holder = racer(dir);
    expect(await holder.line()).toBe('ready');
    holder.write('acquire held\n');
    expect(await holder.next()).toMatchObject({ won: true });
    holder.kill();
    await new Promise((r) => holder.child.once('exit', r));
    const stale = readFileSync(join(dir, 'held.lock'));

    const a = racer(dir);
    const b = racer(dir);
    expect(await a.line()).toBe('ready');
    expect(await b.line()).toBe('ready');
    const bothWon: string[] = [];
    for (let i = 0; i < TRIALS; i++) {
      const sessionId = `s${i}`;
      writeFileSync(join(dir, `${sessionId}.lock`), stale);
      const at = Date.now() + 40;
      a.write(`acquire ${sessionId} ${at}\n`);
      b.write(`acquire ${sessionId} ${at}\n`);
      const results = [
        (await a.next()) as { won: boolean; code?: number },
        (await b.next()) as { won: boolean; code?: number },
      ];
      const winners = results.filter((r) => r.won).length;
      if (winners !== 1) bothWon.push(`${sessionId}: ${winners} winners`);
      for (const r of results) if (!r.won) expect(r.code).toBe(SESSION_LOCKED);
      // the lock names the winner, a live process
      const holderPid = JSON.parse(readFileSync(join(dir, `${sessionId}.lock`), 'utf8')).pid;
      expect([a.child.pid, b.child.pid]).toContain(holderPid);
    }
    expect(bothWon).toEqual([]);
  });
});
