import type { CheckCase } from '../case.js';

/**
 * The agent ends when its stdin closes (a client closes the pipe to end the connection). For an
 * in-process agent this is its honest equivalent: it ends its connection when its input ends.
 */
export const exitOnEof: CheckCase = {
  name: 'stdout/exit-on-eof',
  // closes stdin: the process ends
  ownProcess: true,
  title: 'the agent exits when stdin closes',
  ids: ['ACP-ALL-TRANS-03'],
  protocols: [1, 2],
  async run(ctx) {
    await ctx.init();
    const exited = await ctx.driver.closeStdin(ctx.timeout);
    ctx.judge('ACP-ALL-TRANS-03', exited, `the agent was still running ${ctx.timeout} ms after its stdin closed`, []);
  },
};
