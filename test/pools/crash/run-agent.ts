// A node agent in a process of its own, for the pool restart and replication crash tests:
// args server URL, token, CA file, node name, and optionally a JSON object of where the
// agent works ({"poolRoot", "podsDir", "replicationListen"}: a root it sees the host's `/`
// under, a pods directory it publishes into, and a replication listener with the data
// mover; without it, the host's `/` and none of these). Prints {"ready":true} once
// running (with "replication": the listener's address when it listens); runs until killed.
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { z } from 'zod';
import { agentHttpClient } from '../../../server/agent/agent-client';
import { AgentLoop } from '../../../server/agent/agent-loop';
import { dataMover } from '../../../server/agent/data-mover';
import { realAgentOs } from '../../../server/agent/os';

const [server, token, caFile, node, where] = process.argv.slice(2);
const o = z.object({ poolRoot: z.string().optional(), podsDir: z.string().optional(), replicationListen: z.string().optional() }).strict().parse(where ? JSON.parse(where) : {});
const loop = new AgentLoop({
  api: agentHttpClient({ server: server, token: token, caPem: readFileSync(caFile, 'utf8') }),
  os: realAgentOs,
  nodeName: node,
  log: pino({ level: 'warn' }),
  configMs: 500,
  discoveryMs: 5_000,
  heartbeatMs: 1_000,
  claimMs: o.replicationListen ? 200 : 1_000,
  poolMs: o.replicationListen ? 200 : 50,
  ...(o.poolRoot ? { poolRoot: o.poolRoot } : {}),
  ...(o.podsDir ? { podsDir: o.podsDir, publishMs: 200 } : {}),
  ...(o.replicationListen ? { replication: { listen: o.replicationListen }, dataMover, progressIntervalMs: 200 } : {}),
});
await loop.start();
process.stdout.write(`${JSON.stringify({ ready: true, ...(o.replicationListen ? { replication: loop.replicationListenAddress() } : {}) })}\n`);
setInterval(() => {}, 1 << 30);
