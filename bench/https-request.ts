// One request of the API benches to an API server over HTTPS, with a bearer token, the whole
// answer read as text.
import type { Agent } from 'node:https';
import https from 'node:https';

export interface HttpsAnswer {
  status: number;
  text: string;
}

/** `method p` to the server at `server` (its origin counts) through `agent`, as the holder of `token`. */
export function httpsRequest(agent: Agent, server: URL, token: string, method: string, p: string, body?: unknown, accept = 'application/json'): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = { Authorization: `Bearer ${token}`, Accept: accept };
    if (data) Object.assign(headers, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(data)) });
    const req = https.request({ host: server.hostname, port: server.port, path: p, method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    if (data) req.write(data);
    req.end();
  });
}
