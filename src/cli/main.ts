/**
 * Entry point of the `acp-kit` command (started by `bin/acp-kit.js`). Everything it does is
 * library API (`acp-kit/client`, `acp-kit/agent`); see `program.ts` for the command tree.
 */
import { main } from './program.js';

await main(process.argv);
