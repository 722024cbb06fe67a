// single modules, not proxy/index.js: the barrel would load the `diff` package (capture diffs) too
import { resultLine } from '../render/ndjson-events.js';
import { frameSide, openCapture, type CaptureSide, CaptureValidator, type Violation } from '@acp-kit/tools/captures';
import { usageError } from '../errors.js';
import { captureReadFailure, requireFrames } from './captures.js';

/**
 * `acp-kit validate CAPTURE [--json] [--side editor|agent]`: exit 0 clean, 1 violations, 2 usage.
 * A bridge capture holds two legs in two versions: each is checked by its own validator (its own
 * negotiated version, its own request ids), unless `--side` picks one.
 */
export async function validateCommand(path: string, flags: { json?: boolean; side?: string }): Promise<number> {
  const only: CaptureSide | undefined = flags.side === 'editor' || flags.side === 'agent' ? flags.side : undefined;
  const r = openCapture(path);
  // one validator per leg, and per hop for traces of a proxy chain (each hop has its own ids)
  const validators = new Map<string, CaptureValidator>();
  const violations: Violation[] = [];
  let frames = 0;
  let all = 0;
  try {
    for await (const f of r) {
      all++;
      const side = frameSide(f);
      if (only !== undefined && side !== only) continue;
      frames++;
      const key = f.hop === undefined ? side : `hop ${f.hop}`;
      let validator = validators.get(key);
      if (!validator)
        validators.set(
          key,
          (validator = new CaptureValidator({ tracedOrder: r.header()?.source === 'rust-conductor' })),
        );
      for (const v of validator.push(f)) violations.push(labelled(v, side, f.hop));
    }
  } catch (e) {
    captureReadFailure(path, e);
  }
  requireFrames(path, all, r.skipped());
  if (frames === 0 && only !== undefined)
    throw usageError(
      `${path}: no frames on the ${only} leg (${all} frames on the other)`,
      'Only bridge captures (acp-kit proxy --bridge) have an agent leg; leave out --side to check the capture.',
    );
  for (const [key, validator] of validators)
    for (const v of validator.finish())
      violations.push(
        labelled(v, key === 'agent' ? 'agent' : 'editor', key.startsWith('hop ') ? key.slice(4) : undefined),
      );
  // a chain's version is the one its first hop (the client's) negotiated
  const version = (side: CaptureSide): number | null =>
    (validators.get(side) ?? (side === 'editor' ? validators.values().next().value : undefined))?.protocolVersion ??
    null;
  const bridged = validators.has('agent');
  if (flags.json) {
    for (const v of violations) process.stdout.write(`${JSON.stringify({ type: 'violation', ...v })}\n`);
    process.stdout.write(
      resultLine(violations.length === 0 ? 0 : 1, {
        frames,
        protocolVersion: version(only ?? 'editor'),
        ...(bridged && only === undefined ? { agentProtocolVersion: version('agent') } : {}),
        violations: violations.length,
      }),
    );
  } else {
    for (const v of violations)
      process.stdout.write(
        `${v.side ? `[${v.side} leg] ` : ''}${v.hop ? `[hop ${v.hop}] ` : ''}${v.requirement}  [${v.rule}]  seq ${v.seqs.join(', ')}: ${v.message}\n`,
      );
    const versions =
      bridged && only === undefined
        ? `editor leg v${version('editor') ?? '?'}, agent leg v${version('agent') ?? '?'}`
        : `protocol v${version(only ?? 'editor') ?? '?'}`;
    process.stdout.write(
      `${frames} frames, ${versions}: ${violations.length === 0 ? 'no violations' : `${violations.length} violation${violations.length === 1 ? '' : 's'}`}\n`,
    );
  }
  return violations.length === 0 ? 0 : 1;
}

/** A violation with the leg (bridge captures) or hop (proxy-chain traces) it was found on. */
function labelled(v: Violation, side: CaptureSide, hop: string | undefined): Violation {
  if (hop !== undefined) return { ...v, hop };
  return side === 'agent' ? { ...v, side } : v;
}
