/**
 * `acp-kit providers list|set|disable`: the agent's unstable `providers/*` (custom LLM endpoints),
 * only when it advertises the `providers` capability (exit code "unsupported" otherwise).
 */
import type { ProviderInfo, SetProviderRequest } from '@acp-kit/protocol';
import { toCliError, usageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import type { SessionsFlags } from '../flags.js';
import { resultLine } from '../render/ndjson-events.js';
import type { OpenAgent } from '../session-runner.js';
import { colorEnabled, createStyle, stripAnsi } from '../style.js';
import { requireCapability } from './auth.js';
import { withAgent } from './sessions.js';

export interface ProvidersSetFlags extends SessionsFlags {
  /** `--endpoint`: not `--base-url`, which names the built-in agent's own model URL */
  endpoint?: string;
  apiType?: string;
  header?: string[];
  apiKeyEnv?: string;
}

const WELL_KNOWN = ['anthropic', 'openai', 'azure', 'vertex', 'bedrock'];

/** Runs one providers request; prints `text` or, with --json, the result line with `fields`. */
function providersCommand(
  flags: SessionsFlags,
  method: 'providers/list' | 'providers/set' | 'providers/disable',
  call: (a: OpenAgent) => Promise<{ text: string; fields: Record<string, unknown> }>,
): Promise<number> {
  return withAgent(flags, async (a) => {
    requireCapability(a, method, 'provider configuration');
    let out: { text: string; fields: Record<string, unknown> };
    try {
      out = await call(a);
    } catch (e) {
      throw toCliError(e, a.ctx);
    }
    process.stdout.write(flags.json ? resultLine(ExitCode.Ok, out.fields) : `${out.text}\n`);
    return ExitCode.Ok;
  });
}

function providerLine(p: ProviderInfo): string {
  const where = p.current ? `${stripAnsi(p.current.apiType)}  ${stripAnsi(p.current.baseUrl)}` : 'disabled';
  const flags = [p.required ? 'required' : '', `speaks ${p.supported.map(stripAnsi).join(', ') || '-'}`].filter(
    Boolean,
  );
  return `${stripAnsi(p.providerId)}  ${where}  (${flags.join('; ')})`;
}

/** `acp-kit providers list`. */
export function providersListCommand(flags: SessionsFlags): Promise<number> {
  return providersCommand(flags, 'providers/list', async (a) => {
    const providers = await a.conn.listProviders();
    const style = createStyle(colorEnabled(process.stdout));
    const text = providers.length ? providers.map(providerLine).join('\n') : style.dim('(no providers)');
    return { text, fields: { providers } };
  });
}

/** The request `providers set` sends: headers from `--header` and `--api-key-env`; usage errors before the agent starts. */
export function providerRequest(
  providerId: string,
  flags: ProvidersSetFlags,
  env: NodeJS.ProcessEnv = process.env,
): SetProviderRequest {
  // checked here, not by commander, so that an unknown flag is reported first (as for every command)
  const baseUrl = flags.endpoint;
  if (!baseUrl) throw usageError('--endpoint <url> is required');
  const apiType = flags.apiType ?? (WELL_KNOWN.includes(providerId) ? providerId : undefined);
  if (!apiType) throw usageError(`--api-type is needed for provider ${JSON.stringify(providerId)}`);
  const headers: Record<string, string> = {};
  for (const h of flags.header ?? []) {
    const colon = h.indexOf(':');
    if (colon <= 0) throw usageError(`--header must be "Name: value" (got ${JSON.stringify(h)})`);
    headers[h.slice(0, colon).trim()] = h.slice(colon + 1).trim();
  }
  if (flags.apiKeyEnv !== undefined) {
    const key = env[flags.apiKeyEnv];
    if (!key) throw usageError(`--api-key-env: $${flags.apiKeyEnv} is not set`);
    if (apiType === 'anthropic') headers['x-api-key'] = key;
    else headers.Authorization = `Bearer ${key}`;
  }
  return { providerId, apiType, baseUrl, ...(Object.keys(headers).length ? { headers } : {}) };
}

/** `acp-kit providers set <id> --endpoint <url>`: prints the provider as listed afterwards (never the headers). */
export function providersSetCommand(providerId: string, flags: ProvidersSetFlags): Promise<number> {
  let request: SetProviderRequest;
  try {
    request = providerRequest(providerId, flags);
  } catch (e) {
    return Promise.reject(e);
  }
  return providersCommand(flags, 'providers/set', async (a) => {
    await a.conn.setProvider(request);
    const now = a.conn.supports('providers/list')
      ? (await a.conn.listProviders()).find((p) => p.providerId === providerId)
      : undefined;
    return {
      text: now ? providerLine(now) : `${providerId}  set`,
      fields: { providerId, apiType: request.apiType, baseUrl: request.baseUrl, current: now?.current ?? null },
    };
  });
}

/** `acp-kit providers disable <id>`. */
export function providersDisableCommand(providerId: string, flags: SessionsFlags): Promise<number> {
  return providersCommand(flags, 'providers/disable', async (a) => {
    await a.conn.disableProvider(providerId);
    return { text: `${providerId}  disabled`, fields: { providerId, disabled: true } };
  });
}
