/**
 * The parts of `pg` (node-postgres) acp-kit uses, as structural types. Public declarations name
 * these instead of `import('pg')`: an app that installs acp-kit gets `pg` (a dependency) but not
 * `@types/pg` (a devDependency here), and `tsc` without `skipLibCheck` would fail on every
 * declaration file that imports from 'pg'. A `pg.Pool` / `pg.Client` fits these types as it is.
 * @module
 */

/** One row of a query result: column name -> value. */
export type PgRow = Record<string, unknown>;

/** What `query` resolves to (the fields acp-kit reads). */
export interface PgQueryResult<R = PgRow> {
  rows: R[];
  rowCount: number | null;
}

/** Something that runs SQL with positional parameters (`$1`, `$2`, …). */
export interface PgQueryable {
  query<R = PgRow>(text: string, values?: unknown[]): Promise<PgQueryResult<R>>;
}

/** A connection checked out of a pool (`pool.connect()`); `release()` gives it back. */
export interface PgPoolClient extends PgQueryable {
  release(err?: Error | boolean): void;
}

/** Connection settings of a pool or client (the fields acp-kit reads or sets). */
export interface PgClientConfig {
  connectionString?: string;
  host?: string;
  port?: number;
  application_name?: string;
}

/** A `LISTEN` notification. */
export interface PgNotification {
  processId: number;
  channel: string;
  payload?: string;
}

/** A `pg.Pool`: the database acp-kit's PostgreSQL session store and cluster work with. */
export interface PgPool extends PgQueryable {
  connect(): Promise<PgPoolClient>;
  end(): Promise<void>;
  on(event: 'error', listener: (err: Error) => void): unknown;
  readonly options: PgClientConfig;
}

/** A single `pg.Client` connection (the cluster's `LISTEN` connection). */
export interface PgClient extends PgQueryable {
  connect(): Promise<unknown>;
  end(): Promise<void>;
  on(event: 'notification', listener: (message: PgNotification) => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
}
