/**
 * No worker is isolated (vitest.config.ts): the unit files (`SHARED_WORKER_FILES` in
 * test/support/shared-worker-files.ts) run one after the other in one thread, every other file in one of
 * three reused forks, modules kept. A file that changes process-wide state would leak it into the files
 * after it, and a shared module that registers a hook at import time would run it for the first file
 * only. This keeps every test file honest as files change.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SHARED_WORKER_FILES } from './support/shared-worker-files.js';

const ROOT = resolve(import.meta.dirname, '..');

/** What makes a test file unfit for the shared worker, one message per finding. */
export function sharedWorkerProblems(source: string): string[] {
  // code inside string literals (child scripts given to `node -e`) runs elsewhere: ignore quoted text
  const code = source.replace(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g, "''");
  const rules: Array<[RegExp, string]> = [
    [/\bvi\.(mock|doMock|stubGlobal|stubEnv)\(/, 'mocks modules, globals or the environment'],
    [/^(?![^]*\bvi\.restoreAllMocks\(\))[^]*\bvi\.spyOn\(/, 'spies without vi.restoreAllMocks()'],
    [/^(?![^]*\bvi\.useRealTimers\(\))[^]*\bvi\.useFakeTimers\(/, 'fake timers without vi.useRealTimers()'],
    [
      /\bprocess\.env(\.\w+|\[[^\]]+\])\s*=(?!=)|\bdelete\s+process\.env\b|Object\.assign\(process\.env\b/,
      'changes process.env',
    ],
    [/\bprocess\.(chdir|umask|setuid|setgid)\(/, 'changes the process cwd or identity'],
    [/\bprocess\.(on|once|addListener|prependListener)\(/, 'adds a process event handler'],
    [/\bprocess\.exit(Code)?\b/, 'ends the process or sets its exit code'],
  ];
  return rules.filter(([re]) => re.test(code)).map(([, what]) => what);
}

/** Top-level `afterAll(`/`beforeEach(`... calls: hooks registered when the module is first imported. */
export function importTimeHooks(source: string): string[] {
  return [...source.matchAll(/^(afterAll|afterEach|beforeAll|beforeEach)\(/gm)].map((m) => m[1]);
}

// root test/ and every package's test/ (the two projects of vitest.config.ts include both)
const TEST_DIRS = [
  'test',
  ...readdirSync(join(ROOT, 'packages'))
    .map((p) => `packages/${p}/test`)
    .filter((d) => existsSync(join(ROOT, d))),
];
const TEST_FILES = TEST_DIRS.flatMap((d) => readdirSync(join(ROOT, d)).map((f) => `${d}/${f}`));
const matches = (glob: string, file: string) =>
  new RegExp(`^${glob.replace(/\./g, '\\.').replace(/\*/g, '[^/]*')}$`).test(file);

describe("the shared worker's files", () => {
  it('the checks find what they look for (and not code inside child-process scripts)', () => {
    expect(sharedWorkerProblems('process.env.ACP_KIT_DATA_DIR = dir;')).toEqual(['changes process.env']);
    expect(sharedWorkerProblems('delete process.env.FORCE_COLOR;')).toEqual(['changes process.env']);
    expect(sharedWorkerProblems('vi.useFakeTimers();')).toEqual(['fake timers without vi.useRealTimers()']);
    expect(sharedWorkerProblems('vi.useFakeTimers();\nafterEach(() => vi.useRealTimers());')).toEqual([]);
    expect(sharedWorkerProblems("vi.spyOn(globalThis, 'setTimeout');")).toEqual(['spies without vi.restoreAllMocks()']);
    expect(sharedWorkerProblems("vi.mock('../src/x.js');")).toEqual(['mocks modules, globals or the environment']);
    expect(sharedWorkerProblems("process.on('SIGTERM', stop);")).toEqual(['adds a process event handler']);
    expect(sharedWorkerProblems('process.chdir(dir);')).toEqual(['changes the process cwd or identity']);
    expect(sharedWorkerProblems("if (process.env.CI === '1') skip();")).toEqual([]);
    expect(sharedWorkerProblems(`spawn(node, ['-e', 'process.on("SIGTERM", () => {})']);`)).toEqual([]);
    expect(sharedWorkerProblems('const script = `process.on("exit", f); process.exit(3)`;')).toEqual([]);
    expect(importTimeHooks('import x;\nafterAll(() => cleanup());\nfunction f() {\n  afterEach(close);\n}\n')).toEqual([
      'afterAll',
    ]);
  });

  it('every listed pattern matches a file, and no test file changes process-wide state', () => {
    expect(
      SHARED_WORKER_FILES.filter((g) => !TEST_FILES.some((f) => matches(g, f))),
      'patterns matching no file',
    ).toEqual([]);
    const files = TEST_FILES.filter((f) => f.endsWith('.test.ts'));
    const problems = files.flatMap((f) =>
      sharedWorkerProblems(readFileSync(join(ROOT, f), 'utf8')).map((p) => `${f}: ${p}`),
    );
    expect(problems).toEqual([]);
  });

  it('no shared test module registers a hook at import time (it would run for the first file only)', () => {
    const modules = ['test/support', 'test/fixtures']
      .flatMap((dir) =>
        readdirSync(join(ROOT, dir))
          .filter((f) => f.endsWith('.ts'))
          .map((f) => `${dir}/${f}`),
      )
      .concat(TEST_FILES.filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts')))
      // the per-file setup file is run again for every test file: registering there is its job
      .filter((f) => f !== 'test/support/per-file.ts');
    const found = modules.flatMap((f) => importTimeHooks(readFileSync(join(ROOT, f), 'utf8')).map((h) => `${f}: ${h}`));
    expect(found).toEqual([]);
  });
});
