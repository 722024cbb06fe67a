// Issue 23 item 4: values the v1 schema allows and v2 does not (and the reverse) must not cross the
// bridge as schema-invalid messages. The places are derived from both official schemas
// (scripts/schema-diff.mjs), docs/bridge.md must say what the bridge does for each, and a real v1
// agent process sends the boundary values to a v2 editor whose every received message is validated
// against the official v2 schema (test/support/schema-tap.ts, Ajv over the SDK's schema as is).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type ClientConnection } from '../../client/src/index.js';
import { startBridge, type BridgeHandle } from '../src/proxy/index.js';
import { StreamTransport } from '../../protocol/src/rpc/index.js';
// @ts-expect-error -- a plain .mjs script without declarations
import { schemaGaps } from '../../../scripts/schema-diff.mjs';
import { createSchemaTap } from '../../../test/support/schema-tap.js';
import { tempDir } from '../../../test/support/temp.js';

interface Gap {
  path: string;
}

const bridges: BridgeHandle[] = [];
const conns: ClientConnection[] = [];
afterEach(async () => {
  for (const c of conns.splice(0)) await c.close();
  for (const b of bridges.splice(0)) await b.stop();
});

describe('bridge: where v1 and v2 constrain the same field differently', () => {
  it('docs/bridge.md says what the bridge does for every place the schemas differ', () => {
    const gaps = (schemaGaps() as Gap[]).map((g) => g.path);
    expect(gaps).toContain('ToolCallLocation.line');
    const doc = readFileSync(join(import.meta.dirname, '../../..', 'docs', 'bridge.md'), 'utf8');
    const missing = [...new Set(gaps)].filter((p) => !doc.includes(`\`${p}\``));
    expect(missing, 'rows missing from the schema-gap table in docs/bridge.md').toEqual([]);
  });

  it('a real v1 agent sending v1-only values (line 0, priority 2, size -1): the v2 editor gets only schema-valid messages', async () => {
    const toBridge = new PassThrough();
    const fromBridge = new PassThrough();
    const editorTap = createSchemaTap(2);
    const bridge = startBridge({
      mode: 2,
      command: process.execPath,
      args: [join(import.meta.dirname, '../../../test/fixtures', 'bridge-v1-edge-agent.mjs')],
      editorIn: toBridge,
      editorOut: fromBridge,
      agentStderr: new PassThrough().resume(),
      log: () => undefined,
    });
    bridges.push(bridge);
    const got: unknown[] = [];
    const tap = {
      sent: (m: object) => editorTap.clientSide.sent(m),
      received: (m: unknown) => (got.push(m), editorTap.clientSide.received(m)),
    };
    const conn = await connect({ transport: new StreamTransport(fromBridge, toBridge), protocol: 2, tap });
    conns.push(conn);
    const session = await conn.newSession({ cwd: tempDir('acp-bridge-gaps-') });
    expect((await session.prompt('go')).stopReason).toBe('end_turn');
    editorTap.assertAllValid();
    const text = JSON.stringify(got);
    // line 0 ("no specific line" in v2) is left out; other lines pass as they are
    expect(text).toContain('"path":"/tmp/b.txt","line":7');
    expect(text).not.toMatch(/"line":0/);
  });
});
