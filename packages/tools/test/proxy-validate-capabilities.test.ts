/**
 * The capture validator's capability gating: a client calls a gated session method only when the
 * agent's initialize advertised it (ACP-ALL-CAP-01; ACP-ALL-DEL-01 for session/delete). On
 * captures recorded from real runs: `acp-kit sessions delete` against the built-in agent (which
 * advertises delete) through `acp-kit proxy --record`, v1 and v2, has no violation; the same
 * capture with the agent's delete marker removed from its initialize answer has exactly one.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CaptureValidator, openCapture, type Violation } from '../src/proxy/index.js';
import { BIN, cliEnv, runCli, tempDir } from '../../../test/fixtures/cli-helpers.js';

async function validate(path: string): Promise<Violation[]> {
  const v = new CaptureValidator();
  const out: Violation[] = [];
  for await (const f of openCapture(path)) out.push(...v.push(f));
  return [...out, ...v.finish()];
}

/** Records `acp-kit sessions delete` against the built-in agent through `acp-kit proxy --record`. */
async function recordDelete(protocol: '1' | '2'): Promise<string> {
  const cwd = tempDir('validate-caps');
  const cap = join(cwd, 'cap.ndjson');
  const agent = `${process.execPath} ${BIN} proxy --record ${cap} -- ${process.execPath} ${BIN} agent --model demo`;
  const env = cliEnv({ ACP_KIT_DATA_DIR: tempDir('validate-caps-data') });
  const r = await runCli(['sessions', 'delete', 'sess_gone', '--protocol', protocol, '--agent', agent], { cwd, env });
  expect(r.code, r.stderr).toBe(0);
  return cap;
}

/** The capture with the agent's delete marker taken out of its initialize answer. */
function withoutDeleteMarker(path: string, protocol: '1' | '2'): string {
  let removed = 0;
  const lines = readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const frame = JSON.parse(line) as { raw?: string };
      if (typeof frame.raw !== 'string') return line;
      const msg = JSON.parse(frame.raw) as { result?: Record<string, any> };
      const session =
        protocol === '1'
          ? msg.result?.agentCapabilities?.sessionCapabilities
          : (msg.result?.capabilities?.session as Record<string, unknown> | undefined);
      if (!session || !('delete' in session)) return line;
      delete session.delete;
      removed++;
      return JSON.stringify({ ...frame, raw: JSON.stringify(msg) });
    });
  expect(removed).toBe(1);
  const out = path.replace(/\.ndjson$/, '-no-delete.ndjson');
  writeFileSync(out, `${lines.join('\n')}\n`);
  return out;
}

describe.each(['1', '2'] as const)('capture validator, capability gating, v%s', (protocol) => {
  it('session/delete: none when advertised; ACP-ALL-DEL-01 once the marker is gone', async () => {
    const cap = await recordDelete(protocol);
    expect(readFileSync(cap, 'utf8')).toContain('session/delete');
    expect(await validate(cap)).toEqual([]);
    const broken = await validate(withoutDeleteMarker(cap, protocol));
    expect(broken.map((v) => [v.rule, v.requirement])).toEqual([['method-not-advertised', 'ACP-ALL-DEL-01']]);
    expect(broken[0]?.message).toContain(
      protocol === '1' ? 'agentCapabilities.sessionCapabilities.delete absent' : 'capabilities.session.delete absent',
    );
  }, 60_000);
});
