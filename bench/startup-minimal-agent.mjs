// The smallest acp-kit agent: runAgentOnStdio with one prompt handler and no session store.
import { runAgentOnStdio } from 'acp-kit/agent';

runAgentOnStdio(
  {
    info: { name: 'minimal', version: '0.0.0' },
    async prompt() {
      return 'end_turn';
    },
  },
  { store: null },
);
