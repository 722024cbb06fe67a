/**
 * In-process agents for the checker's own tests (src/checker/driver.ts `InProcessAgent`): the
 * checker fixture agent, the official-SDK fixture apps and acp-kit's coding agent, each served on
 * the checker's in-memory streams instead of a process's stdio. Each counts its live instances, so
 * a test can prove that the checker closed every one.
 */
import * as v1 from '@agentclientprotocol/sdk';
import * as v2 from '@agentclientprotocol/sdk/experimental/v2';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import type { InProcessAgent, InProcessAgentHandle } from '../../packages/tools/src/checker/launch.js';
import { createCodingAgent, createDemoModel } from '../../packages/coding-agent/src/index.js';
import { JsonlSessionStore } from '../../packages/agent/src/jsonl-session-store.js';
import type { AgentLogger } from '../../packages/agent/src/logger.js';
import { serveAgentOnStreams } from '../../packages/agent/src/stdio.js';
import { packageVersion } from '../../packages/protocol/src/package-version.js';
import { startFixtureAgent } from '../fixtures/checker/agent-core.mjs';
import { inProcessSdkAgent, v1App, v2App } from '../fixtures/client-sdk-apps.mjs';

/** An in-process agent that knows how many of its instances are still open. */
export interface CountedAgent {
  agent: InProcessAgent;
  /** Instances started and not yet closed. */
  live(): number;
  /** Instances started in all. */
  started(): number;
}

/** Wraps `agent` to count its open instances (an instance is open until its `closed` settles). */
export function counted(agent: InProcessAgent): CountedAgent {
  let live = 0;
  let started = 0;
  return {
    agent: (io) => {
      const h: InProcessAgentHandle = agent(io);
      live++;
      started++;
      const closed = h.closed.finally(() => {
        live--;
      });
      return { closed, close: () => h.close() };
    },
    live: () => live,
    started: () => started,
  };
}

/** test/fixtures/checker/agent.mjs in process: `env` as the process would see it (BREAK, FIXTURE_STORE). */
export function fixtureAgent(env: Readonly<Record<string, string>>): CountedAgent {
  return counted((io) => startFixtureAgent(io, env));
}

/** The official-SDK fixture agents of test/fixtures/client-sdk-agent-*.mjs, in process. */
export const sdkAgents = {
  v1: (): CountedAgent => counted(inProcessSdkAgent(v1, () => v1App())),
  v2: (): CountedAgent => counted(inProcessSdkAgent(v2, () => v2App())),
  router: (): CountedAgent =>
    counted(inProcessSdkAgent(v2, () => v2.agentProtocolRouter().withV1(v1App()).withV2(v2App()))),
};

function streamLogger(out: Writable): AgentLogger {
  const line = (level: string) => (message: string) => void out.write(`[acp-kit agent] ${level}: ${message}\n`);
  return { debug: () => undefined, info: line('info'), warn: line('warn'), error: line('error') };
}

/**
 * `acp-kit agent --model demo` in process: the pieces `runAgentCommand` composes (the coding agent,
 * a JSONL session store in `dataDir`/sessions as with ACP_KIT_DATA_DIR, the stdio runtime's
 * end-of-input handling). Each instance opens its own store on the same folder, as a process does.
 */
export function acpKitAgent(dataDir: string): CountedAgent {
  return counted((io) => {
    const logger = streamLogger(io.stderr);
    const store = new JsonlSessionStore({
      dir: join(dataDir, 'sessions'),
      onProblem: (p) => logger.warn(`${p.file}:${p.line}: ${p.message}`),
    });
    const definition = createCodingAgent({
      model: createDemoModel({}),
      info: { name: 'acp-kit-agent', version: packageVersion(), title: 'acp-kit coding agent' },
    });
    const connection = serveAgentOnStreams(definition, io.input, io.output, { store, logger });
    return { closed: connection.closed.then(() => store.close()), close: () => connection.close() };
  });
}
