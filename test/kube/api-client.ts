// A bare HTTPS client for contract tests: exact bodies and headers, the CA from the harness.
import https from 'node:https';
import type { KubeHarness } from './harness';

export interface ApiResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
  /** The body as received (still compressed when Content-Encoding says so). */
  raw: Buffer;
}

export interface ApiRequest {
  method?: string;
  path: string;
  /** 'admin' | 'dev' | 'none' | any other string is sent as the token itself. */
  token?: string;
  body?: string | Buffer | object;
  headers?: Record<string, string>;
}

export function apiClient(h: KubeHarness) {
  const url = new URL(h.url);
  return (r: ApiRequest): Promise<ApiResponse> =>
    new Promise((resolve, reject) => {
      const token = r.token === undefined || r.token === 'admin' ? h.adminToken : r.token === 'dev' ? h.devToken : r.token;
      const body =
        r.body === undefined ? undefined : typeof r.body === 'string' || Buffer.isBuffer(r.body) ? r.body : JSON.stringify(r.body);
      const headers: Record<string, string> = { Accept: 'application/json', ...r.headers };
      if (token !== 'none') headers.Authorization = `Bearer ${token}`;
      if (body !== undefined) {
        headers['Content-Type'] ??= 'application/json';
        headers['Content-Length'] = String(Buffer.byteLength(body));
      }
      const req = https.request(
        { host: url.hostname, port: url.port, path: r.path, method: r.method ?? 'GET', headers, ca: h.caPem },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            const raw = Buffer.concat(chunks);
            const text = raw.toString('utf8');
            let json: unknown;
            try {
              json = JSON.parse(text);
            } catch {
              json = undefined;
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json, raw });
          });
        },
      );
      req.on('error', reject);
      if (body !== undefined) req.write(body);
      req.end();
    });
}
