// A component module that is both an in-process component (its default export) and a command.
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runComponent, type ComponentDefinition, type ComponentHandle, type RunComponentOptions } from './component.js';

/**
 * Runs `definition` on stdio when the module at `moduleUrl` (pass `import.meta.url`) is the program
 * node was started with, and does nothing when it was imported (by `acp-kit conduct --component`, or
 * a test). One file then serves both ways:
 *
 * ```js
 * const definition = defineComponent({ ... });
 * export default definition;
 * runComponentIfMain(import.meta.url, definition);
 * ```
 *
 * @returns the running component, or undefined when the module was imported
 */
export function runComponentIfMain(
  moduleUrl: string,
  definition: ComponentDefinition,
  options?: RunComponentOptions,
): ComponentHandle | undefined {
  const main = process.argv[1];
  if (main === undefined || !sameFile(fileURLToPath(moduleUrl), resolve(main))) return undefined;
  return runComponent(definition, options);
}

function sameFile(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}
