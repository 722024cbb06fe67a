// Every relative link of the Markdown docs (README.md, docs/, src/**/README.md) points at a file or
// folder that exists: a link is resolved from the folder of the file it is in, as GitHub does.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { expect, it } from 'vitest';

const ROOT = resolve('.');
function markdownFiles(): string[] {
  const readmes = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? readmes(join(dir, e.name)) : e.name === 'README.md' ? [join(dir, e.name)] : [],
    );
  return [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((n) => n.endsWith('.md'))
      .map((n) => join('docs', n)),
    ...readmes('src'),
  ];
}

it('relative links in the Markdown docs resolve to files that exist', () => {
  const broken: string[] = [];
  for (const file of markdownFiles()) {
    // code spans and fences are not links
    const text = readFileSync(join(ROOT, file), 'utf8')
      .replace(/```[\s\S]*?```/g, '')
      .replace(/`[^`\n]*`/g, '');
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!.split('#')[0]!;
      if (target === '' || /^[a-z]+:/i.test(target)) continue;
      if (!existsSync(join(dirname(join(ROOT, file)), decodeURIComponent(target)))) broken.push(`${file}: ${m[1]}`);
    }
  }
  expect(broken).toEqual([]);
});
