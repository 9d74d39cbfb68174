// A watch of one namespace's claims over HTTPS that says when each claim is first seen Bound
// (the benches' create -> Bound figures).
import type { ClientRequest } from 'node:http';
import https from 'node:https';

export interface WatchTarget {
  url: URL;
  token: string;
  ca: string;
}

/** Watches `ns`'s claims after `fromRv`; calls `onBound` once per claim, when it is first seen Bound. */
export function watchClaimsBound(t: WatchTarget, ns: string, fromRv: string, onBound: (name: string) => void): ClientRequest {
  const seen = new Set<string>();
  const req = https.request(
    {
      host: t.url.hostname,
      port: t.url.port,
      path: `/api/v1/namespaces/${ns}/persistentvolumeclaims?watch=true&resourceVersion=${fromRv}`,
      headers: { Authorization: `Bearer ${t.token}`, Accept: 'application/json' },
      ca: t.ca,
    },
    (res) => {
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (!line.trim()) continue;
          const ev = JSON.parse(line) as { object?: { metadata?: { name?: string }; status?: { phase?: string } } };
          const name = ev.object?.metadata?.name;
          if (name && ev.object?.status?.phase === 'Bound' && !seen.has(name)) {
            seen.add(name);
            onBound(name);
          }
        }
      });
    },
  );
  req.on('error', () => {});
  req.end();
  return req;
}
