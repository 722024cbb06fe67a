import { writeFileSync } from 'node:fs';
import { formatMatrix, loadRegistry, matrixFormatOf, runMatrix, type Registry } from '@acp-kit/tools/registry';
import { CliError, usageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { registryCliError } from '../registry-agent.js';

/** Flags of `acp-kit check matrix`. */
export interface CheckMatrixFlags {
  out?: string[];
  registry?: string;
  timeout?: number;
  concurrency?: number;
  prompt?: string;
  cancelPrompt?: string;
  shortPrompt?: string;
  only?: string[];
  skip?: string[];
}

/** `--only a,b --only c` -> `['a', 'b', 'c']` (as check agent takes them). */
const splitIds = (values: readonly string[]): string[] =>
  values
    .flatMap((v) => v.split(','))
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * `acp-kit check matrix [ids...] [--out matrix.md|.json|.html ...]`: installs each registry agent,
 * probes it like the registry's daily matrix, checks it on the versions it speaks, writes the
 * table (Markdown on stdout without --out). Exit 0 when every agent was judged (whatever the
 * verdicts: the matrix is the product), 9 when none could be installed or started.
 */
export async function checkMatrixCommand(ids: string[], flags: CheckMatrixFlags): Promise<number> {
  const outs = (flags.out ?? []).map((file) => {
    const format = matrixFormatOf(file);
    if (!format) throw usageError(`--out ${JSON.stringify(file)}: the extension must be .md, .json or .html`);
    return { file, format };
  });
  let registry: Registry;
  try {
    registry = await loadRegistry({ registry: flags.registry });
  } catch (e) {
    throw new CliError('registry_unavailable', ExitCode.Usage, e instanceof Error ? e.message : String(e), {
      cause: e,
    });
  }
  const log = (line: string) => void process.stderr.write(`acp-kit check matrix: ${line}\n`);
  for (const w of registry.warnings) log(w);
  let report;
  try {
    report = await runMatrix({
      registry,
      ids,
      log,
      ...(flags.timeout !== undefined ? { timeoutMs: flags.timeout } : {}),
      ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
      ...(flags.prompt !== undefined ? { prompt: flags.prompt } : {}),
      ...(flags.cancelPrompt !== undefined ? { cancelPrompt: flags.cancelPrompt } : {}),
      ...(flags.shortPrompt !== undefined ? { shortPrompt: flags.shortPrompt } : {}),
      ...(flags.only !== undefined ? { only: splitIds(flags.only) } : {}),
      ...(flags.skip !== undefined ? { skip: splitIds(flags.skip) } : {}),
    });
  } catch (e) {
    throw registryCliError(e);
  }
  if (outs.length === 0) process.stdout.write(formatMatrix(report, 'md'));
  for (const o of outs) {
    writeFileSync(o.file, formatMatrix(report, o.format));
    log(`wrote ${o.file}`);
  }
  const judged = report.rows.filter((r) => !['install failed', 'not started', 'unavailable'].includes(r.verdict));
  return judged.length > 0 || report.rows.length === 0 ? 0 : ExitCode.AgentFailed;
}
