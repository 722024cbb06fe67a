import { type AvailableCommand, type ConfigOption, AcpError } from '@acp-kit/protocol';
import type { AgentDefinition, AgentSession, Turn, TurnResult } from '@acp-kit/agent';
import { normalizeTitle } from '@acp-kit/agent';
import { DEFAULT_MAX_TURN_REQUESTS, promptText, runTurn } from './engine.js';
import type { LanguageModel } from './model.js';
import { createDemoModel, DEMO_HELP } from './models/demo.js';
import type { ModelProviders } from './models/routing.js';
import { conversationFromHistory } from './restore.js';
import { codingState, type CodingSessionState } from './session-state.js';
import { historyHasTitle, titleFromPrompt } from './title.js';
import type { AgentMode, Tool } from './tool.js';
import { askUserTool, builtinTools } from './tools/index.js';
import {
  closeSessionMcp,
  describeMcpFailure,
  mcpPromptCommands,
  openSessionMcp,
  promptArguments,
  promptMessages,
  sessionMcp,
  sessionMcpTools,
  type McpPromptCommand,
  type SessionMcpOptions,
} from './mcp/index.js';
import type { ConversationMessage } from './model.js';
import { packageVersion } from '@acp-kit/protocol/internal';

export * from './model.js';
export * from './tool.js';
export * from './sandbox.js';
export * from './engine.js';
export * from './session-state.js';
export { conversationFromHistory, type ConversationFromHistoryOptions, type RestoredCommandEffect } from './restore.js';
export { createWorkspaceFs, type WorkspaceFs } from './workspace-fs.js';
export { titleFromPrompt, MAX_TITLE_CHARS } from './title.js';
export { USAGE_META_KEY, readTurnTokenUsage, type TurnTokenUsage } from '@acp-kit/protocol/internal';
export {
  createCommandRunner,
  signalToolProcesses,
  type CommandRunner,
  type CommandResult,
  type CommandOptions,
} from './terminal.js';
export { builtinTools } from './tools/index.js';
export { createDemoModel, parseDemoRequest, DEMO_HELP, type DemoModelOptions } from './models/demo.js';
export * from './mcp/index.js';

/** Options of {@link createCodingAgent}. */
export interface CodingAgentOptions {
  /** The model (default: the offline demo model). */
  model?: LanguageModel;
  /** Cap on model requests per prompt turn (default 25) -> `max_turn_requests`. */
  maxTurnRequests?: number;
  /** Output token cap per model request -> `max_tokens` when hit. */
  maxOutputTokens?: number;
  /** Tools (default: the built-ins: read_file, list_files, search_text, write_file, edit_file, run_command). */
  tools?: readonly Tool[];
  /**
   * Offer the model `ask_user` (a question put to the user as a form) when the client advertises
   * form elicitation (default `true`).
   */
  askUser?: boolean;
  /** Initial permission mode (default `ask`). */
  mode?: AgentMode;
  /** Extra instructions appended to the system prompt. */
  instructions?: string;
  /** Agent name/version reported at `initialize`. */
  info?: { name: string; version: string; title?: string };
  /**
   * MCP servers the client passes at session setup (stdio and streamable HTTP): connect time
   * limit, per-call time limit, where diagnostics go (default: stderr).
   */
  mcp?: SessionMcpOptions;
  /**
   * The model's providers as unstable `providers/*` and `auth/status` (custom LLM endpoint RFD):
   * a client's `providers/set` switches the endpoint new turns use, `auth/status` says whether a
   * key is configured. Its starting model replaces `model`. Absent: neither is advertised.
   */
  providers?: ModelProviders;
}

export const MODES: ReadonlyArray<{ value: AgentMode; name: string; description: string }> = [
  { value: 'ask', name: 'Ask', description: 'Reads run freely; file writes and commands ask for permission' },
  { value: 'auto', name: 'Auto', description: 'Everything runs without asking' },
  { value: 'read-only', name: 'Read-only', description: 'File writes and commands are refused' },
];

export const COMMANDS: readonly AvailableCommand[] = [
  { name: 'help', description: 'What this agent can do and how to configure a model', input: null },
  { name: 'clear', description: 'Forget the conversation so far (the model starts fresh)', input: null },
  { name: 'mode', description: 'Show or switch the permission mode', input: { hint: 'ask | auto | read-only' } },
];

