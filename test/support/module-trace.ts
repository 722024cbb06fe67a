/**
 * For the start-up tests: runs a process under test/fixtures/module-trace.mjs and reads what the
 * tracer printed on its stderr (`MODULE <url>` for each ES module, `CJS <path>` for each CommonJS
 * file): the files, the packages they come from and the Node built-ins.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(import.meta.dirname, '../..');
const TRACE = resolve(ROOT, 'test/fixtures/module-trace.mjs');

/**
 * Runs `node --import module-trace.mjs ...args` in the package root. With `input`, writes it and
 * closes stdin once the first line came back (an agent then exits, and the exit hook lists
 * CommonJS); without, stdin is closed from the start. Fails after 20 s.
 */
export function runTraced(
  args: string[],
  env: Record<string, string>,
  input?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', pathToFileURL(TRACE).href, ...args], {
      cwd: ROOT,
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`no exit within 20 s\nstdout: ${out}\nstderr: ${err}`));
    }, 20_000);
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (input !== undefined && out.includes('\n')) child.stdin!.end();
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', (e) => {
      clearTimeout(timer);
      fail(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout: out, stderr: err });
    });
    if (input !== undefined) child.stdin!.write(input);
  });
}

export interface LoadedModules {
  /** Every loaded file (absolute paths), ESM and CommonJS. */
  files: Set<string>;
  /** Packages loaded from node_modules (`name` or `@scope/name`), sorted. */
  packages: string[];
  /** Node built-ins imported as ESM (`node:crypto`, ...), sorted. */
  builtins: string[];
}

export function loadedModules(traceStderr: string): LoadedModules {
  const files = new Set<string>();
  const builtins = new Set<string>();
  for (const m of traceStderr.matchAll(/^(MODULE|CJS) (.+)$/gm)) {
    const spec = m[2]!;
    if (spec.startsWith('node:')) builtins.add(spec);
    const path = m[1] === 'MODULE' ? (spec.startsWith('file:') ? fileURLToPath(spec) : null) : spec;
    if (path) files.add(path);
  }
  const packages = new Set<string>();
  for (const f of files) {
    const nm = f.lastIndexOf('/node_modules/');
    if (nm < 0) continue;
    const parts = f.slice(nm + '/node_modules/'.length).split('/');
    packages.add(parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!);
  }
  return { files, packages: [...packages].sort(), builtins: [...builtins].sort() };
}
