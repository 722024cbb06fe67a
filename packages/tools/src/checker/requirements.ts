/**
 * The requirements the checker judges, with their tier and the one-line text of docs/conformance.md
 * (kept equal by packages/tools/test/checker-requirements.test.ts, so that a report quotes what the catalogue says).
 * The tier is the digest level of the requirement (MUST NOT counts as MUST).
 */

/**
 * How binding a requirement is: a failed MUST makes the agent non-conformant, the rest are warnings.
 * `draft`: a MUST of the newer SDK draft (sdk:v2) that the spec pages do not require; reported for
 * information, never a failure of the verdict (issue 23 item 14: a MUST only for what both require).
 * `unstable`: a rule of a method or update kind only `schema.unstable.json` has (issue 26 item 3),
 * taken from the schema's descriptions; the digest gives it no ID, so its ID is `unstable/<name>`
 * and it is reported for information, never a failure of the verdict.
 */
export type Tier = 'MUST' | 'SHOULD' | 'MAY' | 'info' | 'draft' | 'unstable';

/** One requirement as the report shows it. */
export interface Requirement {
  /** Catalogue ID (e.g. `ACP-V2-LIFE-05`), or `schema/v1` / `schema/v2` for the official schemas. */
  readonly id: string;
  readonly tier: Tier;
  /** The requirement in one line, as docs/conformance.md words it. */
  readonly text: string;
}

