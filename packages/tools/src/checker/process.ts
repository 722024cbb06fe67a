import type { ChildProcess } from 'node:child_process';

/**
 * Kills `child` for good, with its whole process group where there is one (the checker spawns
 * agents and clients detached), so that nothing they started outlives the case.
 */
export function killGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined && process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
    else child.kill('SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}
