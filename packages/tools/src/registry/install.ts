import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { RegistryError, type InstallPlan } from './distribution.js';
import { registryDataRoot } from './source.js';

/** An installed agent: how to start it. */
export interface InstalledAgent {
  command: string;
  args: string[];
  /** The manifest's environment (to add to the caller's). */
  env: Record<string, string>;
  /** Where it is installed (npx, binary); uvx keeps its own cache. */
  dir?: string;
  /** True when this call installed it, false when the cache already had it. */
  installed: boolean;
  /** Things to tell the user (a Node version below the package's `engines`). */
  warnings: string[];
}

export interface InstallOptions {
  env?: NodeJS.ProcessEnv;
  /** Progress lines (the install command, "already installed"). */
  log?: (line: string) => void;
}

/** `<data>/agents/<id>/<version>-<kind>`: one folder per installed version, never shared between versions. */
export function installDir(plan: InstallPlan, env: NodeJS.ProcessEnv = process.env): string {
  return join(registryDataRoot(env), 'agents', plan.id, `${plan.version}-${plan.kind}`);
}

const quote = (w: string): string => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);

/** Runs a command to the end; its stderr tail goes into the error. */
function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((res) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => {
      stderr = (stderr + b.toString('utf8')).slice(-4000);
    });
    child.on('error', (e) => res({ code: null, stderr: e.message }));
    child.on('close', (code) => res({ code, stderr }));
  });
}

/** The bin of an installed npm package: the only one, else the one named like the package. */
function npmBin(dir: string, name: string): string {
  const pkg = JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')) as {
    bin?: string | Record<string, string>;
  };
  const short = name.replace(/^@[^/]+\//, '');
  const bins = typeof pkg.bin === 'string' ? [short] : Object.keys(pkg.bin ?? {});
  const bin = bins.length === 1 ? bins[0] : (bins.find((b) => b === short) ?? bins[0]);
  if (bin === undefined) throw new RegistryError(`${name} has no bin to start`, undefined, 'install');
  return join(dir, 'node_modules', '.bin', bin);
}

/** The package's `engines.node` minimum major version against this Node (a warning: many run on older Node). */
function engineWarning(dir: string, name: string): string | undefined {
  const pkg = JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')) as {
    engines?: { node?: string };
  };
  const want = /(\d+)/.exec(pkg.engines?.node ?? '')?.[1];
  const have = Number(process.versions.node.split('.')[0]);
  if (want === undefined || have >= Number(want)) return undefined;
  return `${name} asks for Node ${pkg.engines?.node ?? ''} (engines); this is Node ${process.versions.node}: it may still run, if it fails install Node ${want}`;
}

/**
 * npm packages: `npm install --prefix <dir>` into a scratch folder renamed into place when done,
 * so a half-finished install is never taken for a finished one, and two installs at once end
 * with one folder (the loser's rename fails and its copy is dropped).
 */
