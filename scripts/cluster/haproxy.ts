// HAProxy in front of the replicas and of Postgres (the Postgres backend follows Patroni's
// REST API: see patroni.ts). Nothing here moves servers by hand.

export interface HaproxyLayout {
  /** Addresses the front ends listen on (127.0.0.1 and the hosts' ends of the nodes' links). */
  bindAddresses: string[];
  dashboardPort: number;
  apiPort: number;
  pgPort: number;
  servers: { name: string; dashboardPort: number; apiPort: number }[];
  postgres: { name: string; port: number; active: boolean }[];
  /** Replaces the Postgres backend (Patroni: health-checked on each node's REST API). */
  postgresBackend?: string;
  /**
   * Replication between the nodes: each node's agent is reached on the host's end of its
   * link (a node's namespace routes to the host), passed through to the agent in it.
   */
  replication?: { port: number; nodes: { name: string; hostAddress: string; nodeAddress: string; agentPort: number }[] };
  statsSocket: string;
}

/** The configuration: TCP pass-through for the API (TLS ends at the replicas), HTTP for the dashboard. */
export function haproxyConfig(l: HaproxyLayout): string {
  const binds = (port: number) => l.bindAddresses.map((a) => `  bind ${a}:${port}`).join('\n');
  return `global
  maxconn 4096
  stats socket ${l.statsSocket} mode 600 level admin

defaults
  timeout connect 2s
  timeout client 1h
  timeout server 1h
  timeout tunnel 1h
  timeout check 2s
  retries 3
  option redispatch
  default-server inter 1s fall 2 rise 2 on-marked-down shutdown-sessions

# The Kubernetes-compatible API: TLS passes through, so clients verify the replicas' shared
# serving certificate. A replica is in rotation while its /readyz answers 200.
frontend api
  mode tcp
${binds(l.apiPort)}
  default_backend api

backend api
  mode tcp
  balance roundrobin
  option httpchk GET /readyz
  http-check expect status 200
${l.servers.map((s) => `  server ${s.name} 127.0.0.1:${s.apiPort} check check-ssl verify none`).join('\n')}

# The dashboard (sessions live in Postgres, so any replica serves any signed-in user).
frontend dashboard
  mode http
  bind 127.0.0.1:${l.dashboardPort}
  default_backend dashboard

backend dashboard
  mode http
  balance roundrobin
  option httpchk GET /readyz
  http-check expect status 200
  retry-on conn-failure empty-response response-timeout
${l.servers.map((s) => `  server ${s.name} 127.0.0.1:${s.dashboardPort} check`).join('\n')}

# Postgres: one address for whichever server is the primary.
frontend postgres
  mode tcp
  bind 127.0.0.1:${l.pgPort}
  default_backend postgres

${l.postgresBackend ?? `backend postgres
  mode tcp
  option pgsql-check user postgres
${l.postgres.map((p) => `  server ${p.name} 127.0.0.1:${p.port} check${p.active ? '' : ' disabled'}`).join('\n')}`}
${(l.replication?.nodes ?? [])
  .map(
    (n) => `
# Replication transfers to ${n.name} (TLS end to end between the agents: passed through).
frontend replication-${n.name}
  mode tcp
  bind ${n.hostAddress}:${l.replication!.port}
  default_backend replication-${n.name}

backend replication-${n.name}
  mode tcp
  server ${n.name} ${n.nodeAddress}:${n.agentPort}
`,
  )
  .join('')}`;
}
