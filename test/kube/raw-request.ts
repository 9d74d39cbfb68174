// One request written byte for byte over TLS, for targets and headers an HTTP client would
// refuse to send (`//[`, raw non-ASCII bytes, oversized request lines). Resolves with the
// status code and body of the answer, or rejects when the server closes without one.
import tls from 'node:tls';

export interface RawAnswer {
  status: number;
  headers: string;
  body: string;
}

export function rawRequest(url: string, caPem: string, head: Buffer | string, timeoutMs = 10_000): Promise<RawAnswer> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: u.hostname, port: Number(u.port), ca: caPem, servername: 'localhost' });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer in time'));
    }, timeoutMs);
    socket.on('secureConnect', () => socket.write(head));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (!m) return reject(new Error(`no HTTP answer: ${JSON.stringify(text.slice(0, 200))}`));
      const split = text.indexOf('\r\n\r\n');
      resolve({ status: Number(m[1]), headers: text.slice(0, split), body: text.slice(split + 4) });
    });
  });
}
