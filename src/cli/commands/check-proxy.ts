import { checkProxy } from '@acp-kit/tools/proxy';
import { usageError } from '../errors.js';
import { resultLine } from '../render/ndjson-events.js';
import { commandOf } from '../split-command-line.js';

/** `acp-kit check proxy [--json] -- <component...>`: exit 0 when no MUST failed, 1 otherwise. */
export async function checkProxyCommand(words: string[], flags: { timeout?: number; json?: boolean }): Promise<number> {
  const component = commandOf(words);
  if (!component)
    throw usageError(
      'the component command is missing',
      'Put it after --, e.g. acp-kit check proxy -- node my-component.mjs',
    );
  const report = await checkProxy(component, { timeoutMs: flags.timeout });
  const code = report.conformant ? 0 : 1;
  if (flags.json) {
    // the report as one `report` line, then the result line every --json command ends with
    process.stdout.write(JSON.stringify({ type: 'report', ...report }) + '\n' + resultLine(code));
    return code;
  } else {
    process.stdout.write(`acp-kit check proxy: ${words.join(' ')}\n`);
    for (const r of report.results) {
      process.stdout.write(
        `  ${r.verdict === 'pass' ? 'pass' : r.level === 'MUST' ? 'FAIL' : 'warn'}  v${r.version} ${r.id} (${r.level}): ${r.detail}\n        ${r.source}\n`,
      );
    }
    const failed = report.results.filter((r) => r.level === 'MUST' && r.verdict === 'fail').length;
    process.stdout.write(`Verdict: ${report.conformant ? 'CONFORMANT' : 'NOT CONFORMANT'} (${failed} MUST failures)\n`);
  }
  return code;
}
