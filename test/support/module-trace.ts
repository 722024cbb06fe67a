/**
 * Reads what test/fixtures/module-trace.mjs printed on a traced process's stderr (`MODULE <url>` for
 * each ES module, `CJS <path>` for each CommonJS file): the files, the packages they come from and
 * the Node built-ins, for the start-up tests.
 */
import { fileURLToPath } from 'node:url';

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
