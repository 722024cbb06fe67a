// Peer inbox drain: N notifications queued behind an async handler, then released. A linear drain
// (head index + periodic compaction) stays flat in ns/message as N grows; Array#shift would not.
import { JsonRpcPeer } from '@acp-kit/protocol/rpc';

async function drain(n) {
  let h;
  const transport = {
    start: (handlers) => void (h = handlers),
    send: () => undefined,
    whenWritable: async () => undefined,
    flush: async () => undefined,
    close: () => undefined,
  };
  const peer = new JsonRpcPeer(transport);
  let release;
  const gate = new Promise((r) => (release = r));
  let seen = 0;
  let done;
  const all = new Promise((r) => (done = r));
  peer.onNotification('tick', async () => {
    await gate;
    if (++seen === n) done();
  });
  for (let i = 0; i < n; i++) h.onMessage({ jsonrpc: '2.0', method: 'tick', params: { i } });
  const t0 = performance.now();
  release();
  await all;
  return performance.now() - t0;
}

/** Rows: messages, drain ms, ns per message. */
export async function runPeerBacklogBench(sizes = [50_000, 200_000, 800_000]) {
  const rows = [];
  for (const n of sizes) {
    const ms = await drain(n);
    rows.push({ messages: n, ms, nsPerMessage: (ms * 1e6) / n });
  }
  return rows;
}

export function formatPeerBacklogRows(rows) {
  const fmt = (n, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  return [
    '| queued notifications | drain ms | ns/message |',
    '|---:|---:|---:|',
    ...rows.map((r) => `| ${fmt(r.messages)} | ${fmt(r.ms, 1)} | ${fmt(r.nsPerMessage)} |`),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(formatPeerBacklogRows(await runPeerBacklogBench()));
