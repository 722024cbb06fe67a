import type { ChildProcess } from 'node:child_process';

/**
 * Sends `signal` to the whole process group a detached child leads (its own children too),
 * falling back to the child alone where groups are unavailable.
 */
export function signalProcessGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      /* already gone */
    }
  }
}

const tracked = new Set<ChildProcess>();
let hookInstalled = false;

/**
 * Kills `child`'s process group with SIGKILL if this process exits first, so agents and
 * terminals are never orphaned. Call {@link untrackProcessGroup} once the group is gone.
 */
export function trackProcessGroup(child: ChildProcess): void {
  if (!hookInstalled) {
    hookInstalled = true;
    process.on('exit', () => {
      for (const c of tracked) signalProcessGroup(c, 'SIGKILL');
    });
  }
  tracked.add(child);
}

export function untrackProcessGroup(child: ChildProcess): void {
  tracked.delete(child);
}
