/**
 * Entry point of the `acp-kit` command (started by `bin/acp-kit.js`). Everything it does is
 * library API (`acp-kit/client`, `acp-kit/agent`); see `program.ts` for the command tree.
 */
import { main } from './program.js';

// `acp-kit run --json … | head`: the reader went away. Stop quietly (the exit hook still kills
// the agent's process group) instead of dying on an unhandled EPIPE.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
});

await main(process.argv);
