// The order test files start in. Vitest's own order runs the longest files first, but only from
// the results of an earlier run in node_modules/.vite (which a fresh clone, CI, has not): then it
// keeps discovery order, and the files of minutes (real agents, npm installs) start late and run
// on alone at the end. Without an earlier result, the durations recorded in test-durations.json
// (`npm run test:durations` after a full run) stand in; a file not recorded there goes first (new).
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Seconds per test file (root-relative path), from a full run on the development machine. */
function recorded(): Map<string, number> {
  const path = new URL('./test-durations.json', import.meta.url);
  const json = JSON.parse(readFileSync(path, 'utf8')) as Record<string, number>;
  return new Map(Object.entries(json));
}

export class DurationSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const key = (f: TestSpecification) => `${f.project.name}:${relative(root, f.moduleId)}`;
    // an earlier run on this machine knows better (and puts failed files first)
    if (files.every((f) => this.ctx.cache.getFileTestResults(key(f)))) return super.sort(files);
    const durations = recorded();
    const seconds = (f: TestSpecification) => durations.get(relative(root, f.moduleId)) ?? Infinity;
    return [...files].sort((a, b) => seconds(b) - seconds(a));
  }
}
