/** Instrumentation scope name of every metric and span of the server. */
export const TELEMETRY_SCOPE = '@acp-kit/server';
