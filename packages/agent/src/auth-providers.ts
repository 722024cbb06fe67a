import {
  AcpError,
  type AuthStatus,
  type DisableProviderRequest,
  type ListProvidersResponse,
  type ProviderInfo,
  type SetProviderRequest,
} from '@acp-kit/protocol';

/**
 * Unstable `auth/status` (schema.unstable.json of both versions): advertised as `auth.status`
 * only when {@link AgentDefinition.auth} is given, -32601 otherwise.
 */
export interface AgentAuthStatusSource {
  /**
   * The current state, e.g. whether a key is configured. Must not change anything; never refuse
   * it with auth_required (-32000): clients call it to learn whether they must authenticate.
   */
  status(): AuthStatus | Promise<AuthStatus>;
  /**
   * Pushes changes as `auth/status_update`: called once per connection after `initialize` with the
   * function that sends one (a status equal to the last one sent on the connection is not sent
   * again, the schema's SHOULD); returns the function that stops watching, called when the
   * connection ends.
   */
  watch?(push: (status: AuthStatus) => void): () => void;
}

/**
 * Unstable `providers/list|set|disable` (custom LLM endpoints): advertised as `providers` only when
 * {@link AgentDefinition.providers} is given. The runtime refuses with -32602, before calling
 * `set`/`disable`, an unknown provider id, an `apiType` the provider does not list in
 * `supported`, and disabling a `required` provider.
 */
export interface AgentProviders {
  /** The configurable providers with their effective (non-secret) routing. */
  list(): ProviderInfo[] | Promise<ProviderInfo[]>;
  /** Replaces the whole configuration of one provider (base URL, protocol, headers). */
  set(request: SetProviderRequest): void | Promise<void>;
  /** Disables one provider (its `current` becomes absent). */
  disable(providerId: string): void | Promise<void>;
}

async function known(providers: AgentProviders, providerId: string): Promise<ProviderInfo> {
  const list = await providers.list();
  const found = list.find((p) => p.providerId === providerId);
  if (!found)
    throw AcpError.invalidParams(
      `params.providerId: ${JSON.stringify(providerId)} is not a provider of this agent (${list.map((p) => p.providerId).join(', ') || 'none'})`,
      { path: 'params.providerId' },
    );
  return found;
}

/** `providers/list`. */
export async function listProviders(providers: AgentProviders): Promise<ListProvidersResponse> {
  return { providers: await providers.list() };
}

/** `providers/set`, after the runtime's checks. */
export async function setProvider(providers: AgentProviders, p: SetProviderRequest): Promise<void> {
  const info = await known(providers, p.providerId);
  if (!info.supported.includes(p.apiType))
    throw AcpError.invalidParams(
      `params.apiType: provider ${JSON.stringify(p.providerId)} speaks ${info.supported.join(', ') || 'no protocol'}, not ${JSON.stringify(p.apiType)}`,
      { path: 'params.apiType' },
    );
  await providers.set(p);
}

/** `providers/disable`, after the runtime's checks (a required provider is never disabled). */
export async function disableProvider(providers: AgentProviders, p: DisableProviderRequest): Promise<void> {
  const info = await known(providers, p.providerId);
  if (info.required)
    throw AcpError.invalidParams(
      `params.providerId: provider ${JSON.stringify(p.providerId)} is required and cannot be disabled`,
      { path: 'params.providerId' },
    );
  await providers.disable(p.providerId);
}

/**
 * Per connection: which auth status was sent last (result or notification), so that an update
 * equal to it is not sent again.
 */
export class AuthStatusTracker {
  private last: string | undefined;

  /** Records `status` as sent; `false` when it equals the last one. */
  changed(status: AuthStatus): boolean {
    const key = JSON.stringify(status);
    if (key === this.last) return false;
    this.last = key;
    return true;
  }
}
