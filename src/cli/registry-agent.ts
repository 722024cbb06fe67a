import { existsSync } from 'node:fs';
// types only: the registry module loads (dynamically) only when `--agent` looks like an id
import type { RegistryError } from '@acp-kit/tools/registry';
import { delimiter, join } from 'node:path';
import type { AgentCommand } from './agent-command.js';
import { CliError, usageError } from './errors.js';
import { ExitCode } from './exit-codes.js';
import { joinCommandLine } from './split-command-line.js';

/** Options of {@link registryAgent}: where the registry comes from and where progress goes. */
export interface RegistryAgentOptions {
  /** `--registry URL|FILE` (else `$ACP_KIT_REGISTRY`, the official URL, the shipped snapshot). */
  registry?: string;
  env?: NodeJS.ProcessEnv;
  /** Install progress and warnings (default: stderr with an `acp-kit:` prefix). */
  log?: (line: string) => void;
  /** When true an id that is not in the registry is an error; else the text is left to the command-line parser. */
  required?: boolean;
}

/** An {@link AgentCommand} of a registry agent, with the manifest's environment. */
export type RegistryAgentCommand = AgentCommand & { env: Record<string, string>; id: string; version: string };

/**
 * The one resolver of `--agent <id>[@version]` for every command: when `text` is an id of the ACP
 * Registry, installs the agent (once; later runs find it in the cache) and returns how to start
 * it. Undefined when `text` is not a registry id (a command line such as `my-agent --acp` or a
 * path), so `--agent` keeps taking command lines. The registry module loads only here, only for
 * a one-word `--agent` that looks like an id.
 */
export async function registryAgent(
  text: string | undefined,
  options: RegistryAgentOptions = {},
): Promise<RegistryAgentCommand | undefined> {
  if (text === undefined) return undefined;
  // a command line with arguments is never an id: no registry module loaded for it at start-up
  if (!options.required && /\s/.test(text.trim())) return undefined;
  const reg = await import('@acp-kit/tools/registry');
  const spec = reg.parseAgentSpec(text.trim());
  if (!spec) {
    if (options.required)
      throw usageError(`"${text}" is not an agent id (lowercase letters, digits, hyphens, optionally @version)`);
    return undefined;
  }
  const env = options.env ?? process.env;
  // a program of that name on PATH (or a file) is what `--agent word` meant before the registry
  if (!options.required && spec.version === undefined && isProgram(text.trim(), env)) return undefined;
  const log = options.log ?? ((line: string) => void process.stderr.write(`acp-kit: ${line}\n`));
  const registry = await loadOrFail(reg, options.registry, env);
  const agent = registry.agents.find((a) => a.id === spec.id);
  // a one-word command that is not an id of the registry is still a command (`--agent my-agent`)
  if (!agent && !options.required && spec.version === undefined) return undefined;
  try {
    const found = reg.findAgent(registry.agents, spec);
    const plan = reg.planInstall(found, spec.version);
    const installed = await reg.installAgent(plan, { env, log });
    if (installed.installed)
      log(`installed ${plan.id}@${plan.version} (${plan.kind}) in ${installed.dir ?? 'the uv cache'}`);
    for (const w of installed.warnings) log(w);
    return {
      command: installed.command,
      args: installed.args,
      env: installed.env,
      builtIn: false,
      id: plan.id,
      version: plan.version,
      display: `${plan.id}@${plan.version} (ACP Registry, ${plan.kind === 'binary' ? plan.platform : plan.kind === 'npx' ? `npm ${plan.spec}` : `uvx ${plan.spec}`})`,
    };
  } catch (e) {
    throw registryCliError(e);
  }
}

/** True when `word` names a file or a program on PATH (Windows: with one of PATHEXT's endings). */
function isProgram(word: string, env: NodeJS.ProcessEnv): boolean {
  if (existsSync(word)) return true;
  const exts = process.platform === 'win32' ? (env.PATHEXT ?? '.EXE;.CMD').split(';') : [''];
  return (env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .some((dir) => exts.some((ext) => existsSync(join(dir, word + ext))));
}

type RegistryModule = typeof import('@acp-kit/tools/registry');

async function loadOrFail(reg: RegistryModule, registry: string | undefined, env: NodeJS.ProcessEnv) {
  try {
    return await reg.loadRegistry({ registry, env });
  } catch (e) {
    throw new CliError('registry_unavailable', ExitCode.Usage, e instanceof Error ? e.message : String(e), {
      hint: 'Check --registry / $ACP_KIT_REGISTRY, or drop them to use the official registry or the shipped snapshot.',
      cause: e,
    });
  }
}

/** A RegistryError by its name (checked without loading the registry module). */
const isRegistryError = (e: unknown): e is RegistryError => e instanceof Error && e.name === 'RegistryError';

/**
 * A planning or install failure as the CLI reports it, with the registry's hint (for installs:
 * the command to run by hand). An id or platform that cannot work is a usage error (2); a missing
 * runtime or a failed install means the agent cannot be started (9, as for any agent that fails to start).
 */
export function registryCliError(e: unknown): CliError {
  if (e instanceof CliError) return e;
  const message = e instanceof Error ? e.message : String(e);
  if (!isRegistryError(e)) return new CliError('agent_install_failed', ExitCode.AgentFailed, message, { cause: e });
  const hint = e.hint !== undefined ? { hint: e.hint } : {};
  if (e.kind === 'unavailable')
    return new CliError('registry_agent_unavailable', ExitCode.Usage, message, { ...hint, cause: e });
  const kind = e.kind === 'runtime' ? 'agent_runtime_missing' : 'agent_install_failed';
  return new CliError(kind, ExitCode.AgentFailed, message, { ...hint, cause: e });
}

/**
 * `check agent` and `proxy`: the agent is a command after `--`, or `--agent <id>[@version]` of the
 * registry (not both). `env` is the registry manifest's environment only (to add to the caller's).
 */
export async function agentOfWordsOrId(
  words: readonly string[],
  id: string | undefined,
  options: RegistryAgentOptions,
): Promise<{ command: string; args: string[]; env?: Record<string, string>; label: string } | undefined> {
  if (id === undefined) {
    const [command, ...args] = words;
    return command === undefined ? undefined : { command, args, label: joinCommandLine([...words]) };
  }
  if (words.length > 0) throw usageError('give the agent either as --agent <id> or as a command after --, not both');
  const a = await registryAgent(id, { ...options, required: true });
  if (!a) throw usageError(`"${id}" is not an agent id`);
  return { command: a.command, args: a.args, env: a.env, label: a.display };
}
