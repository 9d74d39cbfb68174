// A node's agent with a replication listener reports where it listens in its heartbeat,
// and the server keeps it as the Node's replication.stowage.io/endpoint annotation (what
// the controllers give senders); an endpoint that is not host:port is refused (400) and
// the annotation kept as it was. Through the real HTTPS agent API.
import net from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentHttpClient, AgentHttpError, type AgentApi } from '../../server/agent/agent-client';
import { AgentLoop } from '../../server/agent/agent-loop';
import { realAgentOs } from '../../server/agent/os';
import { annReplicationEndpoint } from '../../server/domain/well-known/annotations';
import { waitFor } from '../controllers/fixtures';
import { openLocalHarness, type LocalHarness } from '../local-volumes/harness';

let h: LocalHarness;
let api: AgentApi;

beforeAll(async () => {
  h = await openLocalHarness();
  api = agentHttpClient({ server: h.api.url, token: await h.tokenFor('node-r'), caPem: h.api.caPem });
});
afterAll(async () => {
  await h?.close();
});

const endpointOf = async (node: string) => (await h.app.store.tryGet('Node', undefined, node))?.metadata.annotations?.[annReplicationEndpoint];
const reachable = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, host, () => (s.destroy(), resolve(true)));
    s.on('error', () => resolve(false));
  });

describe('the replication endpoint in the heartbeat', () => {
  it('an agent started with a listener reports its bound endpoint; the Node carries it; stopping frees the port', async () => {
    const loop = new AgentLoop({ api, os: realAgentOs, nodeName: 'node-r', heartbeatMs: 100, replication: { listen: '127.0.0.1:0' }, log: pino({ level: 'silent' }) });
    await loop.start();
    const endpoint = loop.replicationEndpoint()!;
    expect(endpoint).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(endpoint).not.toBe('127.0.0.1:0');
    await waitFor('the endpoint on the Node', async () => (await endpointOf('node-r')) === endpoint);
    const port = Number(endpoint.split(':')[1]);
    expect(await reachable('127.0.0.1', port)).toBe(true);
    await loop.stop();
    expect(await reachable('127.0.0.1', port)).toBe(false);
  });

  it('an advertised address is what the Node carries', async () => {
    await api.heartbeat('node-r', { replicationEndpoint: '[fd00::2]:7480' });
    expect(await endpointOf('node-r')).toBe('[fd00::2]:7480');
  });

  const bad: [string, unknown][] = [
    ['a space in the host', 'a b:7480'],
    ['a port above 65535', 'node-b:65536'],
    ['no port', 'node-b'],
    ['a line break', 'node-b:7480\nx'],
    ['a URL', 'https://node-b:7480'],
    ['too long', `${'a'.repeat(300)}:1`],
    ['not a string', 7480],
  ];
  it.each(bad)('%s is refused with 400 and the annotation kept', async (_n, value) => {
    await api.heartbeat('node-r', { replicationEndpoint: 'node-r.example:7480' });
    const err = await api.heartbeat('node-r', { replicationEndpoint: value as string }).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(AgentHttpError);
    expect((err as AgentHttpError).status).toBe(400);
    expect((err as Error).message).toContain('replicationEndpoint must be host:port');
    expect(await endpointOf('node-r')).toBe('node-r.example:7480');
  });

  it('a node token cannot set another node\'s endpoint', async () => {
    const err = await api.heartbeat('node-other', { replicationEndpoint: 'evil:1' }).then(() => undefined, (e: unknown) => e);
    expect((err as AgentHttpError).status).toBe(403);
    expect(await endpointOf('node-other')).toBeUndefined();
  });
});
