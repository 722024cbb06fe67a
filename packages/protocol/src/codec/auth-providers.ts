/**
 * The unstable `auth/status`, `auth/status_update` and `providers/*` mappings, the same in v1 and
 * v2 (schema.unstable.json of both; the validator's fallback checks them). What arrives is read
 * as leniently as the schema's `x-deserialize-*` annotations say: an account or a protocol that is
 * not well formed is skipped, an `accounts` that is not a list is left out, never fatal.
 */
import { Methods } from '../model/methods.js';
import { emptyResultOk, type MethodTable } from './base-codec.js';
import { isObj } from './util.js';

/** Drops the accounts that are not objects with a string `label` (`x-deserialize-skip-invalid-items`). */
function lenientAccounts(wire: unknown): unknown {
  if (!isObj(wire) || wire.accounts === undefined) return wire;
  const { accounts, ...rest } = wire;
  if (!Array.isArray(accounts)) return rest;
  return { ...rest, accounts: accounts.filter((a) => isObj(a) && typeof a.label === 'string') };
}

/** Drops the `supported` protocols that are not strings, per provider (`x-deserialize-skip-invalid-items`). */
function lenientProviders(wire: unknown): unknown {
  if (!isObj(wire) || !Array.isArray(wire.providers)) return wire;
  return {
    ...wire,
    providers: wire.providers.map((p) =>
      isObj(p) && Array.isArray(p.supported)
        ? { ...p, supported: p.supported.filter((x): x is string => typeof x === 'string') }
        : p,
    ),
  };
}

export const AUTH_PROVIDER_MAPPINGS = {
  [Methods.authStatus]: { prepareResult: lenientAccounts },
  [Methods.authStatusUpdate]: { prepareParams: lenientAccounts },
  [Methods.providersList]: { prepareResult: lenientProviders },
  [Methods.providersSet]: { prepareResult: emptyResultOk },
  [Methods.providersDisable]: { prepareResult: emptyResultOk },
} satisfies MethodTable;
