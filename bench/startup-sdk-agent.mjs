// The official SDK's agent, answering `initialize` only.
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

const stream = acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
const conn = acp
  .agent({ name: 'sdk-startup-agent' })
  .onRequest('initialize', () => ({ protocolVersion: 1, agentCapabilities: {}, authMethods: [] }))
  .connect(stream);
await conn.closed;
process.exit(0);
