import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataRoot } from '../captures/capture.js';
import { isObj } from '@acp-kit/protocol/internal';

/** What a running `acp-kit proxy --inspect` writes to `<data dir>/inspect/<pid>.json`. */
export interface LiveRegistration {
  pid: number;
  /** the capture file the proxy records to */
  capture: string;
  /** the agent command line */
  agent: string[];
  /** the proxy's own inspector page (with its token) */
  url: string;
  /** ISO start time */
  start: string;
}

/** `<data dir>/inspect`: one file per live proxy. */
export function liveDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(dataRoot(env), 'inspect');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else
    return e instanceof Error && 'code' in e && e.code === 'EPERM';
  }
}

/**
 * Registers this process as a live proxy; returns the function that removes the registration
 * (also run on `exit`). The file is private to the user (0600): it holds the page's token.
 */
export function registerLive(reg: Omit<LiveRegistration, 'pid'>, env: NodeJS.ProcessEnv = process.env): () => void {
  const dir = liveDir(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `${process.pid}.json`);
  writeFileSync(file, JSON.stringify({ pid: process.pid, ...reg }) + '\n', { mode: 0o600 });
  let done = false;
  const remove = (): void => {
    if (done) return;
    done = true;
    process.off('exit', remove);
    rmSync(file, { force: true });
  };
  process.on('exit', remove);
  return remove;
}

/** Every registered live proxy whose process is still running; registrations of dead pids are removed. */
export function listLive(env: NodeJS.ProcessEnv = process.env): LiveRegistration[] {
  const dir = liveDir(env);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: LiveRegistration[] = [];
  for (const name of names) {
    if (!/^\d+\.json$/.test(name)) continue;
    const file = join(dir, name);
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      continue; // being written right now, or broken: not ours to delete
    }
    const reg = registrationFrom(parsed);
    if (!reg) continue;
    if (!alive(reg.pid)) {
      rmSync(file, { force: true });
      continue;
    }
    out.push(reg);
  }
  return out.sort((a, b) => a.pid - b.pid);
}

/** A registration file as read: `pid` and `capture` are required, the rest read leniently. */
function registrationFrom(v: unknown): LiveRegistration | undefined {
  if (!isObj(v) || typeof v.pid !== 'number' || typeof v.capture !== 'string') return undefined;
  const { agent, url, start } = v;
  return {
    ...v,
    pid: v.pid,
    capture: v.capture,
    agent: Array.isArray(agent) ? agent.map(String) : [],
    url: typeof url === 'string' ? url : '',
    start: typeof start === 'string' ? start : '',
  };
}
