#!/usr/bin/env node
// Thin launcher: the CLI is bundled into dist/bundle/cli.js from dist/cli (built by `npm run build`, which `npm ci` runs via `prepare`).
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const entry = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'bundle', 'cli.js');
if (!existsSync(entry)) {
  process.stderr.write('acp-kit: the CLI is not built yet (dist/bundle/cli.js is missing). Run `npm run build` in the acp-kit folder.\n');
  process.exit(70);
}
await import(pathToFileURL(entry).href);
