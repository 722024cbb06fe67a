import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { RegistryAgent } from './types.js';

/**
 * The shipped data folder: `packages/tools/registry-data/`, two folders above both this module
 * in the sources (`src/registry/`) and the bundle (`dist/bundle/`).
 */
export function registryDataPath(file: string): string {
  return fileURLToPath(new URL(`../../registry-data/${file}`, import.meta.url));
}

const readJson = (file: string): unknown => JSON.parse(readFileSync(registryDataPath(file), 'utf8'));

type AjvCtor = new (opts: Record<string, unknown>) => {
  addSchema(schema: unknown): unknown;
  addFormat(name: string, format: RegExp): unknown;
  getSchema(id: string): ValidateFunction | undefined;
};

let validators: { agent: ValidateFunction; registry: ValidateFunction } | undefined;

/** The registry's own schemas compiled once (Ajv is CommonJS: `require` keeps this synchronous, like the wire validator). */
function compiled(): { agent: ValidateFunction; registry: ValidateFunction } {
  if (validators) return validators;
  const Ajv = (createRequire(import.meta.url)('ajv') as { default: AjvCtor }).default;
  const ajv = new Ajv({ allErrors: false, strict: false });
  // the schemas use `format: uri`; ajv-formats is not a dependency, and a scheme check is what matters here
  ajv.addFormat('uri', /^[a-z][a-z0-9+.-]*:\S*$/i);
  ajv.addSchema(readJson('agent.schema.json'));
  ajv.addSchema(readJson('registry.schema.json'));
  const agent = ajv.getSchema('https://cdn.agentclientprotocol.com/registry/v1/latest/agent.schema.json');
  const registry = ajv.getSchema('https://cdn.agentclientprotocol.com/registry/v1/latest/registry.schema.json');
  if (!agent || !registry) throw new Error('registry schemas did not load (packages/tools/registry-data)');
  validators = { agent, registry };
  return validators;
}

const describe = (errors: ErrorObject[] | null | undefined): string =>
  (errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`).join('; ');

/** A manifest checked against agent.schema.json: the agent, or why not. */
export function validateManifest(value: unknown): { agent: RegistryAgent } | { error: string } {
  const { agent } = compiled();
  if (agent(value)) return { agent: value as RegistryAgent };
  return { error: describe(agent.errors) };
}

/**
 * A whole `registry.json`: its envelope must pass registry.schema.json's own keys (else the source
 * is unusable), then each agent is checked alone so that one bad manifest leaves out that agent,
 * not the other thirty (the registry's build validates too, but a mirror or a file may not).
 */
export function validateRegistry(value: unknown): { agents: RegistryAgent[]; warnings: string[] } {
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
  if (!isObject(value) || !Array.isArray(value.agents))
    throw new Error('not a registry.json: expected an object with an "agents" array');
  const warnings: string[] = [];
  // the envelope alone (version, no unknown keys): the agents are judged one by one below
  const { registry } = compiled();
  if (!registry({ ...value, agents: [], extensions: [] }))
    warnings.push(`registry.json fails registry.schema.json: ${describe(registry.errors)}`);
  const agents: RegistryAgent[] = [];
  value.agents.forEach((entry: unknown, i: number) => {
    const checked = validateManifest(entry);
    const id = isObject(entry) && typeof entry.id === 'string' ? entry.id : `#${i}`;
    if ('agent' in checked) agents.push(checked.agent);
    else warnings.push(`agent ${id} left out: its manifest fails agent.schema.json: ${checked.error}`);
  });
  return { agents, warnings };
}