const rows: ReadonlyArray<readonly [string, Tier, string]> = [
  [
    'schema/v1',
    'MUST',
    'Every message matches the official JSON schema of protocol version 1 (schema/v1/schema.json).',
  ],
  [
    'schema/v2',
    'MUST',
    'Every message matches the official JSON schema of protocol version 2 (schema/v2/schema.json).',
  ],
  [
    'ACP-ALL-RPC-01',
    'MUST',
    'JSON-RPC 2.0 envelope: `jsonrpc:"2.0"` always; requests have id+method, notifications no id, responses id plus result or error.',
  ],
  ['ACP-ALL-RPC-02', 'MUST', 'Never answer a notification, not even with an error.'],
  [
    'ACP-ALL-RPC-03',
    'MUST',
    'A response repeats the request id exactly; v2 forbids null request ids and reusing an id still in flight.',
  ],
  ['ACP-ALL-RPC-04', 'MUST', 'An error is `{code: integer, message: string, data?}`.'],
  [
    'ACP-ALL-RPC-05',
    'MUST',
    'Reserved error codes keep their meaning (-32700, -32600, -32601, -32602, -32603, -32800, -32000, -32002, v2 -32022).',
  ],
  ['ACP-ALL-RPC-10', 'MUST', '`protocolVersion` is an integer in 0..65535, never a string.'],
  ['ACP-V2-RPC-01', 'draft', 'A request for an unknown or inactive session fails with -32002 and `data.sessionId`.'],
  ['ACP-ALL-TRANS-01', 'MUST', 'JSON-RPC messages are UTF-8 encoded.'],
  [
    'ACP-ALL-TRANS-03',
    'SHOULD',
    'Over stdio the client starts the agent as a child process; agent reads stdin and writes stdout.',
  ],
  ['ACP-ALL-TRANS-04', 'MUST', 'One message per line: newline-terminated, no raw newline inside a message.'],
  [
    'ACP-ALL-TRANS-05',
    'MUST',
    'An agent writes nothing but ACP messages on stdout; the client names the first stray line it sees.',
  ],
  [
    'ACP-V2-TRANS-11',
    'info',
    'JSON-RPC 2.0 batches (any version): acp-kit answers them per section 6 (one array of the responses, ids echoed; none for notifications and responses; -32600 `id: null` per invalid entry; `[]` one -32600; over 1000 entries one -32600, nothing run) and never sends one; a Streamable HTTP POST of an array gets 501 (RFD). The checker accepts answering or refusing (informational).',
  ],
  [
    'ACP-ALL-INIT-03',
    'MUST',
    'The agent echoes a supported requested version, else offers its own (v2: highest one at or below the request).',
  ],
  ['ACP-ALL-INIT-06', 'MUST', 'The initialize result carries the chosen version and the agent capabilities.'],
  [
    'ACP-V1-INIT-01',
    'SHOULD',
    'v1 peers should identify themselves in `clientInfo` / `agentInfo` (name, version, title).',
  ],
  [
    'ACP-V2-INIT-01',
    'MUST',
    'v2 peers must send `info` (name, version, optional title) in initialize params and result.',
  ],
  ['ACP-V2-INIT-02', 'MUST', 'v2 uses the role-neutral `info` / `capabilities` field names only.'],
  [
    'ACP-V2-INIT-05',
    'draft',
    'No supported version at or below the request: fail initialize with -32022 `{requested, supported}`.',
  ],
  [
    'ACP-V1-CAP-02',
    'MUST',
    'v1 mixes boolean flags (false/absent = no) and object markers (object = yes, null/absent = no).',
  ],
  [
    'ACP-V2-CAP-01',
    'MUST',
    'Every v2 capability is an object marker: present object = supported, null/absent = not; test presence, not truthiness.',
  ],
  [
    'ACP-V1-AUTH-04',
    'MUST',
    'A v1 agent advertises `terminal` auth methods only to a client that sent `clientCapabilities.auth.terminal: true`.',
  ],
  ['ACP-V2-AUTH-04', 'draft', 'Custom v2 auth method types start with `_`; other unknown types are reserved for ACP.'],
  ['ACP-V2-AUTH-07', 'draft', 'Every `env` entry of a v2 terminal auth method has a unique `name`.'],
  ['ACP-V2-AUTH-01', 'MUST', 'A v2 agent with any auth method implements both `auth/login` and `auth/logout`.'],
  ['ACP-ALL-AUTH-01', 'MUST', 'A successful `authenticate` / `auth/login` and `logout` / `auth/logout` answers `{}`.'],
  ['ACP-ALL-CAP-01', 'MUST', 'A capability not advertised at initialize is not supported.'],
  [
    'ACP-ALL-ELIC-01',
    'MUST',
    'Agents ask only for a mode the client advertised (`elicitation.form`/`.url` non-null; `{}` advertises none).',
  ],
  [
    'ACP-ALL-ELIC-03',
    'MUST',
    '`mode` always sent, exactly one scope (`sessionId` [+`toolCallId`] or `requestId`); v2 schema needs `type`/`properties`.',
  ],
  [
    'ACP-ALL-ELIC-07',
    'MUST',
    'Answers are `accept` (+`content`, meaningful only then), `decline` or `cancel`; url `accept` = consent; unknown action = `cancel`; content validated against the schema.',
  ],
  [
    'ACP-ALL-ELIC-09',
    'MUST',
    '`elicitationId` unique among outstanding url elicitations; clients ignore unknown/completed ids in `elicitation/complete`; completion only to the originating client.',
  ],
  ['ACP-ALL-SESS-02', 'MUST', '`session/new` returns a unique `sessionId` (checked within one process).'],
  ['ACP-ALL-SESS-08', 'SHOULD', 'The agent connects to every MCP server the client passes.'],
  ['ACP-V1-SESS-01', 'MUST', 'v1 agents support stdio MCP servers; http/sse only when advertised.'],
  [
    'ACP-ALL-LIST-01',
    'MUST',
    '`session/list` returns a `sessions` array (maybe empty) and `nextCursor` only when more pages exist.',
  ],
  [
    'ACP-ALL-LIST-02',
    'MUST',
    'A `cwd` filter returns only sessions with exactly that cwd; empty params give the first page.',
  ],
  [
    'ACP-ALL-CLOSE-01',
    'MUST',
    '`session/close` cancels running work like `session/cancel`, frees the session and returns `{}`.',
  ],
  ['ACP-ALL-DEL-02', 'MUST', 'A deleted session disappears from later lists; delete returns `{}`.'],
  ['ACP-ALL-DEL-03', 'SHOULD', 'Deleting a missing or already deleted session succeeds quietly.'],
  ['ACP-ALL-CFG-05', 'MUST', '`session/set_config_option` returns the full current `configOptions`.'],
  [
    'ACP-V1-MODE-01',
    'MAY',
    'An agent may offer legacy `modes` from session setup (and then takes `session/set_mode` of them).',
  ],
  ['ACP-V1-LOAD-02', 'MUST', '`session/load` replays the whole conversation as `session/update` notifications.'],
  ['ACP-V1-LOAD-03', 'MUST', 'The `session/load` response comes only after the last replayed update.'],
  ['ACP-V1-RESUME-02', 'MUST', 'v1 `session/resume` restores the session without replaying history.'],
  ['ACP-V2-RESUME-02', 'draft', '`session/resume` without `replayFrom` (or with `null`) replays no history.'],
  ['ACP-V2-RESUME-03', 'MUST', '`replayFrom: {type:"start"}` replays all retained history before the response.'],
  ['ACP-V2-RESUME-04', 'MUST', 'Replayed messages carry unique opaque `messageId`s (whole messages or chunks).'],
  [
    'ACP-V2-RESUME-08',
    'draft',
    'Every successful resume sends a current `state_update` after the replay and before the response.',
  ],
  ['ACP-V1-PROMPT-03', 'MUST', 'A v1 turn ends by answering `session/prompt` with a `stopReason`.'],
  [
    'ACP-V1-STOP-01',
    'MUST',
    'v1 stop reasons are the closed set end_turn, max_tokens, max_turn_requests, refusal, cancelled.',
  ],
  [
    'ACP-V2-LIFE-03',
    'MUST',
    'v2 `session/prompt` answers `{messageId}` as soon as the user message is inserted, before processing.',
  ],
  [
    'ACP-V2-LIFE-04',
    'MUST',
    'The inserted user message is echoed as `user_message` / chunks with the same `messageId`.',
  ],
  ['ACP-V2-LIFE-05', 'MUST', 'A `running` state update whenever foreground work starts or resumes.'],
  ['ACP-V2-LIFE-06', 'MUST', 'An `idle` state update when foreground work ends, with the `stopReason`.'],
  ['ACP-V2-STOP-01', 'MUST', 'v2 stop reasons: the known set plus `error`; custom ones start with `_`.'],
  ['ACP-V2-MSG-01', 'MUST', 'Include a non-null string `messageId` on every message update and message chunk.'],
  [
    'ACP-V1-CANCEL-05',
    'MUST',
    'After aborting and flushing, the v1 prompt is answered with `stopReason: "cancelled"`.',
  ],
  [
    'ACP-V1-CANCEL-06',
    'MUST',
    'Abort errors from models or tools still end the turn `cancelled`, not as a JSON-RPC error.',
  ],
  ['ACP-V1-CANCEL-07', 'MUST', 'Updates sent after `session/cancel` arrive before the prompt response.'],
  [
    'ACP-V2-CANCEL-05',
    'MUST',
    'After aborting and flushing, v2 sends idle with `stopReason: "cancelled"` if foreground work was active.',
  ],
  ['ACP-V2-CANCEL-06', 'MUST', 'Abort errors become the `cancelled` stop reason, never `error`.'],
  ['ACP-V2-CANCEL-07', 'MUST', 'Updates produced after the cancel precede the idle `cancelled` update.'],
  [
    'ACP-V2-TOOL-11',
    'draft',
    '`tool_call/cancel` only for calls advertising `capabilities.cancel`; agent answers `{}` and reports the final status.',
  ],
  [
    'ACP-V2-TERM-13',
    'draft',
    '`terminal/cancel` only when advertised; agent answers `{}`, reports `exitStatus` and keeps the terminal.',
  ],
  [
    'ACP-ALL-CREQ-04',
    'MUST',
    'A cancelled request is still answered once: a result or -32800; unknown ids are ignored.',
  ],
  [
    'ACP-ALL-PERM-04',
    'MUST',
    'Permission options have `optionId`, `name`, `kind`; a `selected` outcome names an offered option.',
  ],
  ['ACP-V1-PERM-01', 'MUST', 'v1 permission requests carry `sessionId`, the `toolCall` update and the `options`.'],
  [
    'ACP-V2-PERM-01',
    'MUST',
    'v2 permission requests carry a `title`, optional `description`/`subject` and at least one option.',
  ],
  [
    'ACP-V1-TOOL-01',
    'SHOULD',
    'Each tool call is announced with `tool_call` carrying a unique `toolCallId` and a `title`.',
  ],
  ['ACP-V2-TOOL-02', 'SHOULD', 'The first report of a tool call carries its `title`.'],
  ['ACP-V2-PLAN-01', 'SHOULD', 'v2 plans are `plan_update`s whose plan has a `type` and `planId`.'],
  ['ACP-V1-PLAN-01', 'SHOULD', 'v1 plans are `plan` updates with entries (content, priority, status).'],
  ['ACP-ALL-EXT-02', 'MUST', 'No assumptions about what `_meta` holds.'],
  ['ACP-ALL-EXT-05', 'MUST', 'Custom requests are always answered; unknown ones with -32601.'],
  ['ACP-ALL-EXT-06', 'SHOULD', 'Unknown custom notifications are ignored quietly.'],
  [
    'ACP-V2-CONT-01',
    'MUST',
    'Custom block types start with `_` and are kept; an agent rejects unsupported prompt blocks with -32602.',
  ],
  // judged of clients by `acp-kit check client`
  ['ACP-ALL-TRANS-06', 'MUST', "A client writes nothing but ACP messages to the agent's stdin."],
  ['ACP-V2-INIT-03', 'MUST', 'A client that asked for v2 and got v1 speaks pure v1 or disconnects; no mixing.'],
  [
    'ACP-V2-SESS-05',
    'MUST',
    'A new v2 session starts idle on the client; the session/new response never overrides a state update already seen.',
  ],
  ['ACP-V1-CANCEL-03', 'MUST', 'On cancel the v1 client answers every pending permission request with `cancelled`.'],
  ['ACP-ALL-PERM-03', 'MUST', 'Permission requests of cancelled work are answered `{outcome: "cancelled"}`.'],
  ['ACP-V2-MSG-03', 'MUST', 'A message update with `content` replaces everything, chunks included.'],
  ['ACP-V2-MSG-04', 'MUST', '`content: []` or null clears a message; omitted `content` keeps it.'],
  ['ACP-V1-FS-05', 'MUST', 'Clients refuse fs paths outside the session roots.'],
  ['ACP-V1-TERM-08', 'MUST', '`terminal/release` kills a running command and retires the id.'],
  ['ACP-V1-TERM-07', 'MUST', '`terminal/kill` stops the command; output and wait still work until release.'],
  ['ACP-V1-TERM-06', 'MUST', '`terminal/wait_for_exit` resolves on exit with nullable `exitCode` and `signal`.'],
  ['ACP-V1-TERM-05', 'MUST', '`terminal/output` returns `output`, `truncated` and `exitStatus` once exited.'],
  [
    'ACP-V2-EXT-03',
    'SHOULD',
    'Unknown enum values and union variants are kept as they are when stored, replayed or forwarded.',
  ],
  // unstable-schema rules (no digest ID: docs/checker.md lists them with the schema text they come from)
  [
    'unstable/session-fork',
    'unstable',
    "`session/fork` answers a new `sessionId` whose history is the source session's; the source session is unchanged.",
  ],
  [
    'unstable/session-archive',
    'unstable',
    '`session/archive` hides a session from default `session/list` results (listed with `archived: true` under `archived: "only"`); `session/unarchive` returns it; a missing session gets -32002.',
  ],
  [
    'unstable/session-title',
    'unstable',
    '`session/set_title` answers the title it stored, which `session/list` (or a `session_info_update`) then shows; an empty title gets -32602.',
  ],
  [
    'unstable/session-status',
    'unstable',
    '`session/status` answers a `status` for a known session (with its `state` when `open`) and -32002 with `data.sessionId` for an unknown one.',
  ],
  [
    'unstable/auth-status',
    'unstable',
    "`auth/status` answers the agent's authentication `state` and is never rejected with `auth_required` (-32000).",
  ],
  [
    'unstable/auth-status-update',
    'unstable',
    'An `auth/status_update` differs from the last one sent on the connection and agrees with what `auth/status` answers next.',
  ],
  [
    'unstable/providers',
    'unstable',
    "`providers/set` replaces a provider's routing, which `providers/list` then shows as `current`; `providers/disable` clears it.",
  ],
  [
    'unstable/mcp-over-acp',
    'unstable',
    'An agent advertising `acp` MCP servers reaches one given in `session/new` by `mcp/message` requests naming its `serverId`, and can call its tool.',
  ],
  // judged of clients by `acp-kit check client`
  [
    'unstable/client-updates',
    'unstable',
    'A client takes the unstable update kinds (`plan_removed`, `session_message`, `session_message_chunk`, `subagent_update`) and `auth/status_update` without an error and keeps working.',
  ],
];

/** Every requirement the checker can report, by ID. */
export const REQUIREMENTS: ReadonlyMap<string, Requirement> = new Map(
  rows.map(([id, tier, text]) => [id, { id, tier, text }]),
);

/** The requirement with this ID; throws for an ID the checker does not know (a bug in a case). */
export function requirement(id: string): Requirement {
  const r = REQUIREMENTS.get(id);
  if (!r) throw new Error(`checker: unknown requirement ${id}`);
  return r;
}
