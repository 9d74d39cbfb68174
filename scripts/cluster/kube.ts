// A minimal client of the Kubernetes-compatible API for the cluster scripts: JSON over
// HTTPS with the cluster's CA and a bearer token, one request at a time, bounded in time.
import https from 'node:https';

export interface KubeTarget {
  server: string;
  caPem: string;
  token: string;
}

export interface KubeResponse<T = any> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | undefined>;
}

const agent = new https.Agent({ keepAlive: true, maxSockets: 64 });

export function kubeRequest<T = any>(t: KubeTarget, method: string, path: string, body?: unknown, timeoutMs = 30_000): Promise<KubeResponse<T>> {
  const url = new URL(path, t.server);
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
      {
        method,
        agent,
        ca: t.caPem,
        headers: {
          authorization: `Bearer ${t.token}`,
          accept: 'application/json',
          ...(payload ? { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json', 'content-length': payload.length } : {}),
        },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            // not JSON (a proxy's error page): keep the text
          }
          resolve({ status: res.statusCode ?? 0, body: parsed as T, headers: res.headers });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** Whether `url`'s /readyz answers 200 (TLS not verified: a probe of one replica). */
export function readyz(url: string, timeoutMs = 2000): Promise<boolean> {
  return new Promise((resolve) => {
    const req = https.get(new URL('/readyz', url), { rejectUnauthorized: false, timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}
