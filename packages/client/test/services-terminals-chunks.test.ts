/**
 * terminal/output read while a command streams many small writes of multi-byte text, the way
 * agents poll it (ACP-V1-TERM-03/05): after every chunk, the output is the newest bytes within
 * outputByteLimit, cut on a character boundary, `truncated` once anything was dropped. A real
 * child process; the reads happen in the output callback, so no timing is involved.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { TerminalManager } from '../src/services/index.js';

const managers: TerminalManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.releaseAll()));
});

describe('terminal output over many chunks', () => {
  it('every read is the tail of what was written, within the limit, on a UTF-8 boundary', async () => {
    const limit = 1001; // odd: cuts land inside 2-, 3- and 4-byte characters
    const checks: string[] = [];
    let seen = '';
    let reads = 0;
    let exited!: () => void;
    const done = new Promise<void>((r) => (exited = r));
    let id = '';
    const m = new TerminalManager({
      onOutput: (_id, text) => {
        seen += text; // decoded by the manager's stream decoder: whole characters only
        const res = m.output(id);
        reads++;
        const bytes = Buffer.byteLength(res.output, 'utf8');
        const overflow = Buffer.byteLength(seen, 'utf8') > limit;
        // what arrived so far ends with what terminal/output holds (it may hold back a split character)
        if (!seen.endsWith(res.output)) checks.push(`read ${reads}: not a tail of the output`);
        if (bytes > limit) checks.push(`read ${reads}: ${bytes} bytes over ${limit}`);
        if (overflow && bytes < limit - 3) checks.push(`read ${reads}: only ${bytes} bytes kept`);
        if (res.truncated !== overflow) checks.push(`read ${reads}: truncated ${res.truncated}, overflow ${overflow}`);
        if (res.output.includes('\uFFFD')) checks.push(`read ${reads}: U+FFFD`);
      },
      onExit: () => exited(),
    });
    managers.push(m);
    // 300 writes, each flushed before the next, of text mixing 1- to 4-byte characters
    const script =
      "let n=300;const w=()=>{if(n--<=0)return;process.stdout.write(n+':aé€😀'.repeat(7),()=>setTimeout(w,1));};w();";
    id = m.create({ command: process.execPath, args: ['-e', script], outputByteLimit: limit }).terminalId;
    await done;
    expect(reads).toBeGreaterThan(10); // enough separate reads for the check to mean something
    expect(checks).toEqual([]);
    const last = m.output(id);
    expect(last.truncated).toBe(true);
    expect(seen.endsWith(last.output)).toBe(true);
    expect(last.output.endsWith(`0${':aé€😀'.repeat(7)}`)).toBe(true);
  });
});
