// `acp-kit run`'s text renderer: one agent message streamed as N chunks (~40 chars each) through
// the session state and run's text reporter to /dev/null. A flat ns/chunk column from 10k to 100k
// chunks means the renderer's cost per chunk does not grow with the message (goal >= 200k chunks/s).
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SessionState } from '@acp-kit/protocol';
import { TextRunReporter } from '../dist/cli/render/run-reporter.js';
import { createStyle } from '../dist/cli/style.js';
import { CHUNK_TEXT } from './common.mjs';

export const RENDERER_TARGET_CHUNKS_PER_SEC = 200_000;

/** Streams `chunks` chunks of one message through a fresh state + text reporter; returns the figures. */
function streamOneMessage(chunks, fd) {
  const state = new SessionState('bench');
  let bytes = 0;
  const write = (s) => {
    bytes += s.length;
    writeSync(fd, s);
  };
  const style = createStyle(false);
  const reporter = new TextRunReporter({ stdout: write, stderr: () => {}, style, errStyle: style });
  reporter.connected({
    protocolVersion: 2,
    agentInfo: null,
    agentCapabilities: {},
    authMethods: [],
    agent: ['bench'],
    agentDisplay: 'bench',
    cwd: '/',
  });
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < chunks; i++) {
    const u = { sessionUpdate: 'agent_message_chunk', messageId: 'm', content: { type: 'text', text: CHUNK_TEXT } };
    state.apply(u);
    reporter.update('bench', u, state);
  }
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  // the renderer printed every chunk exactly once
  if (bytes !== chunks * CHUNK_TEXT.length) throw new Error(`renderer wrote ${bytes} characters for ${chunks} chunks`);
  return { chunks, ms, nsPerChunk: (ms * 1e6) / chunks, chunksPerSec: chunks / (ms / 1000) };
}

export function runRendererBench(sizes = (process.env.BENCH_RENDERER_CHUNKS ?? '10000,100000').split(',').map(Number)) {
  const fd = openSync('/dev/null', 'w');
  try {
    streamOneMessage(50_000, fd); // warm-up (JIT), so that the 10k row is not mostly compilation
    return sizes.map((n) => streamOneMessage(n, fd));
  } finally {
    closeSync(fd);
  }
}

export function formatRendererRows(rows) {
  const fmt = (n, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  return [
    '| chunks | total ms | ns/chunk | chunks/s |',
    '|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${fmt(r.chunks)} | ${fmt(r.ms)} | ${fmt(r.nsPerChunk)} | ${fmt(r.chunksPerSec)} |`),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(
    `run renderer: one message of N chunks (~${CHUNK_TEXT.length} chars) to /dev/null; target >= ${RENDERER_TARGET_CHUNKS_PER_SEC.toLocaleString('en-US')} chunks/s, flat ns/chunk`,
  );
  console.log(formatRendererRows(runRendererBench()));
  console.log('run with a client terminal printing N MiB (real agent polling terminal/output); flat ms/MiB');
  console.log(formatTerminalOutputRows(runTerminalOutputBench()));
}

/**
 * `acp-kit run` with a command printing N MiB through the client's terminals (a real agent,
 * test/fixtures/terminal-flood-agent.mjs: terminal/create, terminal/output polled back to back,
 * wait_for_exit, release) to /dev/null. A flat s/MiB column means linear (issue 24 item 6c:
 * the per-chunk terminal snapshot made it 10 MiB 4 s, 40 MiB 31 s).
 */
export function runTerminalOutputBench(sizes = (process.env.BENCH_TERMINAL_MIB ?? '10,40').split(',').map(Number)) {
  const bin = fileURLToPath(new URL('../bin/acp-kit.js', import.meta.url));
  const agent = `${JSON.stringify(process.execPath)} ${JSON.stringify(fileURLToPath(new URL('../test/fixtures/terminal-flood-agent.mjs', import.meta.url)))}`;
  return sizes.map((mib) => {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, [bin, 'run', '--agent', agent, `flood ${mib}`], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
      maxBuffer: 1 << 30,
    });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const said = /polls=(\d+) final=(\d+) truncated=(\w+)/.exec(r.stdout?.toString() ?? '');
    if (r.status !== 0 || !said) throw new Error(`run with ${mib} MiB failed (exit ${r.status}): ${r.stderr}`);
    return { mib, ms, polls: Number(said[1]), msPerMiB: ms / mib };
  });
}

export function formatTerminalOutputRows(rows) {
  const fmt = (n, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  return [
    '| MiB | total ms | agent polls | ms/MiB |',
    '|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.mib} | ${fmt(r.ms)} | ${fmt(r.polls)} | ${fmt(r.msPerMiB)} |`),
  ].join('\n');
}
