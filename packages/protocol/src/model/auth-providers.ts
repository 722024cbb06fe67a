import type { Meta } from './json.js';

/**
 * The agent's overall authentication state (unstable `auth/status`, both versions). A client
 * treats a value it does not know as `unknown` (the schema's rule); `_`-prefixed values are
 * implementation-specific.
 */
export type AuthState = 'authenticated' | 'unauthenticated' | 'not_required' | 'unknown' | (string & {});

/** An account or credential the agent has configured, for display (unstable). */
export interface AuthAccount {
  /** e.g. `Claude Max`, `OpenAI API key` */
  label: string;
  /** whether the agent uses it by default (several may be active, e.g. one per provider) */
  active?: boolean | null;
  name?: string | null;
  email?: string | null;
  organization?: string | null;
  _meta?: Meta | null;
}

/**
 * The `auth/status` result and the `auth/status_update` notification's params (the same fields).
 * `state` is the only field a client acts on; `accounts` is for display.
 */
export interface AuthStatus {
  state: AuthState;
  accounts?: AuthAccount[];
  _meta?: Meta | null;
}

/** An LLM API protocol (unstable): the well-known ones or a custom / future string. */
export type LlmProtocol = 'anthropic' | 'openai' | 'azure' | 'vertex' | 'bedrock' | (string & {});

/** A provider's effective routing, without secrets (unstable). */
export interface ProviderCurrentConfig {
  apiType: LlmProtocol;
  baseUrl: string;
  _meta?: Meta | null;
}

/** One configurable LLM provider (unstable `providers/list`). */
export interface ProviderInfo {
  /** e.g. `main`, `openai` */
  providerId: string;
  /** the protocols this provider can speak */
  supported: LlmProtocol[];
  /** mandatory: a client must not call `providers/disable` for it */
  required: boolean;
  /** the effective routing; absent / `null` means disabled */
  current?: ProviderCurrentConfig | null;
  _meta?: Meta | null;
}

export interface ListProvidersResponse {
  providers: ProviderInfo[];
  _meta?: Meta | null;
}

/** `providers/set` (unstable): replaces the whole configuration of one provider. */
export interface SetProviderRequest {
  providerId: string;
  apiType: LlmProtocol;
  baseUrl: string;
  /** the full header map (may carry the authorization); replaces any earlier one */
  headers?: Record<string, string>;
  _meta?: Meta | null;
}

/** `providers/disable` (unstable). */
export interface DisableProviderRequest {
  providerId: string;
  _meta?: Meta | null;
}

/** The well-known auth states; anything else reads as `unknown` on the client. */
export const KNOWN_AUTH_STATES: readonly string[] = ['authenticated', 'unauthenticated', 'not_required', 'unknown'];
