import type { BinaryTarget, PlatformKey, RegistryAgent } from './types.js';

/** `<id>` or `<id>@<version>`, as `--agent` and `agents install` take it. */
export interface AgentSpec {
  id: string;
  version?: string;
}

/** The id pattern of agent.schema.json, with an optional `@version`. */
const SPEC = /^([a-z][a-z0-9-]*)(?:@([0-9A-Za-z][0-9A-Za-z.+-]*))?$/;

/** `claude-acp@0.101.0` -> `{ id, version }`; undefined when the text cannot be an id (a path, a command line). */
export function parseAgentSpec(text: string): AgentSpec | undefined {
  const m = SPEC.exec(text);
  if (!m?.[1]) return undefined;
  return m[2] !== undefined ? { id: m[1], version: m[2] } : { id: m[1] };
}

/** This machine's key in a binary distribution (`linux-x86_64`, ...); undefined for a platform the registry has none for. */
export function platformKey(platform: string = process.platform, arch: string = process.arch): PlatformKey | undefined {
  const os = platform === 'win32' ? 'windows' : platform;
  const cpu = arch === 'x64' ? 'x86_64' : arch === 'arm64' ? 'aarch64' : undefined;
  if (!cpu || !['darwin', 'linux', 'windows'].includes(os)) return undefined;
  return `${os}-${cpu}` as PlatformKey;
}

/** How one agent gets onto this machine and starts. */
export type InstallPlan =
  | {
      kind: 'npx' | 'uvx';
      id: string;
      version: string;
      /** The package name, without a version. */
      name: string;
      /** What the package manager is given: `name@version` (manifest or `@version` of the spec). */
      spec: string;
      args: string[];
      env: Record<string, string>;
    }
  | {
      kind: 'binary';
      id: string;
      version: string;
      platform: PlatformKey;
      target: BinaryTarget;
      args: string[];
      env: Record<string, string>;
    };

/** `@scope/name@1.2.3` -> `['@scope/name', '1.2.3']` (the version is after the last `@` that is not the first character). */
export function splitPackage(pkg: string): [string, string | undefined] {
  const at = pkg.lastIndexOf('@');
  return at > 0 ? [pkg.slice(0, at), pkg.slice(at + 1)] : [pkg, undefined];
}

/**
 * What went wrong: `unavailable` (unknown id, no build for this platform, a version a binary
 * cannot have), `runtime` (uv or another program the distribution needs is missing), `install`
 * (npm, the download, the checksum or the unpacking failed).
 */
export type RegistryErrorKind = 'unavailable' | 'runtime' | 'install';

/** Why an agent cannot be planned or installed here, with a hint (for installs: the command to run by hand). */
export class RegistryError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
    readonly kind: RegistryErrorKind = 'unavailable',
  ) {
    super(message);
    this.name = 'RegistryError';
  }
}

/**
 * The distribution to use for `agent` on `platform`: npx first (Node is there: this is a Node
 * program), then the platform's binary, then uvx (needs uv, checked at install). `version` (from
 * `<id>@<version>`) replaces a package's version; a binary is pinned to its manifest's archive.
 */
export function planInstall(agent: RegistryAgent, version?: string, platform = platformKey()): InstallPlan {
  const d = agent.distribution;
  for (const kind of ['npx', 'uvx'] as const) {
    const p = d[kind];
    if (!p || (kind === 'uvx' && d.binary && platform && d.binary[platform])) continue;
    const [name, pinned] = splitPackage(p.package);
    const v = version ?? pinned ?? agent.version;
    const spec = kind === 'uvx' ? `${name}==${v}` : `${name}@${v}`;
    return { kind, id: agent.id, version: v, name, spec, args: p.args ?? [], env: p.env ?? {} };
  }
  const target = platform ? d.binary?.[platform] : undefined;
  if (target && platform) {
    if (version !== undefined && version !== agent.version)
      throw new RegistryError(
        `${agent.id}@${version}: the registry's binary of ${agent.id} is version ${agent.version} (its archive URL and checksum are for that one)`,
        `Drop @${version}, or point --registry at a registry.json whose ${agent.id} manifest has ${version}.`,
      );
    return {
      kind: 'binary',
      id: agent.id,
      version: agent.version,
      platform,
      target,
      args: target.args ?? [],
      env: target.env ?? {},
    };
  }
  const have = [...Object.keys(d.binary ?? {}), ...(d.npx ? ['npx'] : []), ...(d.uvx ? ['uvx'] : [])];
  throw new RegistryError(
    `${agent.id} has no distribution for this platform (${platform ?? `${process.platform}-${process.arch}`}); it has: ${have.join(', ') || 'none'}`,
    'Run it on one of those platforms, or start it yourself and pass its command line to --agent.',
  );
}

/** What the spec names, or a clear error: the id is unknown (with the ids that look alike). */
export function findAgent(agents: readonly RegistryAgent[], spec: AgentSpec): RegistryAgent {
  const a = agents.find((x) => x.id === spec.id);
  if (a) return a;
  const near = agents.filter((x) => x.id.includes(spec.id) || spec.id.includes(x.id)).map((x) => x.id);
  throw new RegistryError(
    `no agent "${spec.id}" in the registry`,
    near.length > 0 ? `Did you mean ${near.join(', ')}?` : 'See `acp-kit agents list`.',
  );
}
