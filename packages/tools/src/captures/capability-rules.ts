import {
  agentMethodSupported,
  codecFor,
  type AgentCapabilities,
  type AgentMethod,
  type AuthMethod,
} from '@acp-kit/protocol';
import type { CaptureFrame } from './capture.js';
import type { Violation } from './violation.js';

/**
 * The session methods a client may call only when the agent's initialize advertised them, each
 * spelled the same in both versions (so the wire name is the model's). The auth methods, renamed
 * between versions, are left to the schema.
 */
const GATED: readonly AgentMethod[] = [
  'session/load',
  'session/list',
  'session/resume',
  'session/close',
  'session/delete',
  'session/fork',
  'session/archive',
  'session/unarchive',
  'session/status',
  'session/set_title',
];

/** The requirement a call of an unadvertised method breaks: delete has its own, the rest the general one. */
const REQUIREMENT: Partial<Record<AgentMethod, string>> = { 'session/delete': 'ACP-ALL-DEL-01' };

/**
 * Capability gating of the capture validator: a client calls a gated session method only when the
 * agent advertised it (ACP-ALL-CAP-01: an absent capability is unsupported; ACP-ALL-DEL-01 for
 * session/delete). Judged only once the capture holds the agent's initialize answer.
 */
export class CapabilityRules {
  private advertised: { capabilities: AgentCapabilities; authMethods: readonly AuthMethod[] } | undefined;

  /** The agent's initialize result, decoded in its version; one that does not decode judges nothing. */
  initialized(version: 1 | 2, result: unknown): void {
    try {
      const r = codecFor(version).decodeResult('initialize', result);
      this.advertised = { capabilities: r.agentCapabilities, authMethods: r.authMethods ?? [] };
    } catch {
      this.advertised = undefined;
    }
  }

  /** An editor->agent request. */
  call(frame: CaptureFrame, version: 1 | 2 | undefined, method: string): Violation[] {
    const known = this.advertised;
    const gated = GATED.find((m) => m === method);
    if (!known || version === undefined || gated === undefined) return [];
    if (agentMethodSupported(gated, version, known.capabilities, known.authMethods)) return [];
    const marker = gated.replace('session/', '').replace('set_title', 'title').replace('unarchive', 'archive');
    const where =
      gated === 'session/load'
        ? 'agentCapabilities.loadSession'
        : version === 1
          ? `agentCapabilities.sessionCapabilities.${marker}`
          : `capabilities.session.${marker}`;
    return [
      {
        rule: 'method-not-advertised',
        requirement: REQUIREMENT[gated] ?? 'ACP-ALL-CAP-01',
        seqs: [frame.seq],
        message: `the editor called ${gated}, which the agent's initialize did not advertise (${where} absent)`,
      },
    ];
  }
}
