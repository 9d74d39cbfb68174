// store.ping() gives up after its timeout when Postgres does not answer.
import net from 'node:net';
import { expect, test } from 'vitest';
import { ObjectStore } from './object-store';

test('ping rejects within its timeout when the server accepts but never answers', async () => {
  const sockets = new Set<net.Socket>();
  const silent = net.createServer((s) => sockets.add(s));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
  const { port } = silent.address() as net.AddressInfo;
  const store = new ObjectStore(`postgres://nobody:secret@127.0.0.1:${port}/nothing`);
  try {
    await expect(store.ping(100)).rejects.toThrow('the database did not answer within 100 ms');
  } finally {
    for (const s of sockets) s.destroy();
    silent.close();
    await store.stop();
  }
});

test('ping rejects when nothing listens on the port', async () => {
  const closed = net.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
  const { port } = closed.address() as net.AddressInfo;
  await new Promise<void>((r) => closed.close(() => r()));
  const store = new ObjectStore(`postgres://nobody:secret@127.0.0.1:${port}/nothing`);
  try {
    await expect(store.ping(2000)).rejects.toThrow(/ECONNREFUSED/);
  } finally {
    await store.stop();
  }
});
