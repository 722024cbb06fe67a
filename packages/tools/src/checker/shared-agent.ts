import { at } from '@acp-kit/protocol/internal';
import { agentLaunch, updateOf, type CheckSettings } from './case.js';
import { AgentDriver, type Finding, type TranscriptLine, type WireMessage } from './driver.js';

// The agent processes (or in-process instances) that shareable cases use one after another: one
// per concurrency lane at a time, for the protocol version the lane is running. A case that went
// wrong, or left work open, retires its process: the next case gets a fresh one, so that one bad
// case never decides the verdicts of the cases after it.

/** Where a case's part of a shared agent begins: the transcript seq, the findings, the stderr characters before it. */
export interface SharedMark {
  seq: number;
  findings: number;
  stderr: number;
}

/** One agent process (or in-process instance) that cases use one after another. */
export interface SharedAgent {
  readonly driver: AgentDriver;
  /** The answer to the checker's initialize (after --auth's login), once the first case on it made it. */
  initResult?: Record<string, unknown>;
  /** Where the next case's part begins: everything before it was reported by an earlier case. */
  mark: SharedMark;
  /** Sessions earlier cases left open on it (an agent that cannot close them keeps them). */
  openSessions: number;
}

/**
 * How many sessions a shared agent that cannot close them may hold before it is retired: an agent
 * may keep a process per session (Claude Code does), and a run opens about a hundred.
 */
export const MAX_UNCLOSED_SESSIONS = 8;

/** Where `driver` is now: the mark after everything it has seen so far. */
export function markOf(driver: AgentDriver): SharedMark {
  return { seq: driver.lastSeq, findings: driver.findings.length, stderr: driver.stderrTotal };
}

/** The findings of `driver` between two marks. */
export function findingsBetween(driver: AgentDriver, from: SharedMark, to: SharedMark): Finding[] {
  return driver.findings.slice(from.findings, to.findings);
}

/** A shared agent for each concurrency lane of a run. */
export class SharedAgents {
  private readonly lanes = new Map<number, { v: 1 | 2; agent: SharedAgent }>();

  constructor(private readonly settings: CheckSettings) {}

  /**
   * The agent lane `lane` shares under version `v`: the one it has, or a fresh one when it has
   * none (or it ended). A lane's agent of the other version is closed first: jobs run version by
   * version, so it would only sit idle.
   */
  async lease(lane: number, v: 1 | 2): Promise<SharedAgent> {
    const held = this.lanes.get(lane);
    if (held !== undefined && held.v === v && held.agent.driver.alive) return held.agent;
    if (held !== undefined) {
      this.lanes.delete(lane);
      await held.agent.driver.dispose();
    }
    const agent: SharedAgent = {
      driver: new AgentDriver(agentLaunch(this.settings)),
      mark: { seq: 0, findings: 0, stderr: 0 },
      openSessions: 0,
    };
    this.lanes.set(lane, { v, agent });
    return agent;
  }

  /**
   * After a case on `agent`: with `keep`, the next case of the lane begins at `end`; without, the
   * agent is ended (its process group killed, as a case's own process is) and the lane's next case
   * gets a fresh one.
   */
  async release(lane: number, agent: SharedAgent, keep: boolean, end: SharedMark): Promise<void> {
    if (keep && agent.driver.alive) {
      agent.mark = end;
      return;
    }
    if (this.lanes.get(lane)?.agent === agent) this.lanes.delete(lane);
    await agent.driver.dispose();
  }

  /** Ends every agent still held (the run is over). */
  async close(): Promise<void> {
    const held = [...this.lanes.values()];
    this.lanes.clear();
    await Promise.all(held.map((h) => h.agent.driver.dispose()));
  }
}

/** JSON of a message id, for matching a request with its answer. */
const idKey = (id: unknown): string => JSON.stringify(id ?? null);

/**
 * Why the lines of `driver` after seq `since` leave work open (undefined when they do not): a
 * request of either side not answered, or (v2) a turn answered but not yet idle. Such a process
 * is not handed on: what it still sends would land in the next case.
 */
export function openWork(driver: AgentDriver, since: number): string | undefined {
  const lines = driver.transcript.filter((l) => l.seq > since);
  const answered = { in: new Set<string>(), out: new Set<string>() };
  for (const l of lines) if (l.msg !== undefined && l.msg.method === undefined) answered[l.dir].add(idKey(l.msg.id));
  for (const l of lines) {
    const m = l.msg;
    if (m === undefined || typeof m.method !== 'string' || m.id === undefined) continue;
    // a request we sent is answered by a line coming in, the agent's by one going out
    if (!answered[l.dir === 'out' ? 'in' : 'out'].has(idKey(m.id)))
      return l.dir === 'out' ? `the agent never answered ${m.method}` : `the agent's ${m.method} is unanswered`;
  }
  return driver.version === 2 ? runningTurn(lines) : undefined;
}

/** A v2 turn among `lines` whose prompt was taken (answered without error) and that has not gone idle since. */
function runningTurn(lines: readonly TranscriptLine[]): string | undefined {
  for (const l of lines) {
    if (l.dir !== 'out' || l.msg?.method !== 'session/prompt') continue;
    const sid = at(l.msg.params, 'sessionId');
    const key = idKey(l.msg.id);
    const answer = lines.find((a) => a.dir === 'in' && a.msg?.method === undefined && idKey(a.msg?.id) === key);
    if (answer?.msg?.error !== undefined) continue;
    const idle = lines.some(
      (u) =>
        u.seq > l.seq &&
        at(u.msg?.params, 'sessionId') === sid &&
        updateOf(u.msg)?.sessionUpdate === 'state_update' &&
        updateOf(u.msg)?.state === 'idle',
    );
    if (!idle) return `the turn of session ${JSON.stringify(sid)} is still running`;
  }
  return undefined;
}

/** Methods whose answer (or params) name a session that is open afterwards. */
const OPENING: Record<string, 'result' | 'params'> = {
  'session/new': 'result',
  'session/fork': 'result',
  'session/load': 'params',
  'session/resume': 'params',
};

/**
 * The sessions the checker opened among the lines of `driver` after seq `since` (answered without
 * error) and did not close there: what a case leaves behind in a shared agent.
 */
export function sessionsLeftOpen(driver: AgentDriver, since: number): string[] {
  const lines = driver.transcript.filter((l) => l.seq > since);
  const answers = new Map<string, WireMessage>();
  for (const l of lines) if (l.dir === 'in' && l.msg?.method === undefined) answers.set(idKey(l.msg?.id), l.msg ?? {});
  const open = new Set<string>();
  for (const l of lines) {
    const m = l.msg;
    if (l.dir !== 'out' || m === undefined || typeof m.method !== 'string') continue;
    const answer = answers.get(idKey(m.id));
    if (answer === undefined || answer.error !== undefined) continue;
    const from = OPENING[m.method];
    const sid = at(from === 'result' ? answer.result : m.params, 'sessionId');
    if (typeof sid !== 'string') continue;
    if (from !== undefined) open.add(sid);
    else if (m.method === 'session/close') open.delete(sid);
  }
  return [...open];
}
