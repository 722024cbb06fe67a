import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { messageOf } from '@acp-kit/agent/internal';
import { usageError } from '../errors.js';
import type { ModelBackend } from '../flags.js';
import { registryAgent } from '../registry-agent.js';
import { splitCommandLine } from '../split-command-line.js';
import { packageVersion } from '@acp-kit/protocol/internal';
import { serveLogger, type LogFormat, type ServeLogger } from './serve-log.js';
import type { MetricsEndpoint } from './serve-metrics.js';
import type { SessionStore } from '@acp-kit/agent';

/** Flags of `acp-kit serve`. */
export interface ServeFlags {
  host: string;
  port: number;
  token?: string;
  tokenFile?: string;
  agent?: string;
  /** `--registry URL|FILE` for an `--agent <id>` (else $ACP_KIT_REGISTRY, the official registry, the snapshot). */
  registry?: string;
  allowOrigin?: string[];
  maxMessageBytes?: number;
  maxBufferedBytes?: number;
  maxUnreadBytes?: number;
  maxPendingSockets?: number;
  maxPendingPerIp?: number;
  pendingTimeoutMs?: number;
  maxConnections?: number;
  maxSessions?: number;
  http2Port?: number;
  shutdownGrace?: number;
  model?: ModelBackend;
  modelName?: string;
  baseUrl?: string;
  verbose?: boolean;
  /** Folders session roots (cwd) must lie in (repeatable); with several tokens the default is each tenant's workspace. */
  allowedRoot?: string[];
  /** `jsonl` (default) or a `postgres://` URL. */
  store?: string;
  /** Cluster mode (a `postgres://` store): this instance's id in session leases. */
  instanceId?: string;
  /** Cluster mode: how long a session's owner holds it without renewing (ms). */
  leaseMs?: number;
  /** Serve Prometheus metrics on `GET /metrics` at this port (0: any free one). */
  metricsPort?: number;
  /** Address of the metrics endpoint (default 127.0.0.1). */
  metricsHost?: string;
  /** stderr lines as text (default) or one JSON object a line. */
  logFormat?: LogFormat;
}

/**
 * `acp-kit serve`: the built-in agent (in-process sessions, kept per token) or any stdio agent
 * (one process group per connection) on one `/acp` endpoint, WebSocket and Streamable HTTP.
 * Resolves with the exit code after SIGTERM/SIGINT: stop accepting, cancel turns, flush, exit 0.
 */