/** The session's slash commands: the agent's own, then its MCP servers' prompts (`mcp__<server>__<prompt>`). */
function sessionCommands(session: AgentSession): AvailableCommand[] {
  return [...COMMANDS, ...promptCommands(session).map((c) => c.command)];
}

function promptCommands(session: AgentSession): McpPromptCommand[] {
  return mcpPromptCommands(
    sessionMcp(session),
    COMMANDS.map((c) => c.name),
  );
}

/**
 * An MCP prompt run as `/<name> args`: `prompts/get` with the typed arguments; its messages are
 * the turn's input. A string when the turn ends here (missing arguments, the server failed).
 */
async function mcpPromptInput(
  turn: Turn,
  cmd: McpPromptCommand,
  typed: string,
): Promise<ConversationMessage[] | TurnResult> {
  const { args, missing } = promptArguments(cmd.def, typed);
  if (missing.length > 0) {
    const hint = cmd.command.input ? ` ${cmd.command.input.hint}` : '';
    await say(
      turn,
      `/${cmd.command.name} needs ${missing.map((m) => `<${m}>`).join(' ')}. Usage: /${cmd.command.name}${hint}`,
    );
    return 'end_turn';
  }
  try {
    return promptMessages(await cmd.server.getPrompt(cmd.def.name, args, turn.signal));
  } catch (e) {
    if (turn.signal.aborted) return 'cancelled';
    await say(
      turn,
      `⚠️ The prompt "${cmd.def.name}" of MCP server "${cmd.server.serverName}" failed: ${e instanceof Error ? e.message : String(e)}`,
    );
    return 'end_turn';
  }
}

/** Connects the session's MCP servers; a server's changed prompt list re-sends the command list. */
async function openMcp(session: AgentSession, options: SessionMcpOptions): Promise<void> {
  const mcp = await openSessionMcp(session, options);
  // the complete new list (ACP-ALL-CMD-01)
  if (mcp)
    mcp.onPromptsChanged = () =>
      session.send({ sessionUpdate: 'available_commands_update', availableCommands: sessionCommands(session) });
}

function isMode(v: unknown): v is AgentMode {
  return v === 'ask' || v === 'auto' || v === 'read-only';
}

function systemPrompt(turn: Turn, state: CodingSessionState, extra?: string): string {
  const s = turn.session;
  const roots = [s.cwd, ...s.additionalDirectories];
  const mcpDown =
    sessionMcp(s)
      ?.status()
      .filter((m) => m.state !== 'connected') ?? [];
  return [
    "You are a coding agent working in a software project on the user's machine, through the tools provided.",
    `Project root (cwd): ${s.cwd}`,
    roots.length > 1 ? `Other accessible directories: ${roots.slice(1).join(', ')}` : '',
    'File tools only work inside these directories; use paths relative to the project root.',
    `Permission mode: ${state.mode}${state.mode === 'read-only' ? ' (do not try to write files or run commands)' : ''}.`,
    'Read files before you change them. Prefer edit_file for small changes. Keep answers short and concrete.',
    'For multi-step tasks, report your plan with update_plan and keep it current.',
    sessionMcpTools(s).length > 0 ? 'Tools named mcp__<server>__<tool> come from MCP servers the user configured.' : '',
    ...mcpDown.map((m) =>
      m.state === 'failed' ? describeMcpFailure(m) : `MCP server "${m.name}" stopped: ${m.error ?? 'closed'}.`,
    ),
    extra ?? '',
  ]
    .filter(Boolean)
    .join('\n');
}

/** `session/set_config_option`: the mode switches; the model is shown, not chosen here. */
function setCodingConfigOption(
  session: AgentSession,
  configId: string,
  value: unknown,
  model: LanguageModel,
): ReturnType<typeof configOptions> {
  if (configId === 'mode') setMode(session, value);
  else if (configId === 'model') {
    if (value !== model.id)
      throw AcpError.invalidParams(
        `value: this agent runs model "${model.id}" only; restart it with --model/--model-name to change, got ${JSON.stringify(value)}`,
      );
  } else
    throw AcpError.invalidParams(
      `configId: unknown config option ${JSON.stringify(configId)}; expected "mode" or "model"`,
    );
  return configOptions(session, model);
}

