#!/usr/bin/env node
// Build step (after tsc): bundles the public entry points and the CLI from dist/ into dist/bundle/,
// which package.json `exports` and bin/acp-kit.js load. Why: start-up. Node's ESM loader pays per
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
// - Packages stay external (loaded from node_modules as before), except in the CLI build the
//   chat's terminal UI (ink, react, marked, marked-terminal and what they import): those are
//   ~400 module files, and loading them from node_modules cost `acp-kit chat` 1.4 s of CPU before
//   its first frame; bundled (React's production build) it is ~0.45 s. They stay lazy: only
//   `chat` imports them. A library user's own React is never this copy (the CLI loads no user module).
// - All outputs are written flat into dist/bundle/, one level below dist/, so `import.meta.url`
//   can be rewritten per source module to that module's own dist/ URL: relative lookups (schema/,
//   precompiled validators, package.json, bin/) resolve exactly as in the unbundled build.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const out = join(dist, 'bundle');

/** Output name (dist/bundle/<name>.js) -> tsc output it bundles. */
export const BUNDLE_ENTRIES = {
  index: 'index.js',
  protocol: 'protocol/index.js',
  rpc: 'rpc/index.js',
  agent: 'agent/index.js',
  'agent-coding': 'agent/coding-entry.js',
  'agent-models': 'agent/models.js',
  client: 'client/index.js',
  proxy: 'proxy/index.js',
  inspector: 'inspector/index.js',
  server: 'server/index.js',
  checker: 'checker/index.js',
};

/** The CLI (bin/acp-kit.js loads dist/bundle/cli.js), built on its own: see the header. */
export const CLI_ENTRY = { cli: 'cli/main.js' };

/** Packages the CLI build bundles (see the header); everything they import comes along. */
const CLI_INLINE = new Set(['ink', 'react', 'marked', 'marked-terminal']);

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
const importMetaUrlPlugin = {
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
};

rmSync(out, { recursive: true, force: true });
/** One ESM build with code splitting of `entries` into dist/bundle/; returns its .js output files. */
async function bundle(entries, chunkPrefix, inline = new Set()) {
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
    plugins: [inlinePlugin(inline), importMetaUrlPlugin],
    ...(inline.size > 0
      ? {
          // React's production build; a bundled CommonJS package's require() of a Node built-in needs a require
          define: { 'process.env.NODE_ENV': '"production"' },
          banner: { js: "import { createRequire as __acpKitCreateRequire } from 'node:module'; const require = __acpKitCreateRequire(import.meta.url);" },
        }
      : {}),
  });
  return Object.keys(result.metafile.outputs).filter((f) => f.endsWith('.js'));
}
const library = await bundle(BUNDLE_ENTRIES, 'chunk');
const cli = await bundle(CLI_ENTRY, 'cli-chunk', CLI_INLINE);
console.log(`bundle: ${Object.keys(BUNDLE_ENTRIES).length} entries in ${library.length} files, the CLI in ${cli.length} files, in ${relative(root, out)}`);

// The inspector's page (browser code, not part of the tsc build): one script and one stylesheet in
// dist/inspector/ui/, next to the server that serves them. Everything is bundled: no CDN, no network.
const ui = join(root, 'src', 'inspector', 'ui');
await build({
  entryPoints: [join(ui, 'app.tsx'), join(ui, 'app.css')],
  outdir: join(dist, 'inspector', 'ui'),
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
console.log(`bundle: inspector page in ${relative(root, join(dist, 'inspector', 'ui'))}`);
