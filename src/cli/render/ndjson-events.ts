import type {
  CreateElicitationRequest,
  CreateElicitationResponse,
  AgentCapabilities,
  AuthMethod,
  AuthStatus,
  Implementation,
  PermissionOutcome,
  PermissionRequest,
  SessionInfo,
  StopReason,
  AnySessionUpdate,
  ErrorObject,
  ConfigOption,
  SessionModeState,
} from '@acp-kit/protocol';
import type { ToolTimeoutReport } from '../tool-timeout.js';

/**
 * The `--json` output of `acp-kit run`/`sessions`: one JSON object per line (NDJSON).
 * Every event has a `type`. `run` prints `connection` first and `result` last — also when the
 * run fails (then `result.error` is set and `stopReason` is `null`). `update` carries the
 * version-neutral `SessionUpdate` (the same for a v1 and a v2 agent).
 */
export type CliEvent =
  | {
      type: 'connection';
      protocolVersion: number;
      agentInfo: Implementation | null;
      agentCapabilities: AgentCapabilities;
      authMethods: AuthMethod[];
      /** the agent command line as spawned */
      agent: string[];
      /** the model the built-in agent runs on (e.g. `openai:gpt-4o-mini`); absent for other agents */
      model?: string;
    }
  /** `run`: after `session/new`; `sessions show`: before the replay (the requested id) */
  | { type: 'session'; sessionId: string; cwd: string; mode: 'new' | 'load' | 'resume' }
  /**
   * `run` with `--config`/`--mode`/`--model`: after the session line, what was applied (`via`
   * `option`: session/set_config_option, `modes`: v1 session/set_mode) and the resulting state
   */
  | {
      type: 'config';
      applied: Array<{ id: string; value: string | boolean; via: 'option' | 'modes' }>;
      configOptions: ConfigOption[];
      modes?: SessionModeState;
    }
  /** `run`: each applied update of the turn; `sessions show`: each update of the replay, in order */
  | {
      type: 'update';
      sessionId: string;
      update: AnySessionUpdate;
      /** set when `sessionId` is a subagent (child session, unstable) of this `run` session */
      parentSessionId?: string;
    }
  | {
      type: 'permission';
      sessionId: string;
      request: PermissionRequest;
      outcome: PermissionOutcome;
      allowed: boolean;
      /** human description of the decision */
      decision: string;
    }
  | {
      /**
       * `run`: an elicitation (issue 26): `asked` when the agent's request arrives, `answered` with
       * the response sent (and the rule's `reason` when a policy decided), `completed` when the
       * agent completes an accepted url elicitation
       */
      type: 'elicitation';
      event: 'asked' | 'answered' | 'completed';
      sessionId?: string;
      request?: CreateElicitationRequest;
      response?: CreateElicitationResponse;
      reason?: string;
      elicitationId?: string;
    }
  | {
      /** v1 only: output / exit of a command the agent runs through this client (`terminal/*`) */
      type: 'client_terminal';
      sessionId: string;
      terminalId: string;
      output?: string;
      exitStatus?: { exitCode?: number | null; signal?: string | null };
    }
  /** `run --tool-timeout`: a tool call ran longer than the limit (`outcome`: cancelled, not-cancellable, failed) */
  | ({ type: 'tool_timeout'; sessionId: string } & ToolTimeoutReport)
  /** the agent's unstable `auth/status_update`: its auth state changed (`state`, `accounts?`) */
  | ({ type: 'auth_status' } & AuthStatus)
  | { type: 'sessions'; sessions: SessionInfo[] }
  /** `sessions show --json`: last line, the replayed session as the library's `SessionState.toJSON()` */
  | { type: 'history'; sessionId: string; state: object }
  | {
      type: 'result';
      /** `null` when the run failed before the turn ended */
      stopReason: StopReason | null;
      exitCode: number;
      /** the agent's `error` stop object, or the CLI error that ended the run */
      error?: ErrorObject | { kind: string; message: string; hint?: string; details?: string; exitCode: number };
      rejectedPermissions: number;
      usage?: { used: number; size: number; cost?: { amount: number; currency: string } };
      /** the turn's token counts the built-in agent reports when the model's context window is unknown */
      tokens?: {
        inputTokens: number;
        outputTokens: number;
        totalTokens: number;
        cost?: { amount: number; currency: string };
      };
    };

/**
 * The last line of every `--json` command (src/cli/README.md, "--json output"): `type: "result"`
 * and the process's exit code, after the command's own fields (`run`: stopReason,
 * rejectedPermissions; `validate`: frames, violations; a failure: `error`).
 */
export function resultLine(exitCode: number, fields: Record<string, unknown> = {}): string {
  return `${JSON.stringify({ type: 'result', ...fields, exitCode })}\n`;
}

/** Writes NDJSON events; each event is one `write` call ending in `\n`. */
export class NdjsonWriter {
  private ended = false;
  constructor(private readonly write: (line: string) => void) {}

  emit(event: CliEvent): void {
    if (this.ended) return;
    this.write(`${JSON.stringify(event)}\n`);
    // `result` is the last line, whatever arrives after it (e.g. while closing on SIGTERM)
    if (event.type === 'result') this.ended = true;
  }
}
