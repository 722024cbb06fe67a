// The chat's Markdown rendering (src/cli/ui/markdown.ts): marked + marked-terminal output, and the
// incremental renderer for streamed messages (settled blocks are rendered once).
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { renderMarkdown, StreamingMarkdown } from '../src/cli/ui/markdown.js';
import { stripAnsi } from '../src/cli/style.js';

const SAMPLE = [
  'Some **bold** text with `inline code` and a [link](https://example.com/x).',
  '',
  '- first `item`',
  '- second **item**',
  '',
  '```js',
  'const a = 1;',
  '',
  'console.log(a);',
  '```',
  '',
  'Done.',
].join('\n');

describe('renderMarkdown', () => {
  it('renders bold, inline code, links, lists and fenced code without the Markdown syntax', () => {
    const out = stripAnsi(renderMarkdown(SAMPLE));
    expect(out).toContain('Some bold text with inline code and a link (https://example.com/x).');
    expect(out).toMatch(/^\s*\* first item$/m);
    expect(out).toMatch(/^\s*\* second item$/m);
    expect(out).toMatch(/^\s+const a = 1;$/m);
    expect(out).toMatch(/^\s+console\.log\(a\);$/m);
    expect(out).not.toMatch(/\*\*|`|```/);
    expect(out).not.toMatch(/\n$/);
  });
});

describe('renderMarkdown in colour (a separate process: chalk reads FORCE_COLOR when loaded)', () => {
  it('highlights fenced code by language and styles bold and inline code (needs `npm run build`)', () => {
    const src = ['**bold** and `code`', '', '```js', 'const a = 1;', '```'].join('\n');
    const script = `import('./dist/cli/ui/markdown.js').then((m) => process.stdout.write(m.renderMarkdown(${JSON.stringify(src)})))`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      env: { ...process.env, FORCE_COLOR: '3', NO_COLOR: '' },
    });
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('\u001b[1mbold\u001b[22m and \u001b[33mcode\u001b[39m');
    const code = lines.find((l) => l.includes('const'))!;
    // the keyword and the number get their own colours (highlighting), the rest stays plain
    expect(code).toMatch(/\u001b\[\d+mconst\u001b\[39m a = \u001b\[\d+m1\u001b\[39m;/);
  });
});

describe('StreamingMarkdown', () => {
  it('streamed word by word, it ends with the same text as one render and renders each settled block once', () => {
    const words = SAMPLE.match(/\S+\s*|\s+/g)!;
    const md = new StreamingMarkdown();
    let text = '';
    let blocks: readonly string[] = [];
    for (const w of words) {
      text += w;
      blocks = md.update(text);
    }
    expect(stripAnsi(blocks.join('\n\n'))).toBe(stripAnsi(renderMarkdown(SAMPLE)));
    // a blank line inside the fence does not cut the code block
    expect(blocks.some((b) => /const a = 1;\n\s*\n\s+console\.log/.test(stripAnsi(b)))).toBe(true);
    // one render per update for the tail, plus one per settled block (4 here): not one per block per update
    expect(md.renders).toBeLessThanOrEqual(words.length + 4);
  });

  it('parse work stays linear: a long stream settles its paragraphs and re-parses only the tail', () => {
    const md = new StreamingMarkdown();
    let text = '';
    const words = `${'word '.repeat(40).trim()}.\n\n`.match(/\S+\s*|\s+/g)!;
    for (let i = 0; i < 100; i++) {
      for (const w of words) md.update((text += w));
    }
    // re-rendering the whole message on each of the ~4000 updates would parse ~n²/2 characters
    // (about 40 million here); settled paragraphs are parsed once, the tail at most one paragraph
    expect(md.parsedChars).toBeLessThan(text.length * 30);
    expect(stripAnsi(md.update(text).join('\n\n'))).toBe(stripAnsi(renderMarkdown(text)));
  });

  it('starts over when the content is replaced rather than extended', () => {
    const md = new StreamingMarkdown();
    md.update('**old** text\n\nmore');
    const blocks = md.update('**new** text');
    expect(blocks.map(stripAnsi)).toEqual(['new text']);
  });
});
