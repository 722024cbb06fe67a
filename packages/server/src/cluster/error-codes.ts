/*
 * The cluster's own JSON-RPC error codes (implementation-defined server error range, next to the
 * session store's -32010 SESSION_LOCKED and -32011 SESSION_STORE_UNAVAILABLE).
 */

/**
 * A request reached an instance that does not run the session (the cluster sends it on to the
 * current owner, up to three times), or the owner it waited for stopped before answering
 * (`data.ownerStopped: true`: it may have carried the request out, so only attaching is sent again).
 */
export const NOT_OWNER = -32012;

/**
 * The error of a turn that ended because the instance running it stopped (its lease expired and
 * another instance took the session over): `stopReason: 'error'` with this code and the stopped
 * instance in `data.owner`. Everything stored before the stop is in the history; the turn's
 * remaining work was not done, so sending the prompt again is the client's call.
 */
export const OWNER_STOPPED = -32013;
