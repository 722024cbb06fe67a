// A command run to its end without blocking the test worker: long `npm ci` / `npm install` / `tsc`
// runs through spawnSync starve vitest's worker RPC ("Timeout calling onTaskUpdate").
import { spawn } from 'node:child_process';

export interface CommandResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command args` (no shell) and resolves with its exit status and output; killed after `timeoutMs`. */
export function runCommand(
  command: string,
  args: readonly string[],
  opts: { cwd: string; env?: NodeJS.ProcessEnv; input?: string; timeoutMs: number },
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
    // a command that exits without reading its stdin closes the pipe first: EPIPE is not its failure
    // (its status says how it ended), and unhandled it is an uncaught exception of the test worker
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.input ?? '');
  });
}
