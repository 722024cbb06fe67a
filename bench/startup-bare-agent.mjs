// Start-up floor: bare node answering `initialize` by hand (no library at all).
import { createInterface } from 'node:readline';

createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.method === 'initialize') {
    process.stdout.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: 2, agentCapabilities: {}, authMethods: [] } })}\n`,
    );
  }
});
