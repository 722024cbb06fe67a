// How the conductor reaches each position of its chain: a child process over its stdio, or a
// component running inside the conductor's own process over an in-memory transport pair.
import {
  createMemoryTransportPair,
  spawnAgent,
  type MemoryTransportOptions,
  type SpawnAgentOptions,
  type Transport,
} from '@acp-kit/protocol/rpc';
import { runInProcess, type ComponentDefinition, type RunComponentOptions } from './component.js';

/** One program of the chain run as a child process: a proxy component or the agent. */
export interface ChainCommand {
  command: string;
  args?: readonly string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Never set: a command has no definition (see {@link InProcessComponent}). */
  component?: never;
}

/**
 * A proxy component run inside the conductor's process: the conductor links its position to
 * `runComponent(component, { transport })` over an in-memory transport pair instead of spawning a
 * program. Each hop then costs two peer dispatches of a message object: no pipe, no JSON. Not
 * isolated: a handler that blocks the event loop blocks the whole chain, and an error nothing
 * catches (a timer that throws) is the conductor's (see docs/conductor.md, "In-process components").
 */
export interface InProcessComponent {
  /** What {@link defineComponent} returned (e.g. a module's default export, see `loadComponentModule`). */
  component: ComponentDefinition;
  /** Names it in the conductor's log and in the error a throwing handler is answered with (default: none). */
  name?: string;
  /** As {@link RunComponentOptions.observe}: the component's conversation with its predecessor. */
  observe?: RunComponentOptions['observe'];
  /** Never set: an in-process component has no command (see {@link ChainCommand}). */
  command?: never;
}

/** A proxy component of a chain: a program to spawn, or a definition to run in process. */
export type ChainComponent = ChainCommand | InProcessComponent;

/** The conductor's connection to one position of its chain. */
export interface Link {
  readonly transport: Transport;
  /** The program's process id (-1 when it could not be started); undefined for an in-process component. */
  readonly pid: number | undefined;
  /**
   * True when the transport writes text (stdio): the pass-through lane hands it lines. An in-memory
   * link takes message objects instead.
   */
  readonly text: boolean;
  /** Stops the position: SIGTERM to the process group then SIGKILL; an in-process component's connection is closed. */
  stop(reason: string): Promise<void>;
  /**
   * For an in-process component: true when notification `method` going `dir` may be delivered past
   * it right now, because it would only pass it on at once and nothing is on its way through it
   * (see `InProcessRun.passesOn`); undefined for a program, which always gets what it is sent.
   */
  passesOn?(dir: 'toAgent' | 'toClient', method: string): boolean;
}

/** Spawns a program of the chain in its own process group (as `acp-kit proxy` does). */
export function spawnLink(p: ChainCommand, options: SpawnAgentOptions): Link {
  const proc = spawnAgent(p.command, [...(p.args ?? [])], { ...options, cwd: p.cwd, env: p.env });
  // -1 when the program could not be started (its close reports why), as `pids` has always said
  return { transport: proc.transport, pid: proc.process.pid ?? -1, text: true, stop: () => proc.kill() };
}

/**
 * Runs an in-process component on one side of a memory transport pair and returns the other side.
 * `label` names it in the error answered for a handler that throws and in `log` lines (notification
 * handlers that failed: nobody can be answered for those).
 */
export function inProcessLink(
  c: InProcessComponent,
  label: string,
  options: { log?: (line: string) => void; transport?: MemoryTransportOptions } = {},
): Link {
  const log = options.log;
  // both ends route: payloads stay the text a stdio hop read until a handler looks inside
  const [mine, theirs] = createMemoryTransportPair({ ...options.transport, rawPayload: true });
  const run = runInProcess(c.component, {
    transport: theirs,
    observe: c.observe,
    name: label,
    onProblem: (p) => log?.(`${label}: ${p.message}`),
  });
  return {
    transport: mine,
    pid: undefined,
    text: false,
    passesOn: (dir, method) => mine.inFlight === 0 && run.passesOn(dir, method),
    stop: (reason) => {
      mine.close({ reason });
      return Promise.resolve();
    },
  };
}

/** True for a component the conductor runs in its own process. */
export function isInProcess(c: ChainComponent): c is InProcessComponent {
  return c.component !== undefined;
}
