// An in-process component from a module file: `acp-kit conduct --component <module>` (library API, so
// the CLI stays thin).
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ComponentDefinition } from './component.js';

/** A module that cannot be used as an in-process component: what is wrong, and what to do (`hint`). */
export class ComponentModuleError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = 'ComponentModuleError';
  }
}

/** How a module runs itself as a command too (in two parts: the bundler rewrites that expression even in a string). */
const RUN_IF_MAIN = 'runComponentIfMain(import' + '.meta.url, definition)';
const HINT =
  'Give an ES module (its path, or the name of a package installed where acp-kit runs) whose default export ' +
  'is a component definition: `export default defineComponent({ ... })` ' +
  `(acp-kit/proxy); to run it as a command as well, add \`${RUN_IF_MAIN}\`.`;

/** An npm package name, optionally with a subpath (`acme-note`, `@acme/redactor`, `@acme/kit/strict`). */
const PACKAGE_NAME = /^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*(\/[^\\]+)*$/;

/**
 * The file a `--component` argument names, from `cwd`: a module file's path, or else an installed
 * package's entry (`@acme/redactor`), found as Node finds `require(name)` from `cwd` (a package whose
 * `exports` offer only an `import` condition is not found that way: give its file's path). Undefined
 * when neither names a file.
 */
export function componentModuleFile(spec: string, cwd: string = process.cwd()): string | undefined {
  const file = resolve(cwd, spec);
  if (existsSync(file) && statSync(file).isFile()) return file;
  if (!PACKAGE_NAME.test(spec)) return undefined;
  try {
    return createRequire(join(cwd, 'noop.js')).resolve(spec);
  } catch {
    return undefined;
  }
}

/** The members a `defineComponent` argument may have: handlers, or tables of handlers by method. */
const HANDLERS = new Set(['onPrompt', 'onUpdate', 'onReady']);
const TABLES = new Set(['toAgent', 'toClient']);

/** Set on `globalThis` while a component module is being imported (shared by every copy of the library). */
const LOADING = Symbol.for('acp-kit.conductor.loading-component-module');

/**
 * Called by `runComponent` before it takes this process's stdio: a module imported as an in-process
 * component must not start itself on the conductor's stdin and stdout (two readers of one stream).
 */
export function refuseStdioWhileLoading(): void {
  if (Reflect.get(globalThis, LOADING) === true)
    throw new Error(
      'the module starts a component on stdio when it is imported (runComponent at its top level); ' +
        `export the definition as default and start it with ${RUN_IF_MAIN}`,
    );
}

/**
 * Why `value` is not a component definition (what `defineComponent` returns), or undefined when it
 * is one: an object whose members are among `onPrompt`, `onUpdate`, `onReady` (functions), `toAgent`,
 * `toClient` (objects of functions). `{}` is one: it forwards everything.
 */
export function componentDefinitionProblem(value: unknown): string | undefined {
  if (value === undefined) return 'it has no default export';
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return `its default export is ${value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`}, not a component definition`;
  for (const [key, member] of Object.entries(value)) {
    if (HANDLERS.has(key)) {
      if (typeof member !== 'function' && member !== undefined) return `its default export's ${key} is not a function`;
    } else if (TABLES.has(key)) {
      if (member === undefined) continue;
      if (typeof member !== 'object' || member === null)
        return `its default export's ${key} is not an object of handlers`;
      const bad = Object.entries(member).find(([, h]) => typeof h !== 'function');
      if (bad) return `its default export's ${key}["${bad[0]}"] is not a function`;
    } else {
      return `its default export has a member "${key}" that a component definition does not have (onPrompt, onUpdate, onReady, toAgent, toClient)`;
    }
  }
  return undefined;
}

/**
 * Imports the module `path` names ({@link componentModuleFile}: a file relative to `cwd`, or an
 * installed package) and returns its default export, checked to be a
 * component definition ({@link componentDefinitionProblem}). `instance` > 0 imports a fresh copy of
 * the module (its own module-level state, as a separate process would have): the conductor gives each
 * repeat of one module in a chain its own. Throws {@link ComponentModuleError} saying what is wrong.
 */
export async function loadComponentModule(
  path: string,
  options: { cwd?: string; instance?: number } = {},
): Promise<ComponentDefinition> {
  return importComponent(path, moduleFileOrThrow(path, options.cwd ?? process.cwd()), options.instance);
}

/** {@link componentModuleFile}, or the error saying that `path` names neither a file nor a package. */
function moduleFileOrThrow(path: string, cwd: string): string {
  const file = componentModuleFile(path, cwd);
  if (file !== undefined) return file;
  const asPackage = PACKAGE_NAME.test(path) ? ` and no package of that name installed for ${cwd}` : '';
  throw new ComponentModuleError(`component module ${path}: no such file (${resolve(cwd, path)})${asPackage}`, HINT);
}

/** Imports `file` (named `path` on the command line) and checks its default export. */
async function importComponent(path: string, file: string, instance = 0): Promise<ComponentDefinition> {
  const url = pathToFileURL(file).href + (instance ? `?instance=${instance}` : '');
  let mod: unknown;
  Reflect.set(globalThis, LOADING, true);
  try {
    mod = await import(url);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    throw new ComponentModuleError(`component module ${path} could not be loaded: ${message}`, HINT);
  } finally {
    Reflect.set(globalThis, LOADING, false);
  }
  const definition: unknown = typeof mod === 'object' && mod !== null ? Reflect.get(mod, 'default') : undefined;
  if (!isDefinition(definition))
    throw new ComponentModuleError(
      `component module ${path}: ${componentDefinitionProblem(definition) ?? 'not a component definition'}`,
      HINT,
    );
  return definition;
}

/** Narrows what {@link componentDefinitionProblem} accepted. */
function isDefinition(v: unknown): v is ComponentDefinition {
  return componentDefinitionProblem(v) === undefined;
}

/**
 * Loads several component modules for one chain (see {@link loadComponentModule}): a module named more
 * than once gets a fresh instance for each repeat, so no two positions share module-level state.
 */
export async function loadComponentModules(
  paths: readonly string[],
  options: { cwd?: string } = {},
): Promise<ComponentDefinition[]> {
  const seen = new Map<string, number>();
  const out: ComponentDefinition[] = [];
  for (const p of paths) {
    const file = moduleFileOrThrow(p, options.cwd ?? process.cwd());
    const instance = seen.get(file) ?? 0;
    seen.set(file, instance + 1);
    out.push(await importComponent(p, file, instance));
  }
  return out;
}
