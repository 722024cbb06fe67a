import { CaptureValidator, openCapture, type Violation } from '../../proxy/index.js';
import { captureReadFailure } from './captures.js';

/** `acp-kit validate CAPTURE [--json]`: exit 0 clean, 1 violations, 2 usage. */
export async function validateCommand(path: string, flags: { json?: boolean }): Promise<number> {
  const r = openCapture(path);
  const validator = new CaptureValidator();
  const violations: Violation[] = [];
  let frames = 0;
  try {
    for await (const f of r) {
      frames++;
      violations.push(...validator.push(f));
    }
  } catch (e) {
    captureReadFailure(path, e);
  }
  violations.push(...validator.finish());
  if (flags.json) {
    for (const v of violations) process.stdout.write(`${JSON.stringify({ type: 'violation', ...v })}\n`);
    process.stdout.write(`${JSON.stringify({ type: 'result', frames, protocolVersion: validator.protocolVersion ?? null, violations: violations.length })}\n`);
  } else {
    for (const v of violations) process.stdout.write(`${v.requirement}  [${v.rule}]  seq ${v.seqs.join(', ')}: ${v.message}\n`);
    process.stdout.write(`${frames} frames, protocol v${validator.protocolVersion ?? '?'}: ${violations.length === 0 ? 'no violations' : `${violations.length} violation${violations.length === 1 ? '' : 's'}`}\n`);
  }
  return violations.length === 0 ? 0 : 1;
}
