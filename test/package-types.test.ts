// Issue 23 item 8: the declarations compile for the people who install the package. `npm pack`, then
// `npm install` of the tarball into an empty app (its dependencies from the npm cache, none of our
// devDependencies: no @types/pg, no @types/ws), plus @types/node as an app has it and
// @types/json-schema (the `ai` package's own declarations need it: @ai-sdk/provider imports
// 'json-schema' types it lists only as a devDependency, the same mistake upstream; every app that
// uses `ai` with skipLibCheck off installs it); every ts snippet
// of README.md and docs/ (the same extraction as test/docs-typecheck.test.ts) and an import of every
// entry in package.json `exports` are compiled there by tsc with `strict` and `skipLibCheck: false`,
// so every declaration file they reach is checked as the app's tsc sees it.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docSnippets } from './support/dts-program.js';
import { sharedPack, tarballsFor } from './support/pack.js';
import { runCommand } from './support/run-command.js';
import { tempDir } from './support/temp.js';

const ROOT = resolve('.');
const TSC = join(ROOT, 'node_modules', 'typescript', 'lib', 'tsc.js');
/** The version this checkout has of an @types package (what the npm cache holds). */
const typesVersion = (name: string): string =>
  (JSON.parse(readFileSync(join(ROOT, 'node_modules', '@types', name, 'package.json'), 'utf8')) as { version: string })
    .version;
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, unknown>;
  devDependencies: Record<string, string>;
};

describe('installed from the packed tarball, the declarations compile without skipLibCheck', () => {
  it('every docs snippet and every exports entry type-checks in an app without our devDependencies', async () => {
    const dir = tempDir('acp-kit-types-');
    const app = join(dir, 'app');
    mkdirSync(app);
    // acp-kit and the @acp-kit/* packages it depends on, each from its own tarball
    const packed = await sharedPack(dir);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'my-app', private: true, type: 'module' }));
    // what a new user types; the npm cache answers (no network when it has everything)
    const install = await runCommand(
      'npm',
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        ...tarballsFor(packed, 'acp-kit'),
        `@types/node@${pkg.devDependencies['@types/node']}`,
        `@types/json-schema@${typesVersion('json-schema')}`,
      ],
      {
        cwd: app,
        timeoutMs: 280_000,
      },
    );
    expect(install.status, `${install.stdout}\n${install.stderr}`).toBe(0);
    expect(existsSync(join(app, 'node_modules', 'acp-kit', 'dist', 'index.d.ts'))).toBe(true);
    // the point of the test: our devDependencies' types are not there
    for (const t of ['pg', 'ws']) expect(existsSync(join(app, 'node_modules', '@types', t)), `@types/${t}`).toBe(false);

    const files: string[] = [];
    for (const s of docSnippets()) {
      writeFileSync(join(app, s.file), s.code);
      files.push(s.file);
    }
    const entries = Object.keys(pkg.exports).filter((e) => e !== './package.json');
    writeFileSync(
      join(app, 'entries.ts'),
      entries
        .map(
          (e, i) =>
            `import type * as e${i} from '${e === '.' ? 'acp-kit' : `acp-kit/${e.slice(2)}`}';\nexport type T${i} = typeof e${i};\n`,
        )
        .join(''),
    );
    files.push('entries.ts');
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          types: ['node'],
          skipLibCheck: false,
          // TypeScript's own lib.*.d.ts (51k lines, DOM included) are the same in every app whatever it
          // installs, and a clash of ours with them is reported in our file too: not checking them
          // saves ~1.3 of the ~12 CPU-s of this tsc; every installed declaration is still checked
          skipDefaultLibCheck: true,
          noEmit: true,
        },
        files,
      }),
    );
    const tsc = await runCommand(process.execPath, [TSC, '-p', 'tsconfig.json', '--pretty', 'false'], {
      cwd: app,
      timeoutMs: 240_000,
    });
    const errors = `${tsc.stdout}${tsc.stderr}`.trim().split('\n').filter(Boolean);
    expect(errors).toEqual([]);
    expect(tsc.status).toBe(0);
  }, 600_000);
});
