import { basename, resolve } from 'node:path';
import {
  ComponentModuleError,
  loadComponentModules,
  startConductor,
  type ChainCommand,
  type ChainComponent,
} from '@acp-kit/tools/proxy';
import { usageError } from '../errors.js';
import { registryAgent } from '../registry-agent.js';
import { commandOf } from '../split-command-line.js';

const SIGNALS: Array<[NodeJS.Signals, number]> = [
  ['SIGTERM', 143],
  ['SIGINT', 130],
  ['SIGHUP', 129],
];

/** A segment of the chain: a command, or an in-process component module (`--component <module>`). */
export type ChainSegment = ChainCommand | { module: string };

/**
 * Splits `conduct`'s operands at each `--` into segments: the last is the agent, the others the
 * components. Commander keeps the `--` after the first one as operands. A segment
 * `--component <module>` names an in-process component (no command starts with `--`).
 */
export function splitChain(words: readonly string[]): ChainSegment[] {
  const groups: string[][] = [[]];
  for (const w of words) {
    if (w === '--') groups.push([]);
    else groups[groups.length - 1]?.push(w);
  }
  return groups.flatMap((g): ChainSegment[] => {
    if (g[0] !== COMPONENT) {
      const c = commandOf(g);
      return c ? [c] : [];
    }
    const [, module, ...rest] = g;
    if (module === undefined || rest.length > 0)
      throw usageError(
        `${COMPONENT} takes one module, got ${g.length - 1} word(s): ${g.slice(1).join(' ') || '(none)'}`,
        'Write one module per segment, e.g. acp-kit conduct -- --component ./note.mjs -- acp-kit agent',
      );
    return [{ module }];
  });
}

const COMPONENT = '--component';

/** The chain's components: in-process modules loaded (each checked), commands as they are. */
async function components(segments: readonly ChainSegment[]): Promise<ChainComponent[]> {
  const modules = segments.flatMap((s) => ('module' in s ? [s.module] : []));
  let definitions;
  try {
    definitions = await loadComponentModules(modules);
  } catch (e) {
    if (e instanceof ComponentModuleError) throw usageError(e.message, e.hint);
    throw e;
  }
  let next = 0;
  return segments.map((s) => {
    if (!('module' in s)) return s;
    const component = definitions[next++];
    if (!component) throw new Error(`component module ${s.module} was not loaded`);
    return { component, name: basename(s.module).replace(/\.[cm]?[jt]s$/, '') };
  });
}

/** The registry agent of `--agent <id>` as the chain's last command, its manifest's env added to ours. */
async function chainAgentOfId(id: string, registry: string | undefined): Promise<ChainCommand> {
  const a = await registryAgent(id, { registry, required: true });
  if (!a) throw usageError(`"${id}" is not an agent id`);
  return { command: a.command, args: a.args, env: { ...process.env, ...a.env } };
}

/**
 * `acp-kit conduct [--trace FILE] [--component <module>]... -- <component...> [-- ...] -- <agent...>`
 * (a component segment may also be `--component <module>`): exit 0 when the editor ends the session.
 */
export async function conductCommand(
  words: string[],
  flags: { trace?: string; agent?: string; registry?: string; component?: string[] },
): Promise<number> {
  // `--component <module>` before the first `--`: in-process components, client side first
  const segments = [...(flags.component ?? []).map((module) => ({ module })), ...splitChain(words)];
  // `--agent <id>[@version]`: the registry agent ends the chain, every command given is a component
  const agent = flags.agent !== undefined ? await chainAgentOfId(flags.agent, flags.registry) : segments.pop();
  if (!agent || 'module' in agent)
    throw usageError(
      agent ? `the agent must be a command, not ${COMPONENT} ${agent.module}` : 'the agent command is missing',
      'Put the chain after --, e.g. acp-kit conduct -- node note.mjs -- acp-kit agent (or use --agent <id>)',
    );
  const log = (line: string): void => void process.stderr.write(`acp-kit conduct: ${line}\n`);
  const chain = startConductor({
    components: await components(segments),
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