export async function serveCommand(flags: ServeFlags): Promise<number> {
  const { startAcpServer, isLoopbackHost, inProcessAgent, stdioAgent, cwdRootsCheck } = await import('@acp-kit/server');
  const { defaultSessionDir } = await import('@acp-kit/agent');
  if (flags.token !== undefined && flags.tokenFile !== undefined)
    throw usageError('give --token or --token-file, not both');
  const { tokens, generated } = tokensOf(flags, isLoopbackHost);
  checkStoreFlags(flags);
  const cleanup: (() => Promise<void>)[] = [];
  const logger = loggerFor(flags, tokens, generated);
  const log = logger.line;
  checkClusterFlags(flags);
  // before the stores and the cluster: they report into the global meter provider it registers
  const metricsEndpoint = await startMetricsFor(flags, cleanup);
  let cluster: Cluster | undefined;
  let storeFor: ((owner: string) => import('@acp-kit/agent').SessionStore) | undefined;
  let agent;
  let agentLabel: string;
  const external = await externalAgent(flags, log, stdioAgent);
  if (external) {
    agent = external.agent;
    agentLabel = external.label;
  } else {
    const [{ createCodingAgent }, { resolveModel }, { JsonlSessionStore, stderrLogger }] = await Promise.all([
      import('@acp-kit/coding-agent'),
      import('./agent.js'),
      import('@acp-kit/agent'),
    ]);
    const model = await resolveModel({ model: flags.model, modelName: flags.modelName, baseUrl: flags.baseUrl });
    const definition = createCodingAgent({
      model,
      info: { name: 'acp-kit-agent', version: packageVersion(), title: 'acp-kit coding agent' },
    });
    const base = defaultSessionDir(process.env);
    const postgres =
      flags.store && flags.store !== 'jsonl'
        ? await postgresStores(flags.store, cleanup, () => cluster?.instanceId)
        : undefined;
    // a PostgreSQL store: this instance is one of several on the database (cluster mode)
    if (postgres) cluster = await startCluster(flags, postgres.pool, log);
    storeFor = postgres?.storeFor;
    // each token's sessions in their own folder (namespace): one token can neither resume nor list another's
    const files = (owner: string) => new JsonlSessionStore({ dir: join(base, 'serve', owner) });
    if (metricsEndpoint) storeFor = await timedStores(storeFor ?? files, postgres ? 'postgres' : 'file');
    agent = inProcessAgent(definition, {
      storeFor: storeFor ?? files,
      logger: flags.verbose ? logger.agent(stderrLogger('acp-kit serve')) : undefined,
    });
    agentLabel = `built-in agent (${model.id}), in-process`;
  }
  if (cluster) {
    agent = cluster.agent(agent, storeFor);
    agentLabel += `; cluster instance ${cluster.instanceId} (lease ${cluster.leaseMs} ms)`;
  }
  const server = await startAcpServer({
    agent,
    tokens,
    ...tenantOptions(tokens.length, flags.allowedRoot, dirname(defaultSessionDir(process.env)), cwdRootsCheck),
    host: flags.host,
    port: flags.port,
    allowedOrigins: flags.allowOrigin,
    maxMessageBytes: flags.maxMessageBytes,
    maxBufferedBytes: flags.maxBufferedBytes,
    maxUnreadBytes: flags.maxUnreadBytes,
    maxPendingSockets: flags.maxPendingSockets,
    maxPendingSocketsPerIp: flags.maxPendingPerIp,
    pendingSocketTimeoutMs: flags.pendingTimeoutMs,
    maxConnections: flags.maxConnections,
    maxSessions: flags.maxSessions,
    http2Port: flags.http2Port,
    ...(cluster ? { readiness: () => cluster.readiness() } : {}),
    ...(metricsEndpoint ? { telemetry: { meterProvider: metricsEndpoint.meterProvider } } : {}),
    onRequestLog: logger.request,
    log,
  }).catch((e: Error & { code?: string }) => {
    void cluster?.stop();
    if (e.code === 'EADDRINUSE')
      throw usageError(
        `port ${flags.port} on ${flags.host} is in use`,
        'Pick another with --port, or --port 0 for any free one.',
      );
    throw usageError(e.message);
  });
  announce(logger, server, agentLabel, generated ? tokens[0] : undefined, metricsEndpoint?.url);
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    for (const s of ['SIGTERM', 'SIGINT'] as const) process.once(s, () => resolve(s));
  });
  logger.write('info', `${signal}: stopping (running turns are cancelled)`);
  // followers on other instances stop sending work here; they move once the leases are given back
  cluster?.beginStop();
  await server.close((flags.shutdownGrace ?? 5) * 1000);
  // after the turns ended: the leases are given back, so other instances take the sessions at once
  await cluster?.stop();
  for (const c of cleanup) await c().catch(() => undefined);
  logger.write('info', 'stopped');
  return 0;
}

/**
 * `--agent`: a registry id (`<id>[@version]`, installed once here, before listening) or a command
 * line, one process per connection; undefined without the flag (the built-in agent).
 */
async function externalAgent(
  flags: ServeFlags,
  log: (line: string) => void,
  stdioAgent: typeof import('@acp-kit/server').stdioAgent,
): Promise<{ agent: ReturnType<typeof stdioAgent>; label: string } | undefined> {
  const fromRegistry = await registryAgent(flags.agent, { registry: flags.registry });
  if (fromRegistry) {
    const env = { ...process.env, ...fromRegistry.env };
    const agent = stdioAgent(fromRegistry.command, fromRegistry.args, { log, env });
    return { agent, label: `${fromRegistry.display} (one process per connection)` };
  }
  if (flags.agent === undefined) return undefined;
  const words = splitCommandLine(flags.agent);
  if (words.length === 0 || !words[0]) throw usageError('--agent needs a command line, e.g. --agent "my-agent --acp"');
  return { agent: stdioAgent(words[0], words.slice(1), { log }), label: `${flags.agent} (one process per connection)` };
}

