import { JsonRpcPeer, spawnAgent, type AgentProcess } from '@acp-kit/protocol/rpc';
import { ProxyMethods, readProxySuccessor } from '@acp-kit/protocol';
import type { ChainCommand } from './links.js';
import { agentAdvertisesMcpOverAcp } from '../mcp-over-acp/index.js';

/** One judged case of `acp-kit check proxy`. */
export interface ProxyCaseResult {
  id: string;
  version: 1 | 2;
  level: 'MUST' | 'SHOULD';
  /** Where the rule is written (no requirement ID of spec-digest.md covers proxy chains yet). */
  source: string;
  verdict: 'pass' | 'fail';
  detail: string;
}

export interface ProxyCheckReport {
  results: ProxyCaseResult[];
  /** No MUST failed. */
  conformant: boolean;
}

const RFD = 'Proxy Chains RFD';
const SCHEMA = 'schema.unstable.json';
const PROBE = '_acpkit/check_probe';

/** What the fake conductor saw from the component, in order. */
interface Seen {
  /** `proxy/successor` envelopes the component sent: inner method and params. */
  down: Array<{ method: string; params: unknown }>;
  /** plain messages the component sent towards the editor */
  up: Array<{ method: string; params: unknown }>;
}

/**
 * Checks a proxy component against the Proxy Chains RFD's rules for proxies: this process plays
 * the conductor and a scripted successor agent, over the component's real stdio, once per
 * protocol version (a fresh process each).
 */
export async function checkProxy(
  component: ChainCommand,
  options: { timeoutMs?: number } = {},
): Promise<ProxyCheckReport> {
  const results: ProxyCaseResult[] = [];
  for (const version of [1, 2] as const)
    results.push(...(await checkVersion(component, version, options.timeoutMs ?? 10_000)));
  return { results, conformant: results.every((r) => r.level !== 'MUST' || r.verdict === 'pass') };
}

function initializeParams(version: 1 | 2): Record<string, unknown> {
  const base = { protocolVersion: version, clientCapabilities: {} };
  return version === 2 ? { ...base, info: { name: 'acp-kit-check-proxy', version: '1' } } : base;
}

/**
 * What the successor's `initialize` answer looks like to a proxy under a conductor: MCP over ACP
 * advertised, whatever the agent supports (Proxy Chains RFD: "The conductor always advertises
 * `mcpCapabilities.acp: true` to proxies").
 */
function conductorInitializeAnswer(version: 1 | 2): Record<string, unknown> {
  if (version === 1)
    return { protocolVersion: 1, agentCapabilities: { mcpCapabilities: { acp: true } }, authMethods: [] };
  return {
    protocolVersion: 2,
    capabilities: { session: { mcp: { stdio: {}, acp: {} } } },
    info: { name: 'acp-kit-check-proxy', version: '1' },
  };
}

/** The scripted successor: answers `initialize` as an agent of `version` and echoes the probe. */
function scriptSuccessor(peer: JsonRpcPeer, version: 1 | 2, seen: Seen): void {
  peer.onRequest(ProxyMethods.successor, (params) => {
    const env = readProxySuccessor(version, 'request', params);
    seen.down.push({ method: env.method, params: env.params });
    if (env.method === 'initialize') return conductorInitializeAnswer(version);
    return { echoed: env.params ?? null };
  });
  peer.onNotification(ProxyMethods.successor, (params) => {
    const env = readProxySuccessor(version, 'notification', params);
    seen.down.push({ method: env.method, params: env.params });
  });
  peer.onOtherNotification((method, params) => void seen.up.push({ method, params }));
  peer.onOtherRequest((method, params) => {
    seen.up.push({ method, params });
    return {};
  });
}

async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer to ${what} within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, t]);
  } finally {
    clearTimeout(timer);
  }
}

async function checkVersion(component: ChainCommand, version: 1 | 2, ms: number): Promise<ProxyCaseResult[]> {
  const proc: AgentProcess = spawnAgent(component.command, [...(component.args ?? [])], {
    cwd: component.cwd,
    env: component.env,
    onStderr: () => undefined,
  });
  const peer = new JsonRpcPeer(proc.transport);
  const seen: Seen = { down: [], up: [] };
  scriptSuccessor(peer, version, seen);
  const out: ProxyCaseResult[] = [];
  const judge = (id: string, level: ProxyCaseResult['level'], source: string, ok: boolean, detail: string): void =>
    void out.push({ id, version, level, source, verdict: ok ? 'pass' : 'fail', detail });
  try {
    await initializeCases(peer, version, ms, seen, judge);
    await forwardingCases(peer, ms, seen, judge);
  } catch (e) {
    judge('proxy/answers', 'MUST', `${RFD}, "Proxy initialization protocol"`, false, String(e));
  } finally {
    peer.close();
    await proc.kill();
  }
  return out;
}