/**
 * Builds the built-in coding agent: an {@link AgentDefinition} for `serveAgent` /
 * `runAgentOnStdio`. Config options: `mode` (ask / auto / read-only) and `model` (informational).
 */
export function createCodingAgent(options: CodingAgentOptions = {}): AgentDefinition {
  const started = options.model ?? createDemoModel();
  // with providers, each new turn asks which model runs it (a client's providers/set switches it)
  const modelNow = (): Promise<LanguageModel> => options.providers?.current() ?? Promise.resolve(started);
  // for config options and /help, which must work while every provider is disabled
  const shownModel = (): Promise<LanguageModel> => modelNow().catch(() => started);
  const tools = options.tools ?? builtinTools();
  const maxTurnRequests = options.maxTurnRequests ?? DEFAULT_MAX_TURN_REQUESTS;
  if (!Number.isInteger(maxTurnRequests) || maxTurnRequests < 1)
    throw new RangeError(`maxTurnRequests must be a positive integer, got ${maxTurnRequests}`);

  const info = options.info ?? {
    name: 'acp-kit-coding-agent',
    version: packageVersion(),
    title: 'acp-kit coding agent',
  };
  return {
    info,
    // stdio is mandatory (ACP-V1-SESS-01); streamable HTTP is what new agents SHOULD support; sse is
    // v1-only (the v2 codec drops the flag and the configs)
    capabilities: {
      prompt: { image: true, embeddedContext: true },
      mcp: { stdio: true, http: true, sse: true, acp: true },
    },
    // the unstable session methods, served by the runtime from the store (fork rebuilds the
    // conversation from the copied history in openSession, as a restore does)
    ...routingParts(options.providers),
    sessionMethods: {
      fork: true,
      archive: true,
      status: true,
      title: (title, session) => {
        const stored = normalizeTitle(title);
        // a title the user chose is not replaced by one made from the first prompt
        if (session) codingState(session).titled = true;
        return stored;
      },
    },
    async openSession(session, context) {
      const state = codingState(session, { mode: options.mode });
      // after an agent restart the model continues the conversation the client sees (load/resume)
      if (context?.restored) {
        state.titled = historyHasTitle(context.history);
        state.history = conversationFromHistory(context.history, {
          command: (name) =>
            name === 'clear' ? 'clear' : COMMANDS.some((c) => c.name === name) ? 'ignore' : undefined,
        });
      }
      // a restored session keeps its mode
      const saved = session.configOptions.find((o) => o.configId === 'mode');
      if (saved && 'currentValue' in saved && isMode(saved.currentValue)) state.mode = saved.currentValue;
      // before the response: restored sessions reconnect their servers, then answer (ACP-V1-RESUME-02)
      await openMcp(session, { clientInfo: { name: info.name, version: info.version }, ...options.mcp });
      return { configOptions: configOptions(session, await shownModel()), availableCommands: sessionCommands(session) };
    },
    async setConfigOption(session, configId, value) {
      return setCodingConfigOption(session, configId, value, await shownModel());
    },
    closeSession(session) {
      return closeSessionMcp(session);
    },
    async prompt(turn): Promise<TurnResult> {
      const text = promptText(turn.prompt).trim();
      const slash = /^\/(\S+)\s*([\s\S]*)$/.exec(text);
      const command = slash?.[1];
      // the second group always takes part in a match (it may be empty)
      if (command !== undefined && COMMANDS.some((c) => c.name === command))
        return runCommand(turn, await shownModel(), command, (slash?.[2] ?? '').trim());
      const mcpCommand = promptCommands(turn.session).find((c) => c.command.name === command);
      const input = mcpCommand ? await mcpPromptInput(turn, mcpCommand, slash?.[2] ?? '') : undefined;
      if (input !== undefined && !Array.isArray(input)) return input;
      const state = codingState(turn.session);
      // pickers and `sessions list` show something better than "(untitled)"; sent when the first
      // answer is done, so the turn's own updates come first
      const title = state.titled ? undefined : titleFromPrompt(text);
      if (title !== undefined) state.titled = true;
      try {
        return await runTurn(turn, {
          model: await modelNow(),
          // ask_user only where the client can show a form (ACP-ALL-ELIC-01)
          tools: [
            ...tools,
            ...(options.askUser !== false && turn.session.supportsElicitation('form') ? [askUserTool] : []),
            ...sessionMcpTools(turn.session),
          ],
          maxTurnRequests,
          maxOutputTokens: options.maxOutputTokens,
          system: (t, s) => systemPrompt(t, s, options.instructions),
          ...(input ? { input } : {}),
        });
      } finally {
        if (title !== undefined) await turn.send({ sessionUpdate: 'session_info_update', title });
      }
    },
  };
}

