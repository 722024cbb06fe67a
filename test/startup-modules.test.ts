/**
 * Start-up (issue 8 item 4): what an agent loads before it answers `initialize`. Editors spawn one
 * agent per thread, and Node pays per module file (resolve, open, read, link) and per package, so
 * the published entry points are bundled (scripts/bundle.mjs -> dist/bundle/) and the built-in
 * coding agent lives in its own entry (`acp-kit/agent/coding`). The times themselves are in
 * `npm run bench` (bench/startup.mjs); these tests pin what those times depend on. Real processes
 * over real pipes; needs `npm run build`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadedModules, runTraced } from './support/module-trace.js';

const ROOT = resolve('.');
const INIT = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 2, info: { name: 'startup-test', version: '0' }, capabilities: {} } })}\n`;

interface Trace {
  /** The `initialize` answer line. */
  answer: { result?: { protocolVersion?: number; info?: { name?: string } } };
  /** Files of this package loaded (paths relative to the package root), ESM and CommonJS. */
  ownFiles: string[];
  /** Packages loaded from node_modules (ESM and CommonJS). */
  packages: string[];
  /** Node built-ins imported as ESM (`node:crypto`, ...). */
  builtins: string[];
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Runs `node --import module-trace.mjs ...args`, sends `initialize`, closes stdin, collects what was loaded. */
async function traceStartup(args: string[]): Promise<Trace> {
  const data = mkdtempSync(join(tmpdir(), 'acp-kit-startup-modules-'));
  dirs.push(data);
  const r = await runTraced(args, { ACP_KIT_DATA_DIR: data }, INIT);
  const line = r.stdout.split('\n')[0];
  if (!line) throw new Error(`no initialize answer\nstderr: ${r.stderr}`);
  const { files, packages, builtins } = loadedModules(r.stderr);
  const ownFiles = [...files]
    .filter((f) => f.startsWith(ROOT + '/') && !f.includes('/node_modules/'))
    .map((f) => f.slice(ROOT.length + 1));
  return { answer: JSON.parse(line), ownFiles: ownFiles.sort(), packages, builtins };
}

/** What the build wrote: acp-kit's dist/ and the workspace packages' (packages/<name>/dist/). */
const isBuilt = (f: string): boolean => f.startsWith('dist/') || /^packages\/[a-z-]+\/dist\//.test(f);
const isBundle = (f: string): boolean => f.startsWith('dist/bundle/') || /^packages\/[a-z-]+\/dist\/bundle\//.test(f);
const PRECOMPILED = 'packages/protocol/dist/validation/precompiled/';
/**
 * Files loaded before the `initialize` answer, today: the minimal agent 13 (acp-kit/agent's re-export
 * file, 2 of the agent package, 2 of the PostgreSQL store it re-exports, 7 of the protocol package,
 * the validator), `acp-kit agent` 27. Before the workspace split: 10 and 29.
 */
const MINIMAL_AGENT_FILES = 13;
const CLI_AGENT_FILES = 29;

/** Marks of code that must not load: the coding agent's system prompt, the client runtime's connection class. */
const CODING_AGENT_CODE = 'You are a coding agent';
const CLIENT_CODE = 'ClientConnection';
const containsAny = (file: string, marks: string[]): boolean => {
  const text = readFileSync(resolve(ROOT, file), 'utf8');
  return marks.some((m) => text.includes(m));
};

describe('start-up: what an agent loads to answer initialize', () => {
  it('a minimal runAgentOnStdio agent (acp-kit/agent) loads a few bundled files, no package and no coding agent', async () => {
    const t = await traceStartup(['bench/startup-minimal-agent.mjs']);
    expect(t.answer.result?.info?.name).toBe('minimal');
    expect(t.packages).toEqual([]);
    // ids and hashes are first needed after initialize (session/new): node:crypto costs ms to load
    expect(t.builtins).not.toContain('node:crypto');
    const lib = t.ownFiles.filter(isBuilt);
    // the bundles and the one precompiled validator initialize needs; no per-file tsc output
    // (acp-kit/agent is a file of re-exports: dist/entries/agent.js)
    expect(lib.filter((f) => !isBundle(f) && !f.startsWith(PRECOMPILED) && f !== 'dist/entries/agent.js')).toEqual([]);
    expect(lib.filter((f) => f.startsWith(PRECOMPILED))).toEqual([`${PRECOMPILED}v2-InitializeRequest.cjs`]);
    // each file costs ~1 ms (resolve, read, compile, link). esbuild cuts a chunk per set of entries
    // reaching a module, so a new entry point of a package slices this graph again: keep it in the line
    expect(lib.length).toBeLessThanOrEqual(MINIMAL_AGENT_FILES);
    expect(lib.filter((f) => containsAny(f, [CODING_AGENT_CODE, CLIENT_CODE]))).toEqual([]);
  });

  it('`acp-kit agent` (built-in coding agent, demo model) loads its bundle and commander only: no client, UI, AI SDK, MCP, zod or Ajv', async () => {
    const t = await traceStartup(['bin/acp-kit.js', 'agent', '--model', 'demo']);
    expect(t.answer.result?.info?.name).toBe('acp-kit-agent');
    expect(t.packages).toEqual(['commander']);
    expect(t.builtins).not.toContain('node:crypto');
    const lib = t.ownFiles.filter(isBuilt);
    expect(lib.filter((f) => !isBundle(f) && !f.startsWith(PRECOMPILED))).toEqual([]);
    expect(lib.length).toBeLessThanOrEqual(CLI_AGENT_FILES);
    expect(lib.filter((f) => containsAny(f, [CODING_AGENT_CODE])).length).toBeGreaterThan(0);
    expect(lib.filter((f) => containsAny(f, [CLIENT_CODE]))).toEqual([]);
  });
});
