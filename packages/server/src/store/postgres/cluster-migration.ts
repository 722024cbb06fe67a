import type { Migration } from './migrations.js';

/**
 * Migration 2: what several `acp-kit serve` instances on one database need to share sessions
 * (docs/postgres-cluster.md). Times are the database's (`now()`), never an instance's clock.
 *
 * - `acp_leases`: the one instance that runs a session (its `SessionRuntime`) and until when;
 *   renewed every lease/3, taken over by another instance once `lease_until` has passed.
 * - `acp_instances`: each live instance's heartbeat (`alive_until`, renewed every lease/3): an owner
 *   forgets the followers of an instance that stopped beating (it died without detaching them).
 * - `acp_inbox`: requests a follower instance sends to the owner of a session (attach, prompt,
 *   cancel, config, permission answers) and their results, woken by `NOTIFY acp_inbox`.
 */
export const CLUSTER_MIGRATION: Migration = {
  version: 2,
  name: 'cluster: session leases and the inbox between instances',
  sql: `
CREATE TABLE acp_leases (
  namespace text NOT NULL,
  session_id text NOT NULL,
  owner text NOT NULL,
  lease_until timestamptz NOT NULL,
  PRIMARY KEY (namespace, session_id)
);
CREATE TABLE acp_instances (
  id text PRIMARY KEY,
  alive_until timestamptz NOT NULL
);
CREATE TABLE acp_inbox (
  id bigserial PRIMARY KEY,
  namespace text NOT NULL,
  session_id text NOT NULL,
  to_owner text NOT NULL,
  from_owner text NOT NULL,
  kind text NOT NULL,
  payload jsonb NOT NULL,
  result jsonb,
  error jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  done_at timestamptz
);
CREATE INDEX acp_inbox_open ON acp_inbox (to_owner, id) WHERE done_at IS NULL;
`,
};
