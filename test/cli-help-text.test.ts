// What `--help` must not hide (real `acp-kit` processes; needs `npm run build`).
import { expect, it } from 'vitest';
import { cliEnv, runCli } from './fixtures/cli-helpers.js';

it('agent --help says that an API key in the environment switches the model to a paid provider, and how to stay offline', async () => {
  const r = await runCli(['agent', '--help'], { env: cliEnv() });
  expect(r.code).toBe(0);
  const help = r.stdout.replace(/\s+/g, ' ');
  expect(help).toMatch(
    /else openai when OPENAI_API_KEY is set, else anthropic when ANTHROPIC_API_KEY is set, else demo/,
  );
  expect(help).toMatch(
    /an OPENAI_API_KEY or ANTHROPIC_API_KEY in the environment switches the agent from the free demo model to that paid provider/,
  );
  expect(help).toContain('--model demo to stay offline');
});

it('chat --help names /exit and /quit', async () => {
  const r = await runCli(['chat', '--help'], { env: cliEnv() });
  expect(r.code).toBe(0);
  expect(r.stdout).toContain('/exit or /quit exits');
});
