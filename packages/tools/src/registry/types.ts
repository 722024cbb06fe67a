/** The ACP Registry's formats (its FORMAT.md and agent.schema.json), as this package reads them. */

/** The platform keys of a binary distribution (agent.schema.json `binaryDistribution.propertyNames`). */
export type PlatformKey =
  'darwin-aarch64' | 'darwin-x86_64' | 'linux-aarch64' | 'linux-x86_64' | 'windows-aarch64' | 'windows-x86_64';

/** `npx` and `uvx`: a package, with an optional `@version`. */
export interface PackageDistribution {
  package: string;
  args?: string[];
  env?: Record<string, string>;
}

/** One platform of a `binary` distribution. */
export interface BinaryTarget {
  archive: string;
  /** Hex SHA-256 of the archive; when given, the download must match it. */
  sha256?: string;
  /** The command, relative to the extracted archive (`./codex-acp`). */
  cmd: string;
  args?: string[];
  env?: Record<string, string>;
}

export interface Distribution {
  npx?: PackageDistribution;
  uvx?: PackageDistribution;
  binary?: Partial<Record<PlatformKey, BinaryTarget>>;
}

/** One agent's manifest (`<id>/agent.json`, one entry of `registry.json`). */
export interface RegistryAgent {
  id: string;
  name: string;
  version: string;
  description: string;
  repository?: string;
  website?: string;
  authors?: string[];
  license?: string;
  license_url?: string;
  icon?: string;
  distribution: Distribution;
}

/** Where a registry was read from. */
export type RegistrySourceKind = 'flag' | 'env' | 'official' | 'cache' | 'snapshot';

/** A registry read and checked: the agents that passed the schema, and what was wrong with the others. */
export interface Registry {
  agents: RegistryAgent[];
  /** `--registry`, `$ACP_KIT_REGISTRY`, the official URL (fresh or its cached copy), or the shipped snapshot. */
  source: { kind: RegistrySourceKind; location: string; date?: string };
  /** Manifests left out because they fail the schema (one line each), and sources that failed before this one. */
  warnings: string[];
}