/** The tokens to accept; on loopback without one, a made-up token (`generated`, printed at start). */
function tokensOf(
  flags: ServeFlags,
  isLoopbackHost: (host: string) => boolean,
): { tokens: string[]; generated: boolean } {
  const tokens = readTokens(flags);
  if (tokens.length > 0) return { tokens, generated: false };
  if (!isLoopbackHost(flags.host)) {
    throw usageError(
      `refusing to serve on ${flags.host} without a token: anyone who can reach it could run the agent`,
      'Pass --token-file <file> (or --token, or $ACP_KIT_SERVE_TOKEN), or bind 127.0.0.1.',
    );
  }
  // other local users can reach loopback too: a token is still required, made up here
  return { tokens: [randomBytes(24).toString('base64url')], generated: true };
}

/** `--store` is the built-in agent's; `--instance-id` and `--lease-ms` need a cluster store. */
function checkStoreFlags(flags: ServeFlags): void {
  if (flags.store !== undefined && flags.agent !== undefined)
    throw usageError('--store applies to the built-in agent only (an --agent keeps its own sessions)');
  if (
    (flags.store === undefined || flags.store === 'jsonl') &&
    (flags.instanceId !== undefined || flags.leaseMs !== undefined)
  ) {
    throw usageError(
      '--instance-id and --lease-ms are for cluster mode',
      'Give --store postgres://… too (several instances share sessions through that database).',
    );
  }
}

/** The start lines: what is served where on stderr, then the machine-readable JSON line on stdout. */
function announce(
  logger: ServeLogger,
  server: { url: string; port: number; http2Url?: string | undefined },
  agentLabel: string,
  generatedToken: string | undefined,
  metricsUrl: string | undefined,
): void {
  const wsUrl = server.url.replace(/^http/, 'ws');
  const say = (msg: string): void => logger.write('info', msg);
  say(agentLabel);
  say(
    `listening on ${wsUrl} (WebSocket) and ${server.url} (Streamable HTTP); health: ${server.url.replace(/\/acp$/, '/healthz')}`,
  );
  if (server.http2Url)
    say(
      `Streamable HTTP over HTTP/2 (h2c) on ${server.http2Url}: acp-kit run --agent-url ${server.http2Url} --agent-http2`,
    );
  if (metricsUrl !== undefined) say(`Prometheus metrics on ${metricsUrl}`);
  // the generated token is shown once, outside the logger (which masks tokens); json refuses it earlier
  if (generatedToken !== undefined)
    process.stderr.write(`acp-kit serve: token (generated; pass --token-file to choose one): ${generatedToken}\n`);
  say(`connect with: ACP_KIT_AGENT_TOKEN=<token> acp-kit chat --agent-url ${wsUrl}`);
  // machine-readable first line on stdout: scripts and tests wait for it
  process.stdout.write(
    JSON.stringify({
      url: server.url,
      ws: wsUrl,
      port: server.port,
      ...(server.http2Url ? { http2: server.http2Url } : {}),
      ...(metricsUrl !== undefined ? { metrics: metricsUrl } : {}),
    }) + '\n',
  );
}

/**
 * `--store postgres://...`: one pool for the process, the schema brought up to date at start (an
 * unreachable database stops the start with a clear message), one store per token owner (namespace).
 */
