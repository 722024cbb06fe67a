import { readFileSync } from 'node:fs';

/**
 * acp-kit's version (all its packages share one), read from @acp-kit/protocol's package.json next to `dist/` (the bundle rewrites the relative
 * lookup, scripts/bundle.mjs). A leaf module of the lowest layer: the CLI and the checker (the
 * client info it sends) use it without an import cycle.
 */
export function packageVersion(): string {
  try {
    const pkg: unknown = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    return typeof pkg === 'object' && pkg !== null && 'version' in pkg && typeof pkg.version === 'string'
      ? pkg.version
      : '0.0.0';
  } catch {
    return '0.0.0';
  }
}