async function installNpm(
  plan: Extract<InstallPlan, { kind: 'npx' | 'uvx' }>,
  o: InstallOptions,
): Promise<InstalledAgent> {
  const env = o.env ?? process.env;
  const dir = installDir(plan, env);
  const have = existsSync(join(dir, 'node_modules', plan.name, 'package.json'));
  if (!have) {
    const tmp = `${dir}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    writeFileSync(join(tmp, 'package.json'), '{"private":true}\n');
    const args = ['install', '--prefix', tmp, '--no-audit', '--no-fund', '--loglevel=error', plan.spec];
    o.log?.(`npm ${args.map(quote).join(' ')}`);
    const r = await run(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, env);
    if (r.code !== 0) {
      rmSync(tmp, { recursive: true, force: true });
      throw new RegistryError(
        `installing ${plan.id} failed: npm install ${plan.spec} ${r.code === null ? 'could not start' : `exited ${r.code}`}: ${r.stderr.trim().split('\n').slice(-5).join('\n')}`,
        `Run it by hand to see why: npm install --prefix ${quote(dir)} ${quote(plan.spec)}`,
        'install',
      );
    }
    try {
      renameSync(tmp, dir);
    } catch {
      rmSync(tmp, { recursive: true, force: true });
      if (!existsSync(join(dir, 'node_modules', plan.name, 'package.json')))
        throw new RegistryError(`could not move the install of ${plan.id} into ${dir}`, undefined, 'install');
    }
  }
  const warning = engineWarning(dir, plan.name);
  return {
    command: npmBin(dir, plan.name),
    args: plan.args,
    env: plan.env,
    dir,
    installed: !have,
    warnings: warning ? [warning] : [],
  };
}

/** uvx keeps its own cache: here only check that uv is there, and start `uvx <package>==<version>`. */
function planUvx(plan: Extract<InstallPlan, { kind: 'npx' | 'uvx' }>, o: InstallOptions): InstalledAgent {
  const probe = spawnSync('uvx', ['--version'], { env: o.env ?? process.env, stdio: 'ignore' });
  if (probe.error || probe.status !== 0)
    throw new RegistryError(
      `${plan.id} is a Python package run with uvx, and uvx (uv) is not installed or does not run`,
      `Install uv (https://docs.astral.sh/uv/getting-started/installation/), then try again; by hand it is: ${['uvx', plan.spec, ...plan.args].map(quote).join(' ')}`,
      'runtime',
    );
  return { command: 'uvx', args: [plan.spec, ...plan.args], env: plan.env, installed: false, warnings: [] };
}

/** Unpacks `file` into `dir` by its extension (the registry's list: zip, tar.gz/tgz, tar.bz2/tbz2, else a raw binary). */
async function unpack(file: string, dir: string, env: NodeJS.ProcessEnv): Promise<void> {
  const name = basename(file).toLowerCase();
  const [cmd, args] = name.endsWith('.zip')
    ? ['unzip', ['-q', '-o', file, '-d', dir]]
    : /\.(tar\.gz|tgz)$/.test(name)
      ? ['tar', ['-xzf', file, '-C', dir]]
      : /\.(tar\.bz2|tbz2)$/.test(name)
        ? ['tar', ['-xjf', file, '-C', dir]]
        : [undefined, []];
  if (cmd === undefined) {
    chmodSync(file, 0o755);
    return;
  }
  const r = await run(cmd, args, env);
  if (r.code !== 0)
    throw new RegistryError(
      `unpacking ${name} with ${cmd} failed: ${r.stderr.trim()}`,
      `Run by hand: ${[cmd, ...args].map(quote).join(' ')}`,
      'install',
    );
}

/** Binaries: download, check the manifest's sha256 when it has one, unpack, start `cmd` from the unpacked folder. */
async function installBinary(
  plan: Extract<InstallPlan, { kind: 'binary' }>,
  o: InstallOptions,
): Promise<InstalledAgent> {
  const env = o.env ?? process.env;
  const dir = installDir(plan, env);
  const start = (installed: boolean): InstalledAgent => ({
    command: resolve(dir, plan.target.cmd),
    args: plan.args,
    env: plan.env,
    dir,
    installed,
    warnings: [],
  });
  if (existsSync(join(dir, '.complete'))) return start(false);
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  o.log?.(`download ${plan.target.archive}`);
  const res = await fetch(plan.target.archive).catch((e: unknown) => {
    throw new RegistryError(
      `downloading ${plan.id} failed: ${e instanceof Error ? e.message : String(e)}`,
      `Download it by hand: ${plan.target.archive}`,
      'install',
    );
  });
  if (!res.ok)
    throw new RegistryError(
      `downloading ${plan.id} failed: HTTP ${res.status} from ${plan.target.archive}`,
      `Download it by hand: ${plan.target.archive}`,
      'install',
    );
  const bytes = Buffer.from(await res.arrayBuffer());
  const sum = createHash('sha256').update(bytes).digest('hex');
  if (plan.target.sha256 !== undefined && sum !== plan.target.sha256.toLowerCase()) {
    rmSync(tmp, { recursive: true, force: true });
    throw new RegistryError(
      `${plan.id}: the archive's sha256 is ${sum}, the manifest says ${plan.target.sha256}: not installed`,
      'The archive changed after the manifest was written, or the download was altered: do not run it.',
      'install',
    );
  }
  const file = join(tmp, basename(new URL(plan.target.archive).pathname) || 'agent');
  writeFileSync(file, bytes);
  await unpack(file, tmp, env);
  writeFileSync(join(tmp, '.complete'), `${sum}\n`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  return start(true);
}

/** Installs (or finds installed) what `plan` says and returns how to start it. */
export async function installAgent(plan: InstallPlan, options: InstallOptions = {}): Promise<InstalledAgent> {
  if (plan.kind === 'binary') return installBinary(plan, options);
  if (plan.kind === 'uvx') return planUvx(plan, options);
  return installNpm(plan, options);
}
