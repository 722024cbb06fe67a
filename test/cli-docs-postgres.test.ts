// docs/postgres.md's sample of `acp-kit db migrate` (run twice on a fresh database) is what the
// command prints: the sample is compared with a real run (real PostgreSQL, real `acp-kit` process;
// needs `npm run build`).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { BIN, cliEnv } from './fixtures/cli-helpers.js';
import { describePostgres, usePostgres } from './support/postgres.js';

describePostgres('docs/postgres.md sample output', () => {
  const db = usePostgres();

  it('db migrate twice on a fresh database prints what the docs show', () => {
    const doc = readFileSync('docs/postgres.md', 'utf8');
    const sample = /```text\n(\$ acp-kit db migrate [\s\S]*?)```/.exec(doc)?.[1];
    expect(sample, 'the db migrate sample of docs/postgres.md').toBeDefined();
    const lines = sample!.trimEnd().split('\n');
    const migrate = () =>
      spawnSync(process.execPath, [BIN, 'db', 'migrate', '--url', db.url], { encoding: 'utf8', env: cliEnv() });
    const first = migrate();
    const second = migrate();
    expect([first.status, second.status]).toEqual([0, 0]);
    expect(lines.filter((l) => !l.startsWith('$ '))).toEqual([first.stdout.trim(), second.stdout.trim()]);
  }, 60_000);
});
