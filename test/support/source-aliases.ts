import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');

/**
 * Vite aliases from every `@acp-kit/*` entry point to its TypeScript source, read from the root
 * tsconfig's `paths` (one list for the type checker and the tests). Exact matches only, longest
 * first, so `@acp-kit/protocol/rpc` never resolves as `@acp-kit/protocol` + `/rpc`.
 */
export function sourceAliases(): Array<{ find: RegExp; replacement: string }> {
  const config = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8')) as {
    compilerOptions: { paths: Record<string, string[]> };
  };
  return Object.entries(config.compilerOptions.paths)
    .sort(([a], [b]) => b.length - a.length)
    .map(([name, [target]]) => ({
      find: new RegExp(`^${name.replace(/[/.-]/g, '\\$&')}$`),
      replacement: join(root, target ?? ''),
    }));
}
