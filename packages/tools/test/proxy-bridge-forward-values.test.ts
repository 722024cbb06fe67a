// `--bridge auto` with an agent of the editor's version forwards every message unchanged, also JSON values
// that are no object (the bridge narrows what it reads and sends such values through toJSON). Real process,
// real pipes: a tiny agent answers initialize in the version asked and echoes every other line back.
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { startBridge, type BridgeHandle } from '../src/proxy/index.js';

const ECHO_AGENT = `
const rl = require('node:readline').createInterface({ input: process.stdin });
rl.on('line', (line) => {
  let m;
  try { m = JSON.parse(line); } catch { m = undefined; }
  if (m && m.method === 'initialize') {
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, agentCapabilities: {}, authMethods: [] } }) + '\\n');
  } else process.stdout.write(line + '\\n');
});
rl.on('close', () => process.exit(0));
`;

const bridges: Array<{ bridge: BridgeHandle; toBridge: PassThrough }> = [];
afterEach(async () => {
  for (const b of bridges.splice(0)) {
    b.toBridge.end();
    await b.bridge.stop();
  }
});

describe('bridge in forward mode', () => {
  it('passes JSON values that are no object (5, null, "text", true) through unchanged, in order, both ways', async () => {
    const toBridge = new PassThrough();
    const fromBridge = new PassThrough();
    const bridge = startBridge({
      mode: 'auto',
      command: process.execPath,
      args: ['-e', ECHO_AGENT],
      editorIn: toBridge,
      editorOut: fromBridge,
      agentStderr: new PassThrough().resume(),
    });
    bridges.push({ bridge, toBridge });
    const lines: string[] = [];
    const waiters: Array<{ until: (l: string) => boolean; resolve(): void }> = [];
    createInterface({ input: fromBridge }).on('line', (l) => {
      lines.push(l);
      for (const w of waiters.splice(0))
        if (w.until(l)) w.resolve();
        else waiters.push(w);
    });
    const arrived = (until: (l: string) => boolean): Promise<void> =>
      new Promise((resolve) => (lines.some(until) ? resolve() : waiters.push({ until, resolve })));

    toBridge.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } })}\n`,
    );
    await expect(bridge.route).resolves.toEqual({ kind: 'forward', version: 1 });
    toBridge.write('5\nnull\n"text"\ntrue\n');
    // the echo of a request written after them proves everything before it went through
    const probe = JSON.stringify({ jsonrpc: '2.0', id: 2, method: '_x/probe' });
    toBridge.write(`${probe}\n`);
    await arrived((l) => l === probe);
    expect(lines.slice(1)).toEqual(['5', 'null', '"text"', 'true', probe]);
  });
});
