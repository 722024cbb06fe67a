// The inspector page (packages/tools/src/inspector/ui, a browser bundle) type-checks under its own DOM-only
// tsconfig against the server's own API shapes: src/inspector/api-types.ts, src/captures/frame.ts,
// src/captures/violation.ts, src/captures/diff.ts and src/inspector/stats.ts hold no runtime imports of
// Node, so the page imports them instead of keeping copies that drift from what the server sends.
// In process: one TypeScript program, as `tsc -p src/inspector/ui/tsconfig.json` builds it.
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const uiDir = join(root, 'packages/tools/src/inspector/ui');

function pageProgram(): ts.Program {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(uiDir, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!parsed) throw new Error('packages/tools/src/inspector/ui/tsconfig.json could not be read');
  return ts.createProgram(parsed.fileNames, parsed.options);
}

describe('the inspector page shares the server API types', () => {
  const program = pageProgram();
  const own = program
    .getSourceFiles()
    .filter((f) => !f.fileName.includes('/node_modules/'))
    .map((f) => relative(root, f.fileName));

  it('type-checks with the server modules in its program and Node types out of it', () => {
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => {
      const where = d.file
        ? `${relative(root, d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}`
        : '';
      return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
    expect(diagnostics).toEqual([]);
    expect(own).toEqual(
      expect.arrayContaining([
        'packages/tools/src/inspector/api-types.ts',
        'packages/tools/src/captures/diff.ts',
        'packages/tools/src/inspector/stats.ts',
        'packages/tools/src/inspector/ui/app.tsx',
      ]),
    );
    // a server module that starts importing Node would only type-check here with Node's types
    expect(program.getSourceFiles().filter((f) => f.fileName.includes('/@types/node/'))).toEqual([]);
  });

  it("the page's API module declares no shape of its own: every type it names is re-exported", () => {
    const api = program.getSourceFile(join(uiDir, 'api.ts'));
    expect(api).toBeDefined();
    const declared = api!.statements
      .filter((s) => ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s) || ts.isVariableStatement(s))
      .map((s) => s.getText(api).split('\n')[0]);
    expect(declared).toEqual([]);
    const reexported = api!.statements
      .filter(ts.isExportDeclaration)
      .map((s) => (s.moduleSpecifier as ts.StringLiteral).text);
    expect(reexported).toEqual(['../api-types.js', '../api-types.js', '../../captures/diff.js', '../stats.js']);
  });
});