async function postgresStores(
  url: string,
  cleanup: (() => Promise<void>)[],
  leaseOwner: () => string | undefined,
): Promise<{
  pool: import('@acp-kit/server/postgres').PgPool;
  storeFor: (owner: string) => import('@acp-kit/agent').SessionStore;
}> {
  const { createPostgresPool, postgresHostPort, PostgresSessionStore } = await import('@acp-kit/server/postgres');
  const { migrate } = await import('@acp-kit/server/postgres');
  const where = postgresHostPort(url);
  if (!where)
    throw usageError(
      `--store must be jsonl or a postgres:// URL (got ${JSON.stringify(url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@'))})`,
    );
  const pool = await createPostgresPool({ url });
  cleanup.push(() => pool.end());
  try {
    await migrate(pool);
  } catch (e) {
    await pool.end().catch(() => undefined);
    throw usageError(
      `the session store (PostgreSQL at ${where}) is unreachable or refused the schema: ${messageOf(e)}`,
      'Check that the server runs and the URL is right (acp-kit db migrate --url ... tells more).',
    );
  }
  // one store per owner, kept: the agent and the cluster write each session's rows through the same
  // one (one writer per session), announcing them to the other instances (NOTIFY), fenced by this
  // instance's leases (stores are made once the cluster runs, so its id is known)
  const stores = new Map<string, InstanceType<typeof PostgresSessionStore>>();
  cleanup.unshift(
    async () => void (await Promise.all([...stores.values()].map((s) => s.close().catch(() => undefined)))),
  );
  const storeFor = (owner: string) => {
    let store = stores.get(owner);
    if (!store)
      stores.set(
        owner,
        (store = new PostgresSessionStore({
          pool,
          namespace: owner,
          migrate: false,
          fanOut: true,
          leaseOwner: leaseOwner(),
        })),
      );
    return store;
  };
  return { pool, storeFor };
}

/**
 * Cluster mode: with a PostgreSQL store, this instance is one of several on the database (leases,
 * fan-out between instances, failover; docs/postgres-cluster.md), on the store's pool.
 */
async function startCluster(
  flags: ServeFlags,
  pool: import('@acp-kit/server/postgres').PgPool,
  log: (line: string) => void,
): Promise<Cluster> {
  const { ClusterNode } = await import('@acp-kit/server');
  try {
    return await ClusterNode.start({ pool, instanceId: flags.instanceId, leaseMs: flags.leaseMs, log });
  } catch (e) {
    throw usageError(
      `cluster mode: cannot start on the database: ${messageOf(e)}`,
      'Check that PostgreSQL is running and the URL is right (`acp-kit db migrate --url …` tells more).',
    );
  }
}

type Cluster = import('@acp-kit/server').ClusterNode;

/** The cluster flags, checked before anything connects. */
function checkClusterFlags(flags: ServeFlags): void {
  if (flags.instanceId !== undefined && !/^[\w.:-]{1,100}$/.test(flags.instanceId)) {
    throw usageError(
      `--instance-id must be 1-100 letters, digits, '.', ':', '_' or '-' (got ${JSON.stringify(flags.instanceId)})`,
    );
  }
  if (flags.leaseMs !== undefined && flags.leaseMs < 300) {
    throw usageError(
      `--lease-ms must be at least 300 (got ${flags.leaseMs}): an instance renews its leases every third of it`,
      'Use 10000 (the default) unless failover must be faster.',
    );
  }
}

/**
 * What keeps tenants apart (`dataRoot`: the folder whose `sessions` the built-in agent uses; the
 * server's own files sit beside it): who opened which session survives a restart (a stdio agent's
 * store knows no tokens), and with several tenants or roots asked for, sessions are rooted in
 * allowed folders only, never over the data.
 */
function tenantOptions(
  tokenCount: number,
  allowedRoots: string[] | undefined,
  dataRoot: string,
  check: typeof import('@acp-kit/server').cwdRootsCheck,
): { ownersFile: string; checkCwd?: import('@acp-kit/server').CwdCheck } {
  const roots = allowedRoots?.map((r) => resolve(r));
  const ownersFile = join(dataRoot, 'serve', 'owners.json');
  if (tokenCount < 2 && !roots) return { ownersFile };
  return {
    ownersFile,
    checkCwd: check({
      roots,
      dataDir: dataRoot,
      workspaceOf: (owner) => join(dataRoot, 'tenants', owner, 'workspace'),
    }),
  };
}

