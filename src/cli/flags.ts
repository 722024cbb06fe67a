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
}

/** Model choice for the built-in agent (`run`, `chat`); ignored with `--agent`. */
export interface ModelFlags {
  model?: ModelBackend;
  modelName?: string;
  baseUrl?: string;
}

export interface RunFlags extends AgentFlags, ModelFlags {
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
}

export interface ChatFlags extends AgentFlags, ModelFlags {
  resume?: string | true;
  approveAll?: boolean;
  approveReads?: boolean;
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
