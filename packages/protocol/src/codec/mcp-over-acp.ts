import { getUnstableValidator } from '../validation/validator.js';
import type { WireValidator } from '../validation/types.js';
import { checkParams, invalidParams, isObj } from './util.js';

function isAcpServer(s: unknown): boolean {
  return isObj(s) && s.type === 'acp';
}

/**
 * The schema check of params that may carry `mcpServers` entries of the unstable ACP transport
 * (MCP-over-ACP RFD): only `schema.unstable.json` has that branch of `McpServer`, so the stable
 * check would refuse it. Such params are checked with an empty list, and each server against
 * the `McpServer` def of its flavor at its own index (errors name the entry the peer sent).
 */
export function checkParamsWithMcpServers(validator: WireValidator | null, wireMethod: string, value: unknown): void {
  if (!validator || !isObj(value) || !Array.isArray(value.mcpServers) || !value.mcpServers.some(isAcpServer)) {
    checkParams(validator, wireMethod, value);
    return;
  }
  checkParams(validator, wireMethod, { ...value, mcpServers: [] });
  const unstable = getUnstableValidator(validator.version);
  value.mcpServers.forEach((s, i) => {
    const f = (isAcpServer(s) ? unstable : validator).def('McpServer', s, `mcpServers[${i}]`);
    if (f) throw invalidParams('params', f);
  });
}
