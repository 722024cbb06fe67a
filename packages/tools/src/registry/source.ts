import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Registry, RegistrySourceKind } from './types.js';
import { registryDataPath, validateRegistry } from './validate.js';

/** Where the registry publishes its aggregate (the RFD's CDN address, the `$id`s' folder). */
export const OFFICIAL_REGISTRY_URL = 'https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json';

export interface LoadRegistryOptions {
  /** `--registry URL|FILE`: the only source when given (an error there is an error, no fallback). */
  registry?: string;
  env?: NodeJS.ProcessEnv;
  /** The official URL (tests: a loopback server). */
  officialUrl?: string;
  /** How long the official URL may take before the cached copy or the snapshot is used (default 3000). */
  timeoutMs?: number;
}

/** The data root (same rule as captures and sessions): `$ACP_KIT_DATA_DIR`, else the XDG data dir. */
export function registryDataRoot(env: NodeJS.ProcessEnv = process.env): string {
  return env.ACP_KIT_DATA_DIR
    ? env.ACP_KIT_DATA_DIR
    : join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'acp-kit');
}

const isUrl = (s: string): boolean => /^https?:\/\//i.test(s);

/** A registry.json text parsed and checked; a parse error names the source. */
function parse(text: string, kind: RegistrySourceKind, location: string, date?: string): Registry {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new Error(`registry at ${location} is not JSON: ${e instanceof Error ? e.message : String(e)}`, {
      cause: e,
    });
  }
  const { agents, warnings } = validateRegistry(json);
  return { agents, warnings, source: { kind, location, ...(date ? { date } : {}) } };
}

/** A URL or a file, read whole; no cache (an explicit source is read fresh each time). */
async function readExplicit(where: string, kind: RegistrySourceKind, timeoutMs: number): Promise<Registry> {
  if (!isUrl(where)) {
    const path = resolve(where);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      throw new Error(`cannot read the registry file ${path}: ${e instanceof Error ? e.message : String(e)}`, {
        cause: e,
      });
    }
    return parse(text, kind, path);
  }
  const res = await fetch(where, { signal: AbortSignal.timeout(timeoutMs) });
  if (!res.ok) throw new Error(`registry at ${where} answered HTTP ${res.status}`);
  return parse(await res.text(), kind, where);
}

/** The ETag cache of the official registry: `<data>/registry/registry.json` and its `.etag`. */
function cachePaths(env: NodeJS.ProcessEnv): { body: string; etag: string } {
  const dir = join(registryDataRoot(env), 'registry');
  return { body: join(dir, 'registry.json'), etag: join(dir, 'registry.json.etag') };
}

const readOr = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

/** Writes a file whole or not at all (a reader never sees half a registry). */
function writeAtomic(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

/**
 * The official registry with a conditional GET: 304 keeps the cached copy, 200 replaces it (only
 * once it parsed and its envelope passed: a broken answer never overwrites a good copy).
 */
async function readOfficial(url: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<Registry> {
  const paths = cachePaths(env);
  const cached = readOr(paths.body);
  const etag = cached !== undefined ? readOr(paths.etag)?.trim() : undefined;
  const res = await fetch(url, {
    headers: etag ? { 'if-none-match': etag } : {},
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (res.status === 304 && cached !== undefined) return parse(cached, 'cache', `${url} (not modified; ${paths.body})`);
  if (!res.ok) throw new Error(`registry at ${url} answered HTTP ${res.status}`);
  const text = await res.text();
  const registry = parse(text, 'official', url);
  writeAtomic(paths.body, text);
  const newTag = res.headers.get('etag');
  if (newTag) writeAtomic(paths.etag, newTag);
  return registry;
}

/** The snapshot shipped in the package, with the date of the commit it was made from. */
export function readSnapshot(): Registry {
  const source = JSON.parse(readFileSync(registryDataPath('snapshot.source.json'), 'utf8')) as {
    commit?: string;
    commitDate?: string;
  };
  const location = `snapshot of agentclientprotocol/registry@${(source.commit ?? '?').slice(0, 12)}`;
  return parse(readFileSync(registryDataPath('snapshot.json'), 'utf8'), 'snapshot', location, source.commitDate);
}

/**
 * The registry, from the first source that applies: `--registry`, `$ACP_KIT_REGISTRY` (either
 * one is final: its error is the error), then the official URL (unless `$ACP_KIT_OFFLINE`), its
 * cached copy when the network fails, and last the snapshot shipped in this package.
 */
export async function loadRegistry(options: LoadRegistryOptions = {}): Promise<Registry> {
  const env = options.env ?? process.env;
  const timeoutMs = options.timeoutMs ?? 3000;
  if (options.registry !== undefined) return readExplicit(options.registry, 'flag', timeoutMs);
  if (env.ACP_KIT_REGISTRY) return readExplicit(env.ACP_KIT_REGISTRY, 'env', timeoutMs);
  const warnings: string[] = [];
  if (!env.ACP_KIT_OFFLINE) {
    const url = options.officialUrl ?? OFFICIAL_REGISTRY_URL;
    try {
      return await readOfficial(url, env, timeoutMs);
    } catch (e) {
      warnings.push(`official registry unavailable (${e instanceof Error ? e.message : String(e)})`);
    }
  }
  const cached = readOr(cachePaths(env).body);
  if (cached !== undefined) {
    try {
      const r = parse(cached, 'cache', cachePaths(env).body);
      return { ...r, warnings: [...warnings, ...r.warnings] };
    } catch (e) {
      warnings.push(e instanceof Error ? e.message : String(e));
    }
  }
  const snap = readSnapshot();
  return { ...snap, warnings: [...warnings, ...snap.warnings] };
}
