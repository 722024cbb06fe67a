/**
 * `acp-kit/checker`: the conformance checker of `acp-kit check agent` and `acp-kit check client` as
 * a library. {@link checkAgent} checks an agent (a definition or your own in-process agent, served
 * in this process, or a command) from your own test suite; the result names each requirement
 * (docs/conformance.md) with its status and failures.
 * @packageDocumentation
 */
export {
  checkAgent,
  agentInProcess,
  type AgentUnderCheck,
  type AgentCommand,
  type CheckAgentOptions,
  type AgentInProcessOptions,
} from './check-agent.js';
export { runChecks, type CheckRun, type CaseResult, type RequirementResult, type RunOptions } from './runner.js';
export {
  DEFAULT_CHECK_PROMPT,
  SHORT_CHECK_PROMPT,
  type CheckSettings,
  type AgentCommandSettings,
  type InProcessAgentSettings,
  type Check,
  type CaseInfo,
} from './case.js';
export type { InProcessAgent, InProcessAgentIo, InProcessAgentHandle } from './launch.js';
export { runClientChecks, type ClientRunOptions } from './client/runner.js';
export type { ClientCheckSettings } from './client/context.js';
export { formatText, formatJson, formatJunit } from './report.js';
export { REQUIREMENTS, requirement, type Requirement, type Tier } from './requirements.js';