type Judge = (id: string, level: ProxyCaseResult['level'], source: string, ok: boolean, detail: string) => void;

async function initializeCases(peer: JsonRpcPeer, version: 1 | 2, ms: number, seen: Seen, judge: Judge): Promise<void> {
  const answer = await withTimeout(
    peer.request(ProxyMethods.initialize, initializeParams(version)),
    ms,
    'proxy/initialize',
  );
  const forwarded = seen.down.find((m) => m.method === 'initialize');
  judge(
    'proxy/initialize-forwards',
    'MUST',
    `${SCHEMA} InitializeProxyRequest ("before answering successfully, the proxy MUST forward an initialize request to its successor")`,
    forwarded !== undefined,
    forwarded ? 'initialize reached the successor before the answer' : 'answered without forwarding initialize',
  );
  const pv: unknown =
    typeof answer === 'object' && answer !== null && 'protocolVersion' in answer ? answer.protocolVersion : undefined;
  judge(
    'proxy/initialize-version',
    'MUST',
    `${SCHEMA} InitializeProxyResponse ("It MUST NOT change protocolVersion")`,
    pv === version,
    `answered protocolVersion ${JSON.stringify(pv)} (the successor answered ${version})`,
  );
  const acp = agentAdvertisesMcpOverAcp(answer);
  judge(
    'proxy/initialize-mcp-acp',
    'MUST',
    `${RFD}, "MCP-over-ACP support" ("All proxies MUST respond to proxy/initialize with the MCP-over-ACP capability enabled")`,
    acp,
    acp
      ? `the answer advertises MCP over ACP (${version === 1 ? 'agentCapabilities.mcpCapabilities.acp' : 'capabilities.session.mcp.acp'})`
      : `the answer does not advertise MCP over ACP (${version === 1 ? 'agentCapabilities.mcpCapabilities.acp' : 'capabilities.session.mcp.acp'}), though the successor did`,
  );
}

async function forwardingCases(peer: JsonRpcPeer, ms: number, seen: Seen, judge: Judge): Promise<void> {
  const params = { probe: 1, _meta: { 'acp-kit/check': 'kept' } };
  // an error answer is a verdict here, not a broken component
  const answer = await withTimeout(settled(peer.request(PROBE, params)), ms, PROBE);
  const down = seen.down.find((m) => m.method === PROBE);
  judge(
    'proxy/forwards-unknown',
    'SHOULD',
    `${RFD}, "Proxy behavior" ("The proxy SHOULD forward requests it does not understand")`,
    down !== undefined && JSON.stringify(answer) === JSON.stringify({ echoed: params }),
    down ? `forwarded; answer back ${JSON.stringify(answer)}` : `not forwarded; answered ${JSON.stringify(answer)}`,
  );
  judge(
    'proxy/preserves-meta',
    'SHOULD',
    `${RFD}, "Proxy behavior" ("The proxy SHOULD preserve metadata fields when forwarding messages")`,
    down !== undefined && JSON.stringify(down.params) === JSON.stringify(params),
    down ? `forwarded params ${JSON.stringify(down.params)}` : 'nothing forwarded',
  );
  // a notification from the successor: delivered wrapped, it must come out plain towards the editor;
  // the probe request after it proves the order (its echo arrives after the notification would have)
  peer.notify(ProxyMethods.successor, { method: '_acpkit/check_note', params: { n: 1 } });
  await withTimeout(settled(peer.request(PROBE, { after: 1 })), ms, PROBE);
  const up = seen.up.find((m) => m.method === '_acpkit/check_note');
  judge(
    'proxy/delivers-upward',
    'SHOULD',
    `${RFD}, "Message reference" (a message from the successor arrives in proxy/successor and goes on to the predecessor)`,
    up !== undefined,
    up ? 'the notification reached the predecessor unwrapped' : 'the notification did not reach the predecessor',
  );
}

/** The result, or `{ error }` with the error's text when the request failed. */
function settled(p: Promise<unknown>): Promise<unknown> {
  return p.catch((e: unknown) => ({ error: e instanceof Error ? e.message : String(e) }));
}
