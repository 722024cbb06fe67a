// Process helpers shared by the tests that check nothing is left running.
import { readdirSync, readFileSync } from 'node:fs';

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

/** A live process as procfs shows it. */
export interface ProcessInfo {
  pid: number;
  /** its process group */
  pgid: number;
  command: string;
}

/**
 * Live (non-zombie) processes of this user that `match` (their `/proc/<pid>/environ` text, NUL
 * separated, and their stat): the processes a test started, found also when they were orphaned.
 * Empty where there is no procfs.
 */
function processesWhere(match: (environ: string, info: ProcessInfo) => boolean): ProcessInfo[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return [];
  }
  const out: ProcessInfo[] = [];
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // fields after the command: state ppid pgrp ...
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state === 'Z') continue;
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      const info = { pid: Number(pid), pgid: Number(pgrp), command };
      if (match(readFileSync(`/proc/${pid}/environ`, 'utf8'), info)) out.push(info);
    } catch {
      // gone meanwhile, or another user's
    }
  }
  return out;
}

/** Live processes whose environment has `name=value` (e.g. the HOME a test gave an agent). */
export function processesWithEnv(name: string, value: string): ProcessInfo[] {
  const entry = `${name}=${value}`;
  return processesWhere((environ) => environ.split('\0').includes(entry));
}

/** Live processes in any of the process groups `pgids`. */
export function processesInGroups(pgids: ReadonlySet<number>): ProcessInfo[] {
  return processesWhere((_environ, info) => pgids.has(info.pgid));
}
