import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
// the agent entry itself, not its modules: the checker entry then reaches exactly the agent entry's
// module graph, so esbuild's code splitting cuts the agent's chunks as before (a minimal agent
// loads no extra file; test/startup-modules.test.ts)
import {
  InMemorySessionStore,
  serveAgentOnStreams,
  type AgentDefinition,
  type AgentLogger,
  type SessionStore,
} from '@acp-kit/agent';
import { packageVersion } from '@acp-kit/protocol/internal';
import { DEFAULT_CHECK_PROMPT, type CheckSettings } from './case.js';
import type { InProcessAgent } from './launch.js';
import { runChecks, type CheckRun } from './runner.js';

/** An agent command the checker starts (what `acp-kit check agent -- <command>` runs; see {@link CheckAgentOptions.processPerCase}). */
export interface AgentCommand {
  command: string;
  args?: readonly string[];
  /** Extra environment for the agent. */
  env?: Readonly<Record<string, string>>;
  /** Working directory of the agent process (default: this process's). */
  processCwd?: string;
}

/**
 * What {@link checkAgent} checks: an agent definition (served in this process, see
 * {@link agentInProcess}), an {@link InProcessAgent} of your own, or an {@link AgentCommand}.
 */
export type AgentUnderCheck = AgentDefinition | InProcessAgent | AgentCommand;

/** Options of {@link checkAgent}; each defaults as in `acp-kit check agent`. */
export interface CheckAgentOptions {
  /** The versions to check (default both). */
  protocols?: readonly (1 | 2)[];
  /** Only these requirement IDs (exact, or a prefix ending in `*`) and the cases that judge them. */
  only?: readonly string[];
  skip?: readonly string[];
  /** Cases at once (default 4). */
  concurrency?: number;
  /** Working directory of the sessions the checker opens (default: a scratch directory, removed afterwards). */
  cwd?: string;
  /** How long any single answer may take, in milliseconds (default 10 000). */
  timeoutMs?: number;
  /** The prompt of the general turn cases and (unless `cancelPrompt`) of the cancel case (default {@link DEFAULT_CHECK_PROMPT}). */
  prompt?: string;
  /** The prompt of the cancel case: one that keeps the agent busy until the cancel (default `prompt`). */
  cancelPrompt?: string;
  /** The prompt of the cases that only need a turn that ends, load and resume (default {@link SHORT_CHECK_PROMPT}). */
  shortPrompt?: string;
  /** An auth method id to log in with after initialize. */
  auth?: string;
  /** Advertise form elicitation and decline every question (default: advertise none). */
  elicitation?: boolean;
  /**
   * A fresh agent process (or in-process instance) for every case (`--process-per-case`). Default:
   * the cases that may share one run one after another in one per concurrency lane and protocol
   * version, initialized once; a case that fails (or errs, or leaves work open) retires its process
   * and the next case gets a fresh one. The cases about the process itself always get their own.
   * Each case of the result says which it had (`process`).
   */
  processPerCase?: boolean;
}

/** Options of {@link agentInProcess}. */
export interface AgentInProcessOptions {
  /**
   * The session store every instance shares, as processes share a folder on disk (default: one
   * in-memory store for all instances of this agent, so load/resume cases find the sessions an
   * earlier instance created).
   */
  store?: SessionStore;
}

/** A logger writing to the instance's stderr stream, which the checker quotes when a case fails. */
function streamLogger(out: Writable): AgentLogger {
  const line = (level: string) => (message: string) => void out.write(`${level}: ${message}\n`);
  return { debug: () => undefined, info: line('info'), warn: line('warn'), error: line('error') };
}

/**
 * `definition` as an agent the checker runs in this process: each instance is the stdio runtime on
 * the checker's byte streams (`serveAgentOnStreams`: the end of its input ends the connection once
 * what was read is answered), so the same bytes are judged as from a process, without one.
 */
export function agentInProcess(definition: AgentDefinition, options: AgentInProcessOptions = {}): InProcessAgent {
  const store = options.store ?? new InMemorySessionStore();
  return (io) => {
    const connection = serveAgentOnStreams(definition, io.input, io.output, { store, logger: streamLogger(io.stderr) });
    return { closed: connection.closed.then(() => undefined), close: () => connection.close() };
  };
}

/**
 * Runs the conformance checker of `acp-kit check agent` against `agent` and resolves with the run:
 * `conformant`, and per requirement and protocol version its status and failures (render them with
 * `formatText`, `formatJson` or `formatJunit`). For an agent's own test suite:
 * `expect((await checkAgent(myAgent)).conformant).toBe(true)`.
 */
export async function checkAgent(agent: AgentUnderCheck, options: CheckAgentOptions = {}): Promise<CheckRun> {
  const cwd =
    options.cwd === undefined ? realpathSync(mkdtempSync(join(tmpdir(), 'acp-kit-check-'))) : resolve(options.cwd);
  const scratch = options.cwd === undefined ? cwd : undefined;
  try {
    const common = {
      cwd,
      timeoutMs: options.timeoutMs ?? 10_000,
      prompt: options.prompt ?? DEFAULT_CHECK_PROMPT,
      cancelPrompt: options.cancelPrompt,
      shortPrompt: options.shortPrompt,
      auth: options.auth,
      elicitation: options.elicitation === true,
      processPerCase: options.processPerCase === true,
      clientVersion: packageVersion(),
    };
    const settings: CheckSettings =
      typeof agent === 'function'
        ? { inProcess: agent, ...common }
        : 'command' in agent
          ? {
              command: agent.command,
              args: agent.args ?? [],
              env: agent.env ?? {},
              processCwd: agent.processCwd,
              ...common,
            }
          : { inProcess: agentInProcess(agent), ...common };
    return await runChecks(settings, {
      protocols: [...(options.protocols ?? [1, 2])],
      only: options.only,
      skip: options.skip,
      concurrency: options.concurrency ?? 4,
    });
  } finally {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}
