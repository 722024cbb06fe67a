/**
 * Migration 2 of the PostgreSQL schema (migration 1, the sessions and their updates, is the
 * store's): what several `acp-kit serve` instances on one database need to share sessions.
 *
 * - `acp_leases`: the one instance that runs a session (its `SessionRuntime`) and until when;
 *   renewed every lease/3, taken over by another instance once `lease_until` has passed.
 * - `acp_inbox`: requests a follower instance sends to the owner of a session (attach, prompt,
 *   cancel, config, permission answers) and their results, woken by `NOTIFY acp_inbox`.
 *
 * Times are the database's (`now()`), never an instance's clock: instances may disagree.
 */
export const CLUSTER_MIGRATION = {
  version: 2,
  name: 'cluster: session leases and the inbox between instances',
  sql: `
create table if not exists acp_leases (
  namespace text not null,
  session_id text not null,
  owner text not null,
  lease_until timestamptz not null,
  primary key (namespace, session_id)
);
create table if not exists acp_inbox (
  id bigserial primary key,
  namespace text not null,
  session_id text not null,
  to_owner text not null,
  from_owner text not null,
  kind text not null,
  payload jsonb not null,
  result jsonb,
  error jsonb,
  created_at timestamptz not null default now(),
  done_at timestamptz
);
create index if not exists acp_inbox_open on acp_inbox (to_owner, id) where done_at is null;
`,
} as const;

/** The NOTIFY channel of new rows in `acp_updates` (payload `<namespace>/<sessionId>:<seq>`). */
export const UPDATES_CHANNEL = 'acp_updates';
/** The NOTIFY channel of the inbox (payload `to:<instance>` for a new request, `done:<instance>` for an answer). */
export const INBOX_CHANNEL = 'acp_inbox';
