// startConductor as a library, over real component and agent processes: a cancel from the editor crosses a
// component (written with runComponent) and reaches the agent, whose answer comes back; a component that dies
// stops the whole chain (the agent too) and closes the editor's connection.
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { AcpError } from '@acp-kit/protocol';
import { JsonRpcPeer, StreamTransport } from '@acp-kit/protocol/rpc';
import { startConductor, type ConductorHandle } from '../src/conductor/index.js';
import { cancelHeldRequest } from '../../../test/support/chain-cancel.js';
import { alive, waitUntil } from '../../../test/support/process.js';

const NOTE = fileURLToPath(new URL('../../../examples/system-note-component.mjs', import.meta.url));
const HOLD = fileURLToPath(new URL('../../../test/fixtures/conduct-hold-agent.mjs', import.meta.url));
const node = (script: string) => ({ command: process.execPath, args: [script] });
const chains: ConductorHandle[] = [];
afterEach(async () => {
  await Promise.all(chains.splice(0).map((c) => c.stop()));
});

/** A chain of `components` copies of the system-note component before the hold agent, and the editor's peer on it. */
function chain(components: number): { handle: ConductorHandle; editor: JsonRpcPeer } {
  const toConductor = new PassThrough();
  const fromConductor = new PassThrough();
  const handle = startConductor({
    components: Array.from({ length: components }, () => node(NOTE)),
    agent: node(HOLD),
    client: new StreamTransport(toConductor, fromConductor),
    onStderr: () => undefined,
  });
  chains.push(handle);
  return { handle, editor: new JsonRpcPeer(new StreamTransport(fromConductor, toConductor)) };
}

it("a cancel from the editor goes through two components to the agent, and the agent's -32800 comes back unchanged", async () => {
  const { editor } = chain(2);
  const e = await cancelHeldRequest(editor);
  expect(e).toBeInstanceOf(AcpError);
  expect(e).toMatchObject({ code: -32800, data: { cancelledBy: 'agent' } });
});

it('a component that dies stops the chain as one unit: the agent is stopped and the editor connection closes', async () => {
  const { handle, editor } = chain(1);
  await editor.request('initialize', { protocolVersion: 2, clientCapabilities: {}, info: { name: 't', version: '1' } });
  const [component, agent] = handle.pids;
  expect(agent !== undefined && alive(agent)).toBe(true);
  process.kill(component ?? -1, 'SIGKILL');
  const r = await handle.done;
  expect(r.reason).toMatch(/^Proxy\(0\) ended: /);
  await waitUntil(() => !alive(agent ?? -1), 5000, 'the agent is gone');
  // the conductor closed its side: the editor reads the end of its input
  expect((await editor.closed).reason).toBe('input stream ended');
});
