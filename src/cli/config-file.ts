/**
 * The user's config file and its named profiles: `$XDG_CONFIG_HOME/acp-kit/config.json`, else
 * `~/.config/acp-kit/config.json`. A profile names an agent (command, args, env), the protocol,
 * the session's mode/model/config options, the permission policy and the working directory;
 * `--profile <name>` (else `$ACP_KIT_PROFILE`) picks one for `run` and `chat`, and flags given on
 * the command line win over it. The file is read only when a profile is asked for (or by
 * `acp-kit profiles`), and checked against {@link CONFIG_SCHEMA}: a bad file is a usage error naming
 * the path of the bad field. Format: src/cli/README.md, "Profiles".
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { messageOf } from '@acp-kit/agent/internal';
import { usageError } from './errors.js';
import type { RunFlags } from './flags.js';
import { checkJson, type JsonSchema } from './json-check.js';
import { joinCommandLine } from './split-command-line.js';

/**
 * How a profile names its agent: a command line (`command` + `args`), or an ACP Registry
 * `id[@version]` (installed on first use, as `--agent <id>`); `env` is added to the agent's process.
 */
export type ProfileAgent =
  | {
      command: string;
      args?: string[];
      /** added to the environment the agent is started with */
      env?: Record<string, string>;
    }
  | {
      /** an ACP Registry id, `claude-acp` or `claude-acp@0.101.0` */
      id: string;
      env?: Record<string, string>;
    };

/** The profile's agent as `--agent` would take it: the command line, or the registry id. */
export function profileAgentText(a: ProfileAgent): string {
  return 'id' in a ? a.id : joinCommandLine([a.command, ...(a.args ?? [])]);
}

export type PermissionChoice = 'approve-all' | 'approve-reads' | 'deny-all';

/** One named profile; every field is optional (a flag on the command line wins over each). */
export interface Profile {
  description?: string;
  agent?: ProfileAgent;
  protocol?: 'auto' | '1' | '2';
  mode?: string;
  model?: string;
  /** config options by id, applied before `--config` flags (which win for the same id) */
  config?: Record<string, string | boolean>;
  permissions?: PermissionChoice;
  /** absolute, `~/…`, or relative to the directory acp-kit runs in */
  cwd?: string;
}

/** The config file (version 1). */
export interface ConfigFile {
  $schema?: string;
  version?: 1;
  profiles?: Record<string, Profile>;
}

/** The JSON Schema of the config file; unknown fields are errors (a typo should not pass silently). */
export const CONFIG_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    version: { const: 1 },
    profiles: {
      type: 'object',
      propertyNames: { pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$' },
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        properties: {
          description: { type: 'string' },
          agent: {
            type: 'object',
            additionalProperties: false,
            // a command line, or a registry id (with neither command nor args: agentIdConflicts)
            if: { required: ['id'] },
            else: { required: ['command'] },
            properties: {
              command: { type: 'string', minLength: 1 },
              args: { type: 'array', items: { type: 'string' } },
              id: { type: 'string', pattern: '^[a-z][a-z0-9-]*(@[0-9A-Za-z][0-9A-Za-z.+-]*)?$' },
              env: { type: 'object', additionalProperties: { type: 'string' } },
            },
          },
          protocol: { enum: ['auto', '1', '2'] },
          mode: { type: 'string', minLength: 1 },
          model: { type: 'string', minLength: 1 },
          config: { type: 'object', additionalProperties: { type: ['string', 'boolean'] } },
          permissions: { enum: ['approve-all', 'approve-reads', 'deny-all'] },
          cwd: { type: 'string', minLength: 1 },
        },
      },
    },
  },
};

/** Where the config file is: `$XDG_CONFIG_HOME/acp-kit/config.json`, else `~/.config/acp-kit/config.json`. */
export function configFilePath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'acp-kit', 'config.json');
}

/** Reads and checks the config file; an absent file is an empty one. */
export async function readConfigFile(path: string = configFilePath()): Promise<ConfigFile> {
  if (!existsSync(path)) return {};
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, 'utf8'));
  } catch (e) {
    throw usageError(`cannot read the config file ${path}: ${messageOf(e)}`, 'Fix the file, or move it away.');
  }
  const checked = await checkJson<ConfigFile>(CONFIG_SCHEMA, value);
  const problems = 'problems' in checked ? checked.problems : agentIdConflicts(checked.value);
  if (problems.length > 0)
    throw usageError(
      `the config file ${path} is not valid: ${problems.join('; ')}`,
      'See "Profiles" in the CLI README (acp-kit profiles --help) for the fields.',
    );
  return 'value' in checked ? checked.value : {};
}

