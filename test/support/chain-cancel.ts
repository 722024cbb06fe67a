// A request cancelled by the editor on its way through a proxy chain to the agent (the hold fixture,
// test/fixtures/conduct-hold-agent.mjs, keeps `_test/hold` open until it is cancelled): shared by the
// chain tests of program components and of in-process ones.
import { expect } from 'vitest';
import type { JsonRpcPeer } from '@acp-kit/protocol/rpc';

/** Initializes the chain (v1), holds a request, proves it crossed with a round trip, cancels it: what it was answered with. */
export async function cancelHeldRequest(editor: JsonRpcPeer): Promise<unknown> {
  await editor.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const abort = new AbortController();
  const held = editor.request('_test/hold', {}, { signal: abort.signal, onAbort: 'wait' });
  // the round trip of a request sent after it proves the hold request has crossed the chain
  await expect(editor.request('_test/unknown', {})).rejects.toMatchObject({ code: -32601 });
  abort.abort();
  return held.then(
    () => undefined,
    (x: unknown) => x,
  );
}
