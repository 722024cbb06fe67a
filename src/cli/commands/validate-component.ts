import { CaptureValidator, decodeFrame, defineComponent, runComponent, type CaptureFrame } from '@acp-kit/tools/proxy';

/**
 * `acp-kit validate` without a capture: a proxy component (acp-kit conduct) that checks the
 * conversation with its predecessor live (schema + protocol rules) and logs each violation to
 * stderr; traffic is never altered. Exit 1 when it saw a violation.
 */
export async function validateComponentCommand(): Promise<number> {
  const validator = new CaptureValidator();
  const t0 = performance.now();
  let seq = 0;
  let violations = 0;
  const c = runComponent(defineComponent({}), {
    observe: (dir, m) => {
      const raw = JSON.stringify(m);
      const d = decodeFrame(raw);
      const f: CaptureFrame = { seq: ++seq, t: performance.now() - t0, dir, raw, kind: d.kind };
      if (d.method !== undefined) f.method = d.method;
      if (d.id !== undefined) f.id = d.id;
      for (const v of validator.push(f)) {
        violations++;
        process.stderr.write(
          `acp-kit validate: violation ${v.requirement} [${v.rule}] seq ${v.seqs.join(',')}: ${v.message}\n`,
        );
      }
    },
  });
  await c.closed;
  return violations > 0 ? 1 : 0;
}
