import {
  type ClientCapabilities,
  Methods,
  type ClientMethod,
  type ParamsOf,
  type ReadTextFileRequest,
  type ResultOf,
} from '@acp-kit/protocol';
import type { ClientServices, ClientTerminal } from './types.js';

/** Sends one request to the client in the connection's wire format; resolves with the decoded result. */
export type ClientRequester = <M extends ClientMethod>(
  method: M,
  params: ParamsOf<M>,
  signal?: AbortSignal,
) => Promise<ResultOf<M>>;

/**
 * The agent's side of the v1 client services of one session (the client runtime answers them in
 * @acp-kit/client's `services/`): `fs/*` and `terminal/*` requests, each present only
 * when the client advertised it (ACP-V1-FS-01/02, ACP-V1-TERM-01). v2 has none (its lifecycle
 * does not call this).
 */
export function createClientRequests(
  caps: ClientCapabilities,
  sessionId: string,
  request: ClientRequester,
): ClientServices {
  const services: ClientServices = {};
  if (caps.fs?.readTextFile === true) {
    services.readTextFile = async (path, options) => {
      const params: ReadTextFileRequest = { sessionId, path };
      if (options?.line != null) params.line = options.line;
      if (options?.limit != null) params.limit = options.limit;
      const r = await request(Methods.fsReadTextFile, params, options?.signal);
      return r.content;
    };
  }
  if (caps.fs?.writeTextFile === true) {
    services.writeTextFile = async (path, content, options) => {
      await request(Methods.fsWriteTextFile, { sessionId, path, content }, options?.signal);
    };
  }
  if (caps.terminal === true) {
    services.createTerminal = async (req, options) => {
      const r = await request(Methods.terminalCreate, { ...req, sessionId }, options?.signal);
      return clientTerminal(sessionId, r.terminalId, request);
    };
  }
  return services;
}

function clientTerminal(sessionId: string, terminalId: string, request: ClientRequester): ClientTerminal {
  const p = { sessionId, terminalId };
  return {
    terminalId,
    output: () => request(Methods.terminalOutput, p),
    waitForExit: (signal) => request(Methods.terminalWaitForExit, p, signal),
    kill: async () => {
      await request(Methods.terminalKill, p);
    },
    release: async () => {
      await request(Methods.terminalRelease, p);
    },
  };
}
