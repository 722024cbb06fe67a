// Every ```ts / ```typescript block of README.md and docs/*.md is type-checked under `strict`
// against the built declarations (dist/*.d.ts), exactly as an app that installed the package would
// see them: the blocks are modules of a temp project whose node_modules/acp-kit links to this
// package, all checked by one TypeScript program (test/support/dts-program.ts, in process, shared
// with test/public-surface.test.ts). ```js blocks are runnable JavaScript: the ones of docs/api.md
// are executed by test/examples.test.ts. Needs `npm run build`.
import { afterAll, describe, expect, it } from 'vitest';
import { docSnippets, doneWithDtsProgram, dtsProgram, formatDiagnostics } from './support/dts-program.js';

afterAll(() => doneWithDtsProgram('docs-typecheck'));

describe('TypeScript snippets in README.md and docs/ compile under strict', () => {
  it('finds the snippets, among them the ones that show narrowing', () => {
    const snippets = docSnippets();
    const where = snippets.map((s) => s.where);
    expect(where.filter((w) => w.startsWith('README.md')).length).toBeGreaterThanOrEqual(2);
    const all = snippets.map((s) => s.code).join('\n');
    expect(all).toContain("u.sessionUpdate === 'agent_message_chunk') return `chunk of ${u.messageId}`");
    expect(all).toContain("b.type === 'text' ? b.text : ''");
    expect(all).toContain("answer.outcome === 'selected' && answer.optionId");
  });

  it('the type checker reports no error', () => {
    const p = dtsProgram();
    const files = p.program.getSourceFiles().filter((f) => p.snippetOf(f.fileName));
    // every snippet is a module of the program (none was dropped by resolution)
    expect(files.length).toBe(p.snippets.length);
    // what `tsc --noEmit` with skipLibCheck reports for the snippet project: options, syntax of every
    // file, global, and the semantic diagnostics of the snippets (the declarations' own are
    // test/public-surface.test.ts's)
    const diagnostics = [
      ...p.program.getOptionsDiagnostics(),
      ...p.program.getSyntacticDiagnostics(),
      ...p.program.getGlobalDiagnostics(),
      ...files.flatMap((f) => p.program.getSemanticDiagnostics(f)),
    ];
    // mapped back to the Markdown line: the fence line + the line in the block
    const report = formatDiagnostics(diagnostics, (f, line) => {
      const s = p.snippetOf(f.fileName);
      return s ? `${s.where.split(':')[0]}:${Number(s.where.split(':')[1]) + line} (${s.file}:${line})` : f.fileName;
    });
    expect(report, 'type errors in documentation snippets').toEqual([]);
  }, 120_000);
});
