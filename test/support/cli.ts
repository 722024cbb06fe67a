// CLI runs of one test file: each started `acp-kit` process is killed after its test if it is still
// running (a failed or hung test leaves no process behind).
import { afterEach } from 'vitest';
import { startCli, type CliResult, type RunningCli } from '../fixtures/cli-helpers.js';

/** Registers the clean-up hook; returns `cli(args, opts)`, which runs `acp-kit args` to its end. */
export function useCli(): (
  args: string[],
  opts?: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string },
) => Promise<CliResult> {
  const running: RunningCli[] = [];
  afterEach(() => {
    for (const r of running.splice(0))
      if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
  });
  return (args, opts = {}) => {
    const r = startCli(args, opts);
    running.push(r);
    return r.done;
  };
}
