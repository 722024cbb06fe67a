/**
 * The built-in agent's model providers as the unstable `providers/*` and `auth/status` see them
 * (custom LLM endpoint RFD): `openai` (any OpenAI-compatible Chat Completions endpoint) and
 * `anthropic` (the Messages API). A client's `providers/set` replaces one provider's base URL and
 * headers and makes it the one new turns use; `providers/disable` turns it off. Per process, never
 * written to disk (the RFD), and the AI SDK is loaded only when a provider's model is built.
 */
import {
  AcpError,
  type AuthAccount,
  type AuthStatus,
  type ProviderInfo,
  type SetProviderRequest,
} from '@acp-kit/protocol';
import type { LanguageModel } from '../model.js';

/** The providers this agent can route to; each speaks the protocol of its name. */
export type ModelProviderId = 'openai' | 'anthropic';
const IDS: readonly ModelProviderId[] = ['openai', 'anthropic'];
const LABELS: Record<ModelProviderId, string> = { openai: 'OpenAI API key', anthropic: 'Anthropic API key' };
/** The default model names; keep in step with DEFAULT_MODEL_NAMES in src/cli/model-choice.ts. */
const DEFAULT_NAMES: Record<ModelProviderId, string> = { openai: 'gpt-4o-mini', anthropic: 'claude-sonnet-4-5' };

/** One provider's routing: where requests go and with which credentials. */
export interface ProviderRoute {
  baseUrl: string;
  /** sent with every request (a client's `providers/set` headers, which may carry the key) */
  headers?: Record<string, string>;
  /** the API key the agent was started with */
  apiKey?: string;
  /** model name (default: gpt-4o-mini / claude-sonnet-4-5) */
  modelName?: string;
}

/** Options of {@link ModelProviders}. */
export interface ModelProvidersOptions {
  /** The model the agent started with (its provider, if any, is `startedOn`). */
  model: LanguageModel;
  /** The provider the starting model runs on, with its routing; absent for the demo model. */
  startedOn?: { providerId: ModelProviderId; route: ProviderRoute };
  /** Context window passed to built models. */
  contextWindow?: number;
  /** Builds a provider's model (default: the AI SDK providers); for tests and proxies. */
  build?: (providerId: ModelProviderId, route: ProviderRoute) => Promise<LanguageModel> | LanguageModel;
}

/** Whether a route carries a credential: a key, or an authorization / x-api-key header. */
function hasKey(route: ProviderRoute): boolean {
  if (route.apiKey) return true;
  return Object.keys(route.headers ?? {}).some((h) =>
    ['authorization', 'x-api-key', 'api-key'].includes(h.toLowerCase()),
  );
}

/** The key in a route's headers (`x-api-key`, or `authorization: Bearer <key>`), for SDKs that want it apart. */
function headerKey(headers: Record<string, string>): string | undefined {
  for (const [name, value] of Object.entries(headers)) {
    const n = name.toLowerCase();
    if (n === 'x-api-key') return value;
    if (n === 'authorization') return /^Bearer\s+(.+)$/i.exec(value)?.[1];
  }
  return undefined;
}

async function buildWithAiSdk(
  providerId: ModelProviderId,
  route: ProviderRoute,
  contextWindow?: number,
): Promise<LanguageModel> {
  const { createAnthropicModel, createOpenAICompatibleModel } = await import('./providers.js');
  const headers = route.headers ?? {};
  const modelName = route.modelName ?? DEFAULT_NAMES[providerId];
  if (providerId === 'openai')
    return createOpenAICompatibleModel({
      modelName,
      baseUrl: route.baseUrl,
      apiKey: route.apiKey,
      headers,
      contextWindow,
    });
  // the Anthropic SDK sends `x-api-key` itself and wants the key apart from the other headers
  const apiKey = route.apiKey ?? headerKey(headers);
  const rest = Object.fromEntries(Object.entries(headers).filter(([n]) => n.toLowerCase() !== 'x-api-key'));
  return createAnthropicModel({ modelName, baseUrl: route.baseUrl, apiKey, headers: rest, contextWindow });
}

