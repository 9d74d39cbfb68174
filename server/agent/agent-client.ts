// The node agent's side of the agent API: JSON over HTTPS with the node token, trusting
// the CA Stowage generated (or, when asked, any certificate). Errors carry the server's
// Status message.
import http from 'node:http';
import https from 'node:https';
import { AGENT_API_PREFIX, type AgentConfig, type AgentPod, type ClaimInput, type CleanupProgress, type CleanupRequest, type CleanupResult, type DiscoveredEntry, type HeartbeatInput, type PodReport } from '../contracts/agent';
import type { PoolApi } from './pools';
import type { DataJobClaimInput, DataJobProgress, DataJobResult, DataJobSpec, TargetReport } from '../contracts/data-jobs';

/** The data jobs and backup targets part of the agent API (data-job-runner.ts, target-prober.ts). */
export interface DataJobApi {
  claimDataJobs(node: string, body: DataJobClaimInput): Promise<{ jobs: { key: string; spec: DataJobSpec; attempt: number }[] }>;
  dataJobProgress(node: string, key: string, body: { instance: string; progress: DataJobProgress }): Promise<{ cancel: boolean }>;
  dataJobResult(node: string, key: string, body: { instance: string; result: DataJobResult }): Promise<{ accepted: boolean; state?: string }>;
  backupTargets(node: string): Promise<{ targets: { name: string; path: string }[] }>;
  reportBackupTargets(node: string, targets: TargetReport[]): Promise<{ accepted: number }>;
}

/** What the agent loop needs from the server (an HTTP client, or the service itself in tests). */
export interface AgentApi extends PoolApi, Partial<DataJobApi> {
  whoami(): Promise<{ nodeName: string }>;
  config(node: string): Promise<AgentConfig>;
  heartbeat(node: string, body: HeartbeatInput): Promise<unknown>;
  discoveries(node: string, entries: DiscoveredEntry[]): Promise<unknown>;
  claim(node: string, body: ClaimInput): Promise<{ jobs: CleanupRequest[] }>;
  progress(node: string, jobId: string, body: { instance: string; progress: CleanupProgress }): Promise<{ cancel: boolean }>;
  result(node: string, jobId: string, body: { instance: string; result: CleanupResult; progress?: CleanupProgress }): Promise<unknown>;
  /**
   * The pods placed on the node, their claim volumes resolved (publishing). With `waitMs`
   * and the version last answered, the server holds an unchanged answer until it changes.
   */
  pods(node: string, wait?: { waitMs: number; seen?: string }): Promise<{ pods: AgentPod[]; version?: string }>;
  podStatus(node: string, report: PodReport): Promise<{ phase?: string }>;
  /** A Terminating pod's volumes are unpublished: the pod may go. */
  podDone(node: string, pod: { namespace: string; name: string; uid: string }): Promise<{ deleted: boolean }>;
}

export class AgentHttpError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'AgentHttpError';
  }
}

export interface AgentClientOptions {
  server: string;
  token: string;
  /** PEM of the CA that signed the server's certificate. */
  caPem?: string;
  insecureSkipTlsVerify?: boolean;
  timeoutMs?: number;
}

export function agentHttpClient(o: AgentClientOptions): AgentApi & DataJobApi {
  const base = new URL(o.server);
  const secure = base.protocol === 'https:';
  const agent = secure
    ? new https.Agent({ keepAlive: true, ca: o.caPem, rejectUnauthorized: !o.insecureSkipTlsVerify })
    : new http.Agent({ keepAlive: true });
  const call = <T>(method: string, p: string, body?: unknown): Promise<T> =>
    new Promise((resolve, reject) => {
      const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const url = new URL(`${AGENT_API_PREFIX}${p}`, base);
      const req = (secure ? https : http).request(
        url,
        {
          method,
          agent,
          timeout: o.timeoutMs ?? 30_000,
          headers: {
            Authorization: `Bearer ${o.token}`,
            Accept: 'application/json',
            ...(data ? { 'Content-Type': 'application/json', 'Content-Length': String(data.length) } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown;
            try {
              parsed = text ? JSON.parse(text) : {};
            } catch {
              parsed = { message: text.slice(0, 200) };
            }
            const code = res.statusCode ?? 0;
            if (code >= 200 && code < 300) resolve(parsed as T);
            else reject(new AgentHttpError(`${method} ${url.pathname}: ${code} ${(parsed as { message?: string })?.message ?? ''}`.trim(), code));
          });
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${url.pathname}: timed out`)));
      req.on('error', reject);
      req.end(data);
    });
  const n = (node: string) => `nodes/${encodeURIComponent(node)}`;
  return {
    whoami: () => call('GET', 'whoami'),
    config: (node) => call('GET', `${n(node)}/config`),
    heartbeat: (node, body) => call('POST', `${n(node)}/heartbeat`, body),
    discoveries: (node, entries) => call('PUT', `${n(node)}/discoveries`, { entries }),
    claim: (node, body) => call('POST', `${n(node)}/cleanups/claim`, body),
    progress: (node, jobId, body) => call('POST', `${n(node)}/cleanups/${encodeURIComponent(jobId)}/progress`, body),
    result: (node, jobId, body) => call('POST', `${n(node)}/cleanups/${encodeURIComponent(jobId)}/result`, body),
    pods: (node, wait) => call('GET', `${n(node)}/pods${wait && wait.waitMs > 0 && wait.seen ? `?waitMs=${Math.round(wait.waitMs)}&seen=${encodeURIComponent(wait.seen)}` : ''}`),
    podStatus: (node, report) => call('POST', `${n(node)}/pods/status`, report),
    podDone: (node, pod) => call('POST', `${n(node)}/pods/done`, pod),
    poolWork: (node, waitMs, seen) => call('GET', `${n(node)}/pools${waitMs && waitMs > 0 ? `?waitMs=${Math.round(waitMs)}${seen ? `&seen=${encodeURIComponent(seen)}` : ''}` : ''}`),
    poolVolumesDone: (node, results) => call('POST', `${n(node)}/pools/volumes`, { results }),
    poolVolumeDone: (node, pvName, done) => call('POST', `${n(node)}/pools/volumes/${encodeURIComponent(pvName)}`, done),
    poolReport: (node, pools) => call('PUT', `${n(node)}/pools`, { pools }),
    claimDataJobs: (node, body) => call('POST', `${n(node)}/data-jobs/claim`, body),
    dataJobProgress: (node, key, body) => call('POST', `${n(node)}/data-jobs/${encodeURIComponent(key)}/progress`, body),
    dataJobResult: (node, key, body) => call('POST', `${n(node)}/data-jobs/${encodeURIComponent(key)}/result`, body),
    backupTargets: (node) => call('GET', `${n(node)}/backup-targets`),
    reportBackupTargets: (node, targets) => call('PUT', `${n(node)}/backup-targets`, { targets }),
  };
}
