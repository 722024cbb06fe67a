/**
 * A registry agent "installed" in a data dir from this repository's own devDependency, where the
 * product's `installAgent` looks for it: a test that is about what happens after the install (the
 * matrix's probe and checks) then skips the `npm install`, which for claude-agent-acp unpacks
 * 111 packages and a 323 MB Claude Code binary (about 8 CPU-s). The install itself is proven by
 * the tests that run it (test/cli-registry-agents.test.ts: `run --agent claude-acp@0.101.0`).
 */
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import {
  findAgent,
  installDir,
  parseAgentSpec,
  planInstall,
  type RegistryAgent,
} from '../../packages/tools/src/registry/index.js';

/**
 * Links the devDependency named by `spec`'s npm distribution into the install folder of `spec`
 * (`<id>@<version>`) under `env`'s data dir: its package folder and its bin, as `npm install
 * --prefix` leaves them. Throws when the devDependency is missing or another version. Returns
 * the install folder.
 */
export function seedNpmInstall(agents: readonly unknown[], spec: string, env: NodeJS.ProcessEnv): string {
  const parsed = parseAgentSpec(spec);
  if (!parsed) throw new Error(`"${spec}" is not an agent spec`);
  const plan = planInstall(findAgent(agents as RegistryAgent[], parsed), parsed.version);
  if (plan.kind !== 'npx') throw new Error(`${spec} is not an npm agent (${plan.kind})`);
  const manifest = createRequire(import.meta.url).resolve(`${plan.name}/package.json`);
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string; bin?: string | Record<string, string> };
  if (pkg.version !== plan.version)
    throw new Error(`the devDependency ${plan.name} is ${pkg.version}, ${spec} needs ${plan.version}: npm ci`);
  const bins = typeof pkg.bin === 'string' ? { [plan.name.split('/').pop() ?? plan.name]: pkg.bin } : (pkg.bin ?? {});
  const dir = installDir(plan, env);
  const modules = join(dir, 'node_modules');
  mkdirSync(dirname(join(modules, plan.name)), { recursive: true });
  // Node resolves the package's own imports from the link's target: this repository's node_modules
  symlinkSync(dirname(manifest), join(modules, plan.name), 'dir');
  mkdirSync(join(modules, '.bin'));
  for (const [name, file] of Object.entries(bins))
    symlinkSync(join('..', plan.name, file), join(modules, '.bin', name));
  return dir;
}
