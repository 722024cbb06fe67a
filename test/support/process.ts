// Process helpers shared by the tests that check nothing is left running.
import { readFileSync } from 'node:fs';

/** True while `pid` runs; a zombie (exited, not yet reaped by its new parent) counts as gone. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return true; // no procfs: kill(0) is all we know
  }
}

/** Polls `cond` every 25 ms; throws naming `what` after `ms`. */
export async function waitUntil(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