/** A profile agent naming a registry `id` and also a `command` or `args` (which one was meant?). */
function agentIdConflicts(file: ConfigFile): string[] {
  return Object.entries(file.profiles ?? {}).flatMap(([name, p]) =>
    p.agent && 'id' in p.agent && ('command' in p.agent || 'args' in p.agent)
      ? [`profiles.${name}.agent: "id" names a registry agent; it goes without "command" and "args"`]
      : [],
  );
}

/** The profile `name` of the file, or a usage error listing the profiles there are. */
export function profileNamed(file: ConfigFile, name: string, path: string): Profile {
  const p = file.profiles?.[name];
  if (p) return p;
  const names = Object.keys(file.profiles ?? {});
  throw usageError(
    `no profile ${JSON.stringify(name)} in ${path}`,
    names.length > 0 ? `Profiles: ${names.join(', ')}.` : `${path} defines no profiles.`,
  );
}

/** The name asked for: `--profile`, else `$ACP_KIT_PROFILE` (empty counts as unset). */
export function profileName(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return flag ?? (env.ACP_KIT_PROFILE ? env.ACP_KIT_PROFILE : undefined);
}

function expandHome(p: string): string {
  return p === '~' || p.startsWith('~/') ? join(homedir(), p.slice(1)) : p;
}

/** Flags `run` and `chat` share with a profile (chat has no `--deny-all` flag: only a profile sets it). */
export type ProfileFlags = Pick<
  RunFlags,
  | 'agent'
  | 'agentUrl'
  | 'agentEnv'
  | 'agentIsId'
  | 'protocol'
  | 'mode'
  | 'model'
  | 'config'
  | 'cwd'
  | 'approveAll'
  | 'approveReads'
  | 'denyAll'
  | 'profile'
>;

/**
 * The flags with the profile's values where the command line gave none. `--protocol auto` counts
 * as not given (it is the default). An agent flag (`--agent`, `--agent-url`) replaces the
 * profile's agent, env included; `--config` pairs come after the profile's (the later one wins).
 */
export function mergeProfile<F extends ProfileFlags>(flags: F, p: Profile): F {
  const out: F = { ...flags };
  if (out.agent === undefined && out.agentUrl === undefined && p.agent) {
    out.agent = profileAgentText(p.agent);
    if (p.agent.env) out.agentEnv = p.agent.env;
    if ('id' in p.agent) out.agentIsId = true;
  }
  if (out.protocol === 'auto' && p.protocol) out.protocol = p.protocol;
  if (out.mode === undefined && p.mode !== undefined) out.mode = p.mode;
  if (out.model === undefined && p.model !== undefined) out.model = p.model;
  if (p.config) out.config = [...Object.entries(p.config).map(([k, v]) => `${k}=${String(v)}`), ...(out.config ?? [])];
  if (out.cwd === undefined && p.cwd !== undefined) {
    const cwd = expandHome(p.cwd);
    out.cwd = isAbsolute(cwd) ? cwd : resolve(cwd);
  }
  if (!out.approveAll && !out.approveReads && !out.denyAll && p.permissions) {
    if (p.permissions === 'approve-all') out.approveAll = true;
    else if (p.permissions === 'approve-reads') out.approveReads = true;
    else out.denyAll = true;
  }
  return out;
}

/** `run`/`chat`: the flags with the selected profile merged in (unchanged, and no file read, when none is selected). */
export async function withProfile<F extends ProfileFlags>(flags: F, env: NodeJS.ProcessEnv = process.env): Promise<F> {
  const name = profileName(flags.profile, env);
  if (name === undefined) return flags;
  const path = configFilePath(env);
  if (!existsSync(path))
    throw usageError(
      `profile ${JSON.stringify(name)} asked for (${flags.profile !== undefined ? '--profile' : '$ACP_KIT_PROFILE'}), but there is no config file ${path}`,
      'Create it with a "profiles" object; see `acp-kit profiles --help`.',
    );
  return mergeProfile(flags, profileNamed(await readConfigFile(path), name, path));
}
