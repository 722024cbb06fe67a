// `--component <package>`: an in-process component named by an installed package, found from the
// working directory as Node finds `require(name)` there (main, or exports as a string or by subpath). One
// real chain driven by `acp-kit run`; the loader in process for repeats, subpaths and the errors.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ComponentModuleError,
  loadComponentModule,
  loadComponentModules,
  type ComponentDefinition,
} from '../packages/tools/src/proxy/index.js';
import { BIN, cliEnv, runCli, tempDir } from './fixtures/cli-helpers.js';

const NODE = process.execPath;
const AGENT = `${NODE} ${BIN} agent --model demo`;
/** A component that puts a line before every prompt, and counts the prompts of its module instance. */
const NOTE = `let seen = 0;
export const prompts = () => seen;
export default {
  onPrompt: (req, next) => {
    seen++;
    return next({ ...req, prompt: [{ type: 'text', text: 'NOTE FROM THE PACKAGE.' }, ...req.prompt] });
  },
};
`;

/** A project directory with packages in node_modules: name -> package.json members and files. */
function project(packages: Record<string, { json: object; files: Record<string, string> }>): string {
  const d = tempDir('conduct-pkg');
  for (const [name, p] of Object.entries(packages)) {
    const dir = join(d, 'node_modules', ...name.split('/'));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', type: 'module', ...p.json }));
    for (const [f, text] of Object.entries(p.files)) {
      mkdirSync(join(dir, f, '..'), { recursive: true });
      writeFileSync(join(dir, f), text);
    }
  }
  return d;
}

const PACKAGES = {
  '@acme/note': { json: { main: 'index.js' }, files: { 'index.js': NOTE } },
  'acme-kit': {
    json: { exports: { '.': './lib/main.js', './strict': './lib/strict.js' } },
    files: { 'lib/main.js': 'export default {};\n', 'lib/strict.js': NOTE },
  },
  'acme-import-only': { json: { exports: { '.': { import: './x.js' } } }, files: { 'x.js': NOTE } },
};

it('acp-kit conduct --component @acme/note: the package installed in the project runs in the chain', async () => {
  const d = project(PACKAGES);
  const chain = `${NODE} ${BIN} conduct --component @acme/note -- ${AGENT}`;
  const r = await runCli(['run', '--protocol', '2', '--agent', chain, 'hello there'], { cwd: d, env: cliEnv() });
  expect(r.code, r.stderr).toBe(0);
  // the demo agent quotes its prompt: the package's note is in it
  expect(r.stdout).toContain('NOTE FROM THE PACKAGE.');
  expect(r.stdout).toContain('hello there');
});

describe('loading a component by package name', () => {
  it('main, exports ".", an exported subpath; a package named twice gets an instance per position', async () => {
    const cwd = project(PACKAGES);
    const [a, b] = await loadComponentModules(['@acme/note', '@acme/note'], { cwd });
    expect(a).toBeDefined();
    expect(a).not.toBe(b);
    expect(await loadComponentModule('acme-kit', { cwd })).toEqual({});
    const strict: ComponentDefinition = await loadComponentModule('acme-kit/strict', { cwd });
    expect(typeof strict.onPrompt).toBe('function');
  });

  it('no file and no package of that name: a ComponentModuleError naming both, with what to do', async () => {
    const cwd = project(PACKAGES);
    const e: unknown = await loadComponentModule('@acme/missing', { cwd }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ComponentModuleError);
    expect(String(e)).toContain(
      `no such file (${join(cwd, '@acme/missing')}) and no package of that name installed for ${cwd}`,
    );
    expect((e as ComponentModuleError).hint).toContain('the name of a package installed where acp-kit runs');
    // a package whose exports offer only "import" is not found that way: the same error says to give a path
    const imp: unknown = await loadComponentModule('acme-import-only', { cwd }).catch((x: unknown) => x);
    expect(String(imp)).toContain('no package of that name installed');
    expect(await loadComponentModule('node_modules/acme-import-only/x.js', { cwd })).toHaveProperty('onPrompt');
  });
});
