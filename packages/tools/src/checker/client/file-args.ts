import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';

/**
 * The client command's words with every relative path that names an existing file or folder under
 * `from` (a word with a `/`, such as `examples/client.mjs` or `./dist/cli.js`) made absolute. The
 * checker runs the client in a scratch directory, where `node examples/client.mjs`, typed in the
 * user's project, would name nothing. Words without a `/` (prompts, flags, `node`) are left as
 * they are, and so is anything containing `{agent}`.
 */
export function absoluteFileWords(words: readonly string[], from: string): string[] {
  return words.map((w) => {
    if (isAbsolute(w) || !w.includes('/') || w.startsWith('-') || w.includes('{agent}')) return w;
    const full = resolve(from, w);
    return existsSync(full) ? full : w;
  });
}