/** The unstable `auth` and `providers` parts of the definition, from the model's providers. */
function routingParts(p: ModelProviders | undefined): Pick<AgentDefinition, 'auth' | 'providers'> {
  if (!p) return {};
  return {
    auth: { status: () => p.status(), watch: (push) => p.watch(push) },
    providers: { list: () => p.list(), set: (req) => p.set(req), disable: (id) => p.disable(id) },
  };
}

/** The session's config options: the permission mode (settable) and the model (informational). */
function configOptions(session: AgentSession, model: LanguageModel): ConfigOption[] {
  return [
    {
      type: 'select',
      configId: 'mode',
      name: 'Mode',
      description: 'When the agent asks before changing files or running commands',
      category: 'mode',
      currentValue: codingState(session).mode,
      options: MODES.map((m) => ({ value: m.value, name: m.name, description: m.description })),
    },
    {
      type: 'select',
      configId: 'model',
      name: 'Model',
      description: 'The model this agent was started with (restart the agent to change it)',
      category: 'model',
      currentValue: model.id,
      options: [{ value: model.id, name: model.id }],
    },
  ];
}

function setMode(session: AgentSession, value: unknown): void {
  if (!isMode(value)) {
    throw AcpError.invalidParams(
      `value: expected one of ${MODES.map((m) => `"${m.value}"`).join(', ')} for config option "mode", got ${JSON.stringify(value)}`,
    );
  }
  codingState(session).mode = value;
}

async function say(turn: Turn, text: string): Promise<void> {
  await turn.send({
    sessionUpdate: 'agent_message_chunk',
    messageId: turn.session.newId('msg'),
    content: { type: 'text', text },
  });
}

/** The slash commands (see {@link COMMANDS}): answered by the agent itself, no model call. */
async function runCommand(turn: Turn, model: LanguageModel, name: string, arg: string): Promise<TurnResult> {
  const state = codingState(turn.session);
  if (name === 'help') {
    const tips = model.id === 'demo' ? DEMO_HELP : `Model: ${model.id}. Ask for changes in plain language.`;
    const mcp = sessionMcp(turn.session)?.status() ?? [];
    const servers =
      mcp.length === 0
        ? ''
        : `\n\nMCP servers: ${mcp.map((m) => `${m.name} (${m.state === 'connected' ? `${m.toolCount} tool${m.toolCount === 1 ? '' : 's'}` : `${m.state}: ${m.error ?? ''}`})`).join(', ')}.`;
    await say(
      turn,
      `${tips}\n\nCommands: ${sessionCommands(turn.session)
        .map((c) => `/${c.name}`)
        .join(', ')}. Mode: ${state.mode}.${servers}`,
    );
  } else if (name === 'clear') {
    state.history.length = 0;
    await say(turn, 'Conversation cleared.');
  } else if (name === 'mode') {
    if (arg === '') await say(turn, `Mode: ${state.mode} (${MODES.map((m) => m.value).join(' | ')}).`);
    else if (!isMode(arg))
      await say(turn, `Unknown mode "${arg}". Use one of: ${MODES.map((m) => m.value).join(', ')}.`);
    else {
      state.mode = arg;
      await turn.send({ sessionUpdate: 'config_option_update', configOptions: configOptions(turn.session, model) });
      await say(turn, `Mode set to ${arg}.`);
    }
  }
  return 'end_turn';
}
