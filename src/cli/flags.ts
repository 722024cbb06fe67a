/**
 * Parsed flags of the `acp-kit` commands. A leaf module (types only) shared by the command tree
 * (program.ts and the `commands/<name>.options.ts` that declare the flags) and the command
 * implementations, so neither imports the other. The declarations are typed
 * (`@commander-js/extra-typings`): an action passes its parsed flags where these types are
 * expected, so a declaration and its type cannot drift apart unnoticed.
 */

/** Model backends of the built-in coding agent. */
export type ModelBackend = 'demo' | 'openai' | 'anthropic';

/** Options every agent-talking command shares. */
export interface AgentFlags {
  agent?: string;
  /** remote agent URL (`acp-kit serve`): ws://, wss://, http://, https:// */
  agentUrl?: string;
  /** file holding the bearer token for `agentUrl` (else $ACP_KIT_AGENT_TOKEN) */
  agentTokenFile?: string;
  /** speak HTTP/2 to an http(s):// `agentUrl` */
  agentHttp2?: boolean;
  cwd?: string;
  protocol: 'auto' | '1' | '2';
  verbose?: boolean;
  /** seconds to wait for the agent's `initialize` answer */
  connectTimeout?: number;
  /** seconds to wait for the agent's answer to session set-up (`session/new`, load, resume) */
  timeout?: number;
  /** `--mcp-over-acp <command>` (run, chat; repeatable): stdio MCP servers relayed over the ACP connection */
  mcpOverAcp?: string[];
  /** added to the agent's environment: set by a profile's `agent.env` (config-file.ts), no flag */
  agentEnv?: Record<string, string>;
  /** true when `agent` is a profile's registry `id` (config-file.ts): then it must be in the registry, no flag */
  agentIsId?: boolean;
}

/** Model choice for the built-in agent (`run`, `chat`); ignored with `--agent`. */
export interface ModelFlags {
  model?: ModelBackend;
  modelName?: string;
  baseUrl?: string;
}

/**
 * `run`/`chat`: the model flags, where `--model` is the built-in agent's backend or, with another
 * agent, the session's model (its config option of category `model`); plus the session's mode and
 * config options (src/cli/session-config.ts).
 */
export interface SessionConfigFlags extends Omit<ModelFlags, 'model'> {
  model?: string;
  /** `--mode <id>` */
  mode?: string;
  /** `--config <id>=<value>` (repeatable) */
  config?: string[];
  /** `--profile <name>` (else $ACP_KIT_PROFILE): defaults from the config file (config-file.ts) */
  profile?: string;
}

export interface RunFlags extends AgentFlags, SessionConfigFlags {
  approveAll?: boolean;
  approveReads?: boolean;
  denyAll?: boolean;
  json?: boolean;
  /** `--answer key=value` (repeatable): answers to elicitation form fields */
  answer?: string[];
  /** `--answers <file.json>`: the same from a JSON object */
  answers?: string;
  /** `--accept-urls`: consent to url elicitations (the URL is printed, never opened) */
  acceptUrls?: boolean;
  /** `--session <id>`: continue that session (load/resume with replay) instead of session/new */
  session?: string;
  /** `--tool-timeout <ms>`: cancel (v2 `tool_call/cancel`) a tool call running longer than this */
  toolTimeout?: number;
}

export interface ChatFlags extends AgentFlags, SessionConfigFlags {
  resume?: string | true;
  approveAll?: boolean;
  approveReads?: boolean;
  /** from a profile's `permissions: "deny-all"` only (chat has no such flag) */
  denyAll?: boolean;
}

export interface SessionsFlags extends AgentFlags {
  json?: boolean;
}

/** `acp-kit agent`: the built-in agent's model and limits (the environment fills the rest). */
export interface AgentLaunchFlags extends ModelFlags {
  maxTurnRequests?: number;
  maxOutputTokens?: number;
  contextWindow?: number;
  mode?: 'ask' | 'auto' | 'read-only';
}

/** Lazily loaded command implementations keep `--help` fast and the heavy UI out of `run`. */
export interface CommandHandlers {
  run(prompt: string, flags: RunFlags): Promise<number>;
  chat(flags: ChatFlags): Promise<number>;
  sessionsList(flags: SessionsFlags & { all?: boolean; archived?: boolean }): Promise<number>;
  sessionsShow(sessionId: string, flags: SessionsFlags): Promise<number>;
  agent(flags: AgentLaunchFlags): Promise<number>;
}
