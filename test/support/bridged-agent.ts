// The built-in agent spawned for real behind an in-process bridge, and acp-kit's client on the
// editor's version: the set-up of the tests that carry a method family across versions. Every
// message on both legs goes through the version's schema.unstable.json tap, and the bridge's own
// capture validator reports into `violations`.
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { connect, type ClientConnection } from '../../packages/client/src/index.js';
import type { PermissionPolicy } from '../../packages/client/src/services/permission-policy.js';
import { StreamTransport } from '../../packages/protocol/src/rpc/stream-transport.js';
import type { Violation } from '../../packages/tools/src/captures/index.js';
import { startBridge, type BridgeHandle } from '../../packages/tools/src/proxy/index.js';
import { createSchemaTap } from './schema-tap.js';
import { tempDir } from './temp.js';

const BIN = fileURLToPath(new URL('../../bin/acp-kit.js', import.meta.url));

/** What {@link startBridgedAgent} started; `stop()` ends the client, then the bridge and its agent. */
export interface BridgedAgent {
  conn: ClientConnection;
  bridge: BridgeHandle;
  agentVersion: 1 | 2;
  editorTap: ReturnType<typeof createSchemaTap>;
  agentTap: ReturnType<typeof createSchemaTap>;
  violations: Violation[];
  stop(): Promise<void>;
}

/** `acp-kit agent --model demo` on the other version than `editorVersion`, bridged to a client on it. */
export async function startBridgedAgent(
  editorVersion: 1 | 2,
  options: { name: string; permissionPolicy?: PermissionPolicy },
): Promise<BridgedAgent> {
  const agentVersion = editorVersion === 1 ? 2 : 1;
  const toBridge = new PassThrough();
  const fromBridge = new PassThrough();
  const editorTap = createSchemaTap(editorVersion, 'unstable');
  const agentTap = createSchemaTap(agentVersion, 'unstable');
  const violations: Violation[] = [];
  const bridge = startBridge({
    mode: editorVersion,
    command: process.execPath,
    args: [BIN, 'agent', '--model', 'demo'],
    env: { ...process.env, ACP_KIT_DATA_DIR: tempDir(`${options.name}-`), ACP_KIT_DEMO_DELAY_MS: '0' },
    editorIn: toBridge,
    editorOut: fromBridge,
    agentStderr: new PassThrough().resume(),
    onViolation: (v) => void violations.push(v),
    tap: { agent: agentTap.clientSide },
  });
  let conn: ClientConnection;
  try {
    conn = await connect({
      transport: new StreamTransport(fromBridge, toBridge),
      protocol: editorVersion,
      tap: editorTap.clientSide,
      ...(options.permissionPolicy ? { permissionPolicy: options.permissionPolicy } : {}),
    });
  } catch (e) {
    await bridge.stop();
    throw e;
  }
  const stop = async () => {
    await conn.close();
    await bridge.stop();
  };
  return { conn, bridge, agentVersion, editorTap, agentTap, violations, stop };
}