/** The token rule, checked at start: a guessable token is worse than none (it looks safe). */
export const TOKEN_RULE =
  'a token needs at least 16 characters, at least 8 of them different (e.g. openssl rand -hex 24)';

/**
 * The tokens given: `--token`, `--token-file` (one token per line; blank lines and lines starting
 * with `#` skipped: each line is one tenant) or `$ACP_KIT_SERVE_TOKEN`. A set but blank variable is
 * an error, not "no token" (a deployment that lost its secret must not start open); so is a weak token.
 */
function readTokens(flags: ServeFlags): string[] {
  let tokens: string[];
  let source: string;
  if (flags.tokenFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(flags.tokenFile, 'utf8');
    } catch (e) {
      throw usageError(
        `cannot read --token-file ${flags.tokenFile}: ${messageOf(e)}`,
        `Create it first (one token a line), e.g. openssl rand -hex 24 > ${flags.tokenFile}; without a token a loopback bind generates one and prints it.`,
      );
    }
    tokens = text
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
    if (tokens.length === 0)
      throw usageError(
        `--token-file ${flags.tokenFile} is empty`,
        'Write the token (one a line; # starts a comment) into the file.',
      );
    source = `--token-file ${flags.tokenFile}`;
  } else if (flags.token !== undefined) {
    tokens = [flags.token];
    source = '--token';
  } else if (process.env.ACP_KIT_SERVE_TOKEN !== undefined) {
    if (process.env.ACP_KIT_SERVE_TOKEN.trim() === '')
      throw usageError(
        '$ACP_KIT_SERVE_TOKEN is set but blank',
        'Put the token in it, or unset it (a loopback bind then generates one).',
      );
    tokens = [process.env.ACP_KIT_SERVE_TOKEN.trim()];
    source = '$ACP_KIT_SERVE_TOKEN';
  } else return [];
  tokens.forEach((t, i) => {
    if (t.length < 16 || new Set(t).size < 8)
      throw usageError(
        `weak token in ${source}${tokens.length > 1 ? ` (token ${i + 1})` : ''}: ${TOKEN_RULE}`,
        'Make one with: openssl rand -hex 24',
      );
  });
  if (new Set(tokens).size !== tokens.length)
    throw usageError(`${source} holds the same token twice: each line is one tenant`);
  return tokens;
}

/** `--metrics-port`: the Prometheus endpoint (closed last at stop), or undefined without the flag. */
async function startMetricsFor(
  flags: ServeFlags,
  cleanup: (() => Promise<void>)[],
): Promise<MetricsEndpoint | undefined> {
  if (flags.metricsPort === undefined) return undefined;
  const { startMetrics } = await import('./serve-metrics.js');
  const host = flags.metricsHost ?? '127.0.0.1';
  const endpoint = await startMetrics(host, flags.metricsPort).catch((e: Error & { code?: string }) => {
    throw usageError(
      `cannot serve metrics on ${host}:${flags.metricsPort}: ${e.message}`,
      'Pick another with --metrics-port, or --metrics-port 0 for any free one.',
    );
  });
  cleanup.push(() => endpoint.close());
  return endpoint;
}

/** The logger of `--log-format` (json refuses a generated token: it would have to print it). */
function loggerFor(flags: ServeFlags, tokens: readonly string[], generated: boolean): ServeLogger {
  const logger = serveLogger(flags.logFormat ?? 'text', flags.verbose ?? false, tokens);
  if (generated && logger.format === 'json')
    throw usageError('--log-format json never logs a token, so it cannot print a generated one', 'Pass --token-file.');
  return logger;
}

/** `storeFor` timed per owner (`acp.store.operation.duration`); the metrics module loads only with `--metrics-port`. */
async function timedStores(
  storeFor: (owner: string) => SessionStore,
  kind: string,
): Promise<(owner: string) => SessionStore> {
  return (await import('./serve-metrics.js')).timedStores(storeFor, kind);
}
