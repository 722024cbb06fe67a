import { diffCaptures, decodeFrame } from './dist/bundle/proxy.js';
const N = 100000;
function mk(sid, extra) {
  const out = [];
  const push = (dir, m) => { const raw = JSON.stringify(m); const d = decodeFrame(raw); out.push({ seq: out.length + 1, t: out.length * 0.01, dir, raw, kind: d.kind, method: d.method, id: d.id }); };
  push('editor->agent', { jsonrpc: '2.0', id: 1, method: 'session/prompt', params: { sessionId: sid, prompt: [] } });
  for (let i = 0; i < N; i++) { push('agent->editor', { jsonrpc: '2.0', method: 'session/update', params: { sessionId: sid, update: { sessionUpdate: 'agent_message_chunk', messageId: 'm-' + sid, content: { type: 'text', text: 'The quick brown fox jumps over the lazy.' } } } }); if (extra && i === 50000) push('agent->editor', { jsonrpc: '2.0', method: 'session/update', params: { sessionId: sid, update: { sessionUpdate: 'plan_update', entries: [] } } }); }
  push('agent->editor', { jsonrpc: '2.0', id: 1, result: { stopReason: 'end_turn' } });
  return out;
}
const a = mk('a', false), b = mk('b', true);
let t = performance.now();
const d = diffCaptures(a, b);
console.log('diff 100k', Math.round(performance.now() - t), 'ms', d.summary, d.alignment);
