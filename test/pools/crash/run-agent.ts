// A node agent in a process of its own, for the pool restart test: args server URL, token,
// CA file, node name. Prints {"ready":true} once running; runs until killed.
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { agentHttpClient } from '../../../server/agent/agent-client';
import { AgentLoop } from '../../../server/agent/agent-loop';
import { realAgentOs } from '../../../server/agent/os';

const [server, token, caFile, node] = process.argv.slice(2);
const loop = new AgentLoop({
  api: agentHttpClient({ server: server, token: token, caPem: readFileSync(caFile, 'utf8') }),
  os: realAgentOs,
  nodeName: node,
  log: pino({ level: 'warn' }),
  configMs: 500,
  discoveryMs: 5_000,
  heartbeatMs: 1_000,
  claimMs: 1_000,
  poolMs: 50,
});
await loop.start();
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
setInterval(() => {}, 1 << 30);
