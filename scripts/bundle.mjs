#!/usr/bin/env node
// Build step (after tsc, called by scripts/build.mjs): bundles each package's entry points from its
// dist/ into its dist/bundle/ (package.json `exports`), and the CLI (bin/acp-kit.js loads dist/bundle/cli.js). Why: start-up. Node's ESM loader pays per
// module file (resolve, open, read, link), and an agent loads ~50 of them before it can answer
// `initialize`; editors spawn one agent per thread. tsc's per-file output stays in dist/ for the
// type declarations (`types`) and for tests and scripts that load single modules.
//
// - One ESM build with code splitting: a module shared by several entries lands in one shared
//   chunk, so classes stay single instances (`instanceof AcpError` works across `acp-kit/client`
//   and `acp-kit/protocol`), and dynamic imports (CLI commands, MCP, model providers) stay lazy.
// - The CLI is its own build (own chunks, `cli-chunk-*`), not an entry of the library build: its
//   lazily imported commands are ~25 more entry points, and esbuild cuts shared code into one
//   chunk per set of entries that reach it, so they sliced what `acp-kit/agent` loads into 13
//   files (measured: ~1 ms of start-up per file). The CLI loads no user module that imports
//   acp-kit, so its own copies of the library classes never meet the package's.
// - Packages stay external (loaded from node_modules, @acp-kit/* too: one instance of each class per
//   process), except in the CLI build the
//   chat's terminal UI (ink, react, marked, marked-terminal and what they import): those are
//   ~400 module files, and loading them from node_modules cost `acp-kit chat` 1.4 s of CPU before
//   its first frame; bundled (React's production build) it is ~0.45 s. They stay lazy: only
//   `chat` imports them. A library user's own React is never this copy (the CLI loads no user module).
// - All outputs are written flat into dist/bundle/, one level below dist/, so `import.meta.url`
//   can be rewritten per source module to that module's own dist/ URL: relative lookups (schema/,
//   precompiled validators, package.json, bin/) resolve exactly as in the unbundled build.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/**
 * Packages the CLI build bundles (see the header); everything they import comes along. ajv: the
 * CLI checks user files with it (profiles, session imports; lazily), but `acp-kit` has it only as a
 * dev dependency (an optional peer of @acp-kit/protocol), so an installed CLI must carry its own.
 */
const CLI_INLINE = new Set(['ink', 'react', 'marked', 'marked-terminal', 'ajv']);

/** Which bare imports stay external: all of them in the library, all but {@link CLI_INLINE}'s in the CLI. */
const inlinePlugin = (inline) => ({
  name: 'acp-kit-inline-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:')) return { path: args.path, external: true };
      // types only: at run time the package re-exports commander's classes (its index.js), so the
      // CLI imports commander itself and start-up loads one package, not two
      if (args.path === '@commander-js/extra-typings') return { path: 'commander', external: true };
      const name = args.path.startsWith('@') ? args.path.split('/').slice(0, 2).join('/') : args.path.split('/')[0];
      // ink imports its React devtools only when DEV=true; react-devtools-core is not a dependency
      if (name === 'react-devtools-core') return { path: args.path, namespace: 'acp-kit-empty' };
      const fromInlined = args.importer.includes(`${sep}node_modules${sep}`);
      if (fromInlined || inline.has(name)) return undefined;
      return { path: args.path, external: true };
    });
    b.onLoad({ filter: /.*/, namespace: 'acp-kit-empty' }, () => ({ contents: 'export default {};', loader: 'js' }));
  },
});

/** Replaces `import.meta.url` in a dist module with the URL the module has in the unbundled build. */
const importMetaUrlPlugin = (dist, out) => ({
  name: 'acp-kit-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.js$/ }, (args) => {
      if (!args.path.startsWith(dist + sep) || args.path.startsWith(out + sep)) return undefined;
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return { contents: source, loader: 'js' };
      // every output file sits in dist/bundle/, so `../<path below dist>` reaches the original
      const rel = `../${relative(dist, args.path).split(sep).join('/')}`;
      const contents = source.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, import.meta.url).href`);
      return { contents, loader: 'js' };
    });
  },
});

/**
 * One ESM build with code splitting of `entries` (output name -> file below `dist`) into
 * `dist/bundle/`; returns its .js output files.
 */
export async function bundle(dist, entries, chunkPrefix, inline = new Set()) {
  const out = join(dist, 'bundle');
  const result = await build({
    entryPoints: Object.entries(entries).map(([name, file]) => ({ in: join(dist, file), out: name })),
    outdir: out,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    chunkNames: `${chunkPrefix}-[hash]`,
    sourcemap: true,
    logLevel: 'warning',
    metafile: true,
    plugins: [inlinePlugin(inline), importMetaUrlPlugin(dist, out)],
    ...(inline.size > 0
      ? {
          // React's production build; a bundled CommonJS package's require() of a Node built-in needs a require
          define: { 'process.env.NODE_ENV': '"production"' },
          banner: {
            js: "import { createRequire as __acpKitCreateRequire } from 'node:module'; const require = __acpKitCreateRequire(import.meta.url);",
          },
        }
      : {}),
  });
  return Object.keys(result.metafile.outputs).filter((f) => f.endsWith('.js'));
}

/** A package's bundle entries from its package.json `exports`: `./dist/bundle/<name>.js` <- `./dist/<types path>.js`. */
export function packageEntries(pkgDir) {
  const { exports } = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  const entries = {};
  for (const target of Object.values(exports)) {
    if (typeof target !== 'object' || !target.import.startsWith('./dist/bundle/')) continue;
    entries[target.import.slice('./dist/bundle/'.length, -'.js'.length)] = target.types
      .slice('./dist/'.length)
      .replace(/\.d\.ts$/, '.js');
  }
  return entries;
}

/** Bundles one package (packages/<name>) from its tsc output. */
export async function bundlePackage(pkgDir) {
  const dist = join(pkgDir, 'dist');
  rmSync(join(dist, 'bundle'), { recursive: true, force: true });
  const entries = packageEntries(pkgDir);
  const files = await bundle(dist, entries, 'chunk');
  console.log(
    `bundle: ${Object.keys(entries).length} entries in ${files.length} files in ${relative(process.cwd(), join(dist, 'bundle'))}`,
  );
}

/** The CLI (bin/acp-kit.js loads dist/bundle/cli.js), built on its own: see the header. */
export async function bundleCli(root) {
  const dist = join(root, 'dist');
  rmSync(join(dist, 'bundle'), { recursive: true, force: true });
  const files = await bundle(dist, { cli: 'cli/main.js' }, 'cli-chunk', CLI_INLINE);
  console.log(`bundle: the CLI in ${files.length} files in ${relative(process.cwd(), join(dist, 'bundle'))}`);
}

/**
 * The inspector's page (browser code, not part of the tsc build): one script and one stylesheet in
 * the tools package's dist/inspector/ui/, next to the server that serves them. Everything is
 * bundled: no CDN, no network.
 */
export async function bundleInspectorPage(toolsDir) {
  const ui = join(toolsDir, 'src', 'inspector', 'ui');
  const outdir = join(toolsDir, 'dist', 'inspector', 'ui');
  await build({
    entryPoints: [join(ui, 'app.tsx'), join(ui, 'app.css')],
    outdir,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    sourcemap: false,
    legalComments: 'none',
    logLevel: 'warning',
  });
  console.log(`bundle: inspector page in ${relative(process.cwd(), outdir)}`);
}
