// One API server process of bench/write-path.ts (--api-processes N): its own app context
// and HTTPS server on the bench database; tells the driver its URL over IPC and stops when
// the driver disconnects. Usage (by the driver): fork('bench/api-process.ts', [databaseUrl, dataDir]).
import { createAppContext } from '../server/wiring/context';
import { startApiServer } from '../server/kube/api-server';

const [url, dataDir] = process.argv.slice(2);
if (!url || !dataDir || !process.send) {
  console.error('run by bench/write-path.ts');
  process.exit(2);
}
const app = await createAppContext(url);
const server = await startApiServer({ app, dataDir, host: '127.0.0.1', port: 0 });
const cpu0 = process.cpuUsage();
process.on('message', (m: { type?: string }) => {
  if (m?.type === 'cpu') {
    const c = process.cpuUsage(cpu0);
    process.send!({ type: 'cpu', ms: (c.user + c.system) / 1000 });
  }
});
process.on('disconnect', () => {
  void server
    .close()
    .then(() => app.close())
    .finally(() => process.exit(0));
});
process.send({ type: 'ready', url: server.url });
