import { Methods, type AgentMethod } from '../model/methods.js';
import type { AgentCapabilities, AuthMethod } from '../model/session.js';

/** Neutral methods that exist only in v1 (ACP §2: removed in v2). */
export const V1_ONLY_METHODS: ReadonlySet<string> = new Set([
  Methods.sessionLoad,
  Methods.sessionSetMode,
  Methods.fsReadTextFile,
  Methods.fsWriteTextFile,
  Methods.terminalCreate,
  Methods.terminalOutput,
  Methods.terminalWaitForExit,
  Methods.terminalKill,
  Methods.terminalRelease,
]);

/** Neutral methods that exist only in v2 (Nov: per-entity cancellation). */
export const V2_ONLY_METHODS: ReadonlySet<string> = new Set([Methods.toolCallCancel, Methods.terminalCancel]);

// Maps, not object literals: a wire name such as `toString` or `__proto__` must not hit Object.prototype
const V2_WIRE: ReadonlyMap<string, string> = new Map([
  [Methods.authenticate, 'auth/login'],
  [Methods.logout, 'auth/logout'],
]);
const V2_NEUTRAL: ReadonlyMap<string, string> = new Map([
  ['auth/login', Methods.authenticate],
  ['auth/logout', Methods.logout],
]);

export function v1WireMethod(neutral: string): string | undefined {
  return V2_ONLY_METHODS.has(neutral) ? undefined : neutral;
}

export function v2WireMethod(neutral: string): string | undefined {
  if (V1_ONLY_METHODS.has(neutral)) return undefined;
  return V2_WIRE.get(neutral) ?? neutral;
}

/**
 * The neutral name of a v2 wire method. A v2 wire name that is the neutral name of a method v2
 * lacks or renames (`authenticate`, `session/load`, `fs/...`) is not a v2 method: it is returned
 * prefixed with `v1:` so that no neutral handler picks it up (the peer gets -32601).
 */
export function v2NeutralMethod(wire: string): string {
  const renamed = V2_NEUTRAL.get(wire);
  if (renamed) return renamed;
  if (V1_ONLY_METHODS.has(wire) || V2_WIRE.has(wire)) return `v1:${wire}`;
  return wire;
}

/** The neutral name of a v1 wire method (v2-only names get a `v2:` prefix, as above). */
export function v1NeutralMethod(wire: string): string {
  if (V2_ONLY_METHODS.has(wire) || V2_NEUTRAL.has(wire)) return `v2:${wire}`;
  return wire;
}

/**
 * Whether a client may send `method` to an agent on a connection of `version` whose agent
 * advertised `capabilities` (neutral: the codecs map each version's markers, e.g. v2's `session`
 * marker to `session.list/resume/close`, ACP-V2-CAP-04, and v2 `logout` to a non-empty
 * `authMethods`, ACP-V2-AUTH-01) and `authMethods`. The one statement of which version has which
 * method and which capability gates it: the client asks it before sending
 * (`ClientConnection.supports`), the agent answers -32601 to what it says no to for its own
 * capabilities (ACP-V1-LOAD-01, ACP-V1-RESUME-01, ACP-V1-LIST-01, ACP-V1-CLOSE-01, ACP-ALL-DEL-01,
 * ACP-V1-AUTH-02, ACP-V2-AUTH-02; the unstable `session/fork|archive|unarchive|status|set_title`
 * by `session.fork|archive|status|title`, ACP-V1-FORK-01 for fork; the unstable `auth/status` by
 * `auth.status` and `providers/list|set|disable` by `providers`).
 */
export function agentMethodSupported(
  method: AgentMethod,
  version: 1 | 2,
  capabilities: AgentCapabilities,
  authMethods: readonly AuthMethod[],
): boolean {
  if ((version === 1 ? V2_ONLY_METHODS : V1_ONLY_METHODS).has(method)) return false;
  switch (method) {
    case 'authenticate':
      return authMethods.length > 0;
    case 'logout':
      return !!capabilities.logout;
    case 'session/load':
      return !!capabilities.loadSession;
    case 'session/list':
      return !!capabilities.session?.list;
    case 'session/resume':
      return !!capabilities.session?.resume;
    case 'session/close':
      return !!capabilities.session?.close;
    case 'session/delete':
      return !!capabilities.session?.delete;
    case 'session/fork':
      return !!capabilities.session?.fork;
    case 'session/archive':
    case 'session/unarchive':
      return !!capabilities.session?.archive;
    case 'session/status':
      return !!capabilities.session?.status;
    case 'session/set_title':
      return !!capabilities.session?.title;
    case 'auth/status':
      return !!capabilities.authStatus;
    case 'providers/list':
    case 'providers/set':
    case 'providers/disable':
      return !!capabilities.providers;
    default:
      return true;
  }
}
