// The Streamable HTTP profile's headers, shared by the client transport and the server (which
// should not load the client transport, and node:http2 with it, to know two names).

/** Header naming the connection, returned by the `initialize` POST (remote transport RFD). */
export const HEADER_CONNECTION_ID = 'Acp-Connection-Id';
/** Header naming the session of a session-scoped POST. */
export const HEADER_SESSION_ID = 'Acp-Session-Id';
