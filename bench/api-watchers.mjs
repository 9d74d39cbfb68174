// Worker for bench/api.ts: N concurrent HTTPS watches of one collection. Reports, for every
// event, its resourceVersion and the moment it arrived (high-resolution wall clock), so the
// main thread can compute the latency from the commit it recorded.
import https from 'node:https';
import { parentPort, workerData } from 'node:worker_threads';

// `urls` spreads the watches over several API servers (round robin); `url` is one server.
const { url, urls, token, ca, watchers, path } = workerData;
const servers = urls ?? [url];
const now = () => performance.timeOrigin + performance.now();
const agent = new https.Agent({ keepAlive: true, maxSockets: watchers + 1, ca });
let arrivals = [];
let ready = 0;
const requests = [];

for (let i = 0; i < watchers; i++) {
  const u = new URL(path, servers[i % servers.length]);
  const req = https.request(
    { host: u.hostname, port: u.port, path: u.pathname + u.search, agent, headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' } },
    (res) => {
      if (res.statusCode !== 200) throw new Error(`watch ${i} answered ${res.statusCode}`);
      ready++;
      if (ready === watchers) parentPort.postMessage({ ready: true });
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        const t = now();
        buf += chunk;
        let nl;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (!line.trim()) continue;
          const ev = JSON.parse(line);
          if (ev.type !== 'BOOKMARK') arrivals.push(ev.object.metadata.resourceVersion, t);
        }
      });
    },
  );
  req.end();
  requests.push(req);
}

const flush = setInterval(() => {
  if (arrivals.length === 0) return;
  parentPort.postMessage({ arrivals });
  arrivals = [];
}, 200);

parentPort.on('message', (m) => {
  if (m === 'flush') {
    parentPort.postMessage({ arrivals, flushed: true });
    arrivals = [];
  }
  if (m === 'stop') {
    clearInterval(flush);
    parentPort.postMessage({ arrivals, done: true });
    for (const r of requests) r.destroy();
    agent.destroy();
  }
});
