/**
 * Names shared by the cluster's parts. Its tables are migration 2 of the PostgreSQL schema
 * (src/agent/store/postgres/cluster-migration.ts), applied with the store's by `migrate`.
 */
/** The NOTIFY channel of new rows in `acp_updates` (payload `<namespace>/<sessionId>:<seq>`). */
export const UPDATES_CHANNEL = 'acp_updates';
/** The NOTIFY channel of the inbox (payload `to:<instance>` for a new request, `done:<instance>` for an answer). */
export const INBOX_CHANNEL = 'acp_inbox';
