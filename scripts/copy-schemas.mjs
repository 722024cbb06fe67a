#!/usr/bin/env node
// Copies the official ACP JSON schemas from the SDK (a devDependency only) into `packages/protocol/schema/` at the
// package root, so the published package can validate at runtime without the SDK installed.
// Run by `npm run build` before tsc. `schema/` is gitignored and listed in package.json `files`.
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sdk = join(root, 'node_modules', '@agentclientprotocol', 'sdk');
const out = join(root, 'packages', 'protocol', 'schema');

if (!existsSync(join(sdk, 'schema'))) {
  // A consumer building from a tarball without devDependencies keeps whatever schema/ it shipped with.
  if (existsSync(join(out, 'v1', 'schema.json')) && existsSync(join(out, 'v2', 'schema.json'))) process.exit(0);
  console.error(`copy-schemas: ${sdk}/schema not found; run npm install first`);
  process.exit(1);
}

const sdkVersion = JSON.parse(readFileSync(join(sdk, 'package.json'), 'utf8')).version;
for (const v of ['v1', 'v2']) {
  mkdirSync(join(out, v), { recursive: true });
  for (const f of ['schema.json', 'schema.unstable.json']) {
    const src = join(sdk, 'schema', v, f);
    if (existsSync(src)) copyFileSync(src, join(out, v, f));
    else if (f === 'schema.json') {
      console.error(`copy-schemas: missing ${src}`);
      process.exit(1);
    }
  }
}
copyFileSync(join(sdk, 'LICENSE'), join(out, 'LICENSE'));
writeFileSync(
  join(out, 'NOTICE'),
  `The JSON schemas in this folder are copied unmodified from @agentclientprotocol/sdk@${sdkVersion}\n` +
    `(Agent Client Protocol, https://agentclientprotocol.com), distributed under the license in ./LICENSE.\n`,
);
