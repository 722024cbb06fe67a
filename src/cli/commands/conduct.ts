import { resolve } from 'node:path';
import { startConductor, type ChainCommand } from '@acp-kit/tools/proxy';
import { usageError } from '../errors.js';
import { registryAgent } from '../registry-agent.js';
import { commandOf } from '../split-command-line.js';

const SIGNALS: Array<[NodeJS.Signals, number]> = [
  ['SIGTERM', 143],
  ['SIGINT', 130],
  ['SIGHUP', 129],
];

/**
 * Splits `conduct`'s operands at each `--` into commands: the last is the agent, the others the
 * components. Commander keeps the `--` after the first one as operands.
 */
export function splitChain(words: readonly string[]): Array<{ command: string; args: string[] }> {
  const groups: string[][] = [[]];
  for (const w of words) {
    if (w === '--') groups.push([]);
    else groups[groups.length - 1]?.push(w);
  }
  return groups.flatMap((g) => {
    const c = commandOf(g);
    return c ? [c] : [];
  });
}

/** The registry agent of `--agent <id>` as the chain's last command, its manifest's env added to ours. */
async function chainAgentOfId(id: string, registry: string | undefined): Promise<ChainCommand> {
  const a = await registryAgent(id, { registry, required: true });
  if (!a) throw usageError(`"${id}" is not an agent id`);
  return { command: a.command, args: a.args, env: { ...process.env, ...a.env } };
}

/** `acp-kit conduct [--trace FILE] -- <component...> [-- ...] -- <agent...>`: exit 0 when the editor ends the session. */
export async function conductCommand(
  words: string[],
  flags: { trace?: string; agent?: string; registry?: string },
): Promise<number> {
  const commands = splitChain(words);
  // `--agent <id>[@version]`: the registry agent ends the chain, every command given is a component
  const agent = flags.agent !== undefined ? await chainAgentOfId(flags.agent, flags.registry) : commands.pop();
  if (!agent)
    throw usageError(
      'the agent command is missing',
      'Put the chain after --, e.g. acp-kit conduct -- node note.mjs -- acp-kit agent (or use --agent <id>)',
    );
  const log = (line: string): void => void process.stderr.write(`acp-kit conduct: ${line}\n`);
  const chain = startConductor({
    components: commands,
    agent,
    trace: flags.trace === undefined ? undefined : resolve(flags.trace),
    log,
  });
  let signalled: number | undefined;
  const handlers = SIGNALS.map(([sig, code]) => {
    const h = (): void => {
      signalled ??= code;
      void chain.stop(`${sig}`);
    };
    process.on(sig, h);
    return [sig, h] as const;
  });
  try {
    const r = await chain.done;
    return signalled ?? (/^the editor left/.test(r.reason) ? 0 : 1);
  } finally {
    for (const [sig, h] of handlers) process.off(sig, h);
  }
}