/** What watchers of the auth status are told. */
type Listener = (status: AuthStatus) => void;

/**
 * The routing state: which providers are enabled with which route, which one new turns use, and
 * the auth status that follows from it. Feed it to `createCodingAgent({ providers })`.
 */
export class ModelProviders {
  private readonly routes = new Map<ModelProviderId, ProviderRoute>();
  /** the provider new turns use; `undefined`: the starting model (the demo when it had none) */
  private active: ModelProviderId | undefined;
  private readonly built = new Map<ModelProviderId, { route: ProviderRoute; model: Promise<LanguageModel> }>();
  private readonly listeners = new Set<Listener>();

  constructor(private readonly options: ModelProvidersOptions) {
    const s = options.startedOn;
    if (s) {
      this.routes.set(s.providerId, s.route);
      this.active = s.providerId;
      this.built.set(s.providerId, { route: s.route, model: Promise.resolve(options.model) });
    }
  }

  /** `providers/list`: both providers, the enabled ones with their routing (never the headers). */
  list(): ProviderInfo[] {
    return IDS.map((providerId) => {
      const route = this.routes.get(providerId);
      return {
        providerId,
        supported: [providerId],
        required: false,
        current: route ? { apiType: providerId, baseUrl: route.baseUrl } : null,
      };
    });
  }

  /** `providers/set` (the runtime checked the id and the protocol): new turns use this provider. */
  set(request: SetProviderRequest): void {
    const providerId = this.id(request.providerId);
    const before = this.routes.get(providerId);
    // the full configuration is replaced; the model name and startup key stay unless headers carry one
    const route: ProviderRoute = {
      baseUrl: request.baseUrl,
      headers: request.headers ?? {},
      ...(before?.modelName ? { modelName: before.modelName } : {}),
    };
    this.routes.set(providerId, route);
    this.built.delete(providerId);
    this.active = providerId;
    this.changed();
  }

  /** `providers/disable`: the provider gets no more requests; new turns use another enabled one. */
  disable(providerId: string): void {
    const id = this.id(providerId);
    this.routes.delete(id);
    this.built.delete(id);
    if (this.active === id) this.active = IDS.find((p) => this.routes.has(p));
    this.changed();
  }

  /** The model for a new turn. Throws when every provider of a provider-started agent is disabled. */
  async current(): Promise<LanguageModel> {
    const id = this.active;
    if (id === undefined) {
      if (this.options.startedOn)
        throw AcpError.internal(
          `every model provider is disabled; enable one with providers/set (${IDS.join(' or ')}) and try again`,
        );
      return this.options.model;
    }
    const route = this.routes.get(id);
    if (!route) throw AcpError.internal(`provider ${id} is active but has no route`);
    let entry = this.built.get(id);
    if (!entry || entry.route !== route) {
      const build = this.options.build ?? ((p, r) => buildWithAiSdk(p, r, this.options.contextWindow));
      entry = { route, model: Promise.resolve(build(id, route)) };
      this.built.set(id, entry);
    }
    return entry.model;
  }

  /** `auth/status`: `not_required` on the demo model, else whether the active provider has a key. */
  status(): AuthStatus {
    const accounts: AuthAccount[] = IDS.flatMap((id) => {
      const route = this.routes.get(id);
      return route && hasKey(route) ? [{ label: LABELS[id], active: id === this.active }] : [];
    });
    const active = this.active === undefined ? undefined : this.routes.get(this.active);
    const state = active
      ? hasKey(active)
        ? 'authenticated'
        : 'unauthenticated'
      : this.options.startedOn
        ? 'unauthenticated'
        : 'not_required';
    return accounts.length > 0 ? { state, accounts } : { state };
  }

  /** Status changes, for `auth/status_update`; returns the function that stops them. */
  watch(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    const status = this.status();
    for (const l of [...this.listeners]) l(status);
  }

  private id(providerId: string): ModelProviderId {
    const id = IDS.find((p) => p === providerId);
    if (!id)
      throw AcpError.invalidParams(`params.providerId: unknown provider ${JSON.stringify(providerId)}`, {
        path: 'params.providerId',
      });
    return id;
  }
}
