import {
  AcpError,
  ErrorCode,
  KNOWN_AUTH_STATES,
  type AgentMethod,
  type AuthStatus,
  type ProviderInfo,
  type SetProviderRequest,
} from '@acp-kit/protocol';

/** The capability that gates each unstable method here (the same spelling in v1 and v2). */
const GATES: Partial<Record<AgentMethod, string>> = {
  'auth/status': 'auth.status',
  'providers/list': 'providers',
  'providers/set': 'providers',
  'providers/disable': 'providers',
};

/**
 * Refuses `auth/status` or `providers/*` before anything is sent when the agent does not advertise
 * the capability, naming it (-32601, as the agent would answer).
 */
export function requireAuthProviders(method: AgentMethod, supported: boolean): void {
  if (supported) return;
  throw new AcpError(
    ErrorCode.MethodNotFound,
    `the agent does not advertise the ${GATES[method] ?? method} capability, so ${method} (unstable) is not available`,
  );
}

/** A status as the client reads it: a state it does not know is `unknown` (the schema's rule). */
export function readAuthStatus(status: AuthStatus): AuthStatus {
  return KNOWN_AUTH_STATES.includes(status.state) ? status : { ...status, state: 'unknown' };
}

/** The client side of the unstable auth status and provider methods, on one connection. */
export interface AuthProvidersClient {
  /** `auth/status` (the agent's `auth.status` capability): a state this client does not know reads as `unknown`. */
  authStatus(): Promise<AuthStatus>;
  /** The last status the agent reported (answer or `auth/status_update`), if any. */
  readonly lastAuthStatus: AuthStatus | undefined;
  /** `providers/list` (the agent's `providers` capability). */
  listProviders(): Promise<ProviderInfo[]>;
  /** `providers/set`: replaces one provider's configuration (base URL, protocol, headers). */
  setProvider(request: SetProviderRequest): Promise<void>;
  /** `providers/disable`; refused before sending for a provider the last list said is `required`. */
  disableProvider(providerId: string): Promise<void>;
}
