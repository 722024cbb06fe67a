import { readFileSync } from 'node:fs';

/**
 * The package version, read from package.json next to `dist/`. A leaf module (no CLI imports) so
 * that commands, the session runner and the program can all use it without an import cycle.
 */
export function packageVersion(): string {
  try {
    const pkg: unknown = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    return typeof pkg === 'object' && pkg !== null && 'version' in pkg && typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}
