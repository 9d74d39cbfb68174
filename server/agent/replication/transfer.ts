// The two ends of one transfer's stream (protocol.ts): the sender connects with the
// transfer's key, sends its header, and streams `btrfs send` in frames; the receiver
// answers, pipes the frames into `btrfs receive`, and reports how it ended. Nothing is
// buffered whole: each side moves chunks with backpressure. Either side's abort kills its
// child and drops the connection.
import { spawn, type ChildProcess } from 'node:child_process';
import tls from 'node:tls';
import type { ReplicaTransfer } from '../../contracts/data-jobs';
import { PSK_CIPHERS } from './listener';
import { abortError, encodeHeader, Framer, MAX_LINE_BYTES, oneLine, parseAnswer, parseHostPort, Unframer, type Answer, type TransferHeader } from './protocol';

/** A refusal or failure the receiver reported (or a protocol breach): retryable unless said. */
export class TransferError extends Error {
  override name = 'TransferError';
}

/** Reads the receiver's answer lines off the sender's socket. */
class LineReader {
  private buf = '';
  private readonly lines: string[] = [];
  private waiter: { resolve(l: string): void; reject(e: Error): void } | undefined;
  private ended: Error | undefined;

  constructor(socket: tls.TLSSocket) {
    socket.setEncoding('utf8');
    socket.on('data', (s: string) => {
      this.buf += s;
      let nl;
      while ((nl = this.buf.indexOf('\n')) >= 0) {
        this.lines.push(this.buf.slice(0, nl));
        this.buf = this.buf.slice(nl + 1);
      }
      if (this.buf.length > MAX_LINE_BYTES) this.fail(new TransferError('the receiver sent a line too long'));
      this.wake();
    });
    const closed = () => this.fail(new TransferError('the receiver closed the connection'));
    socket.on('end', closed);
    socket.on('close', closed);
    socket.on('error', (e) => this.fail(new TransferError(`connection to the receiver failed: ${e.message}`)));
  }

  private fail(e: Error): void {
    this.ended ??= e;
    this.wake();
  }

  private wake(): void {
    const w = this.waiter;
    if (!w) return;
    if (this.lines.length) {
      this.waiter = undefined;
      w.resolve(this.lines.shift()!);
    } else if (this.ended) {
      this.waiter = undefined;
      w.reject(this.ended);
    }
  }

  /** The next line; rejects after timeoutMs (Infinity: no limit), on abort, or when the connection ends first. One call at a time. */
  next(timeoutMs: number, signal: AbortSignal): Promise<Answer> {
    return new Promise<string>((resolve, reject) => {
      const timer = Number.isFinite(timeoutMs) ? setTimeout(() => finish(() => reject(new TransferError(`no answer from the receiver within ${Math.round(timeoutMs / 1000)} s`))), timeoutMs) : undefined;
      const onAbort = () => finish(() => reject(abortError()));
      const finish = (f: () => void) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.waiter = undefined;
        f();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiter = { resolve: (l) => finish(() => resolve(l)), reject: (e) => finish(() => reject(e)) };
      this.wake();
    }).then(parseAnswer);
  }
}

/** Connects to a receiver with the transfer's key; resolves once both proved it (the handshake). */
export function connect(endpoint: string, t: ReplicaTransfer, signal: AbortSignal, timeoutMs = 10_000): Promise<tls.TLSSocket> {
  const at = parseHostPort(endpoint);
  if (!at) return Promise.reject(new TransferError(`receiver endpoint ${endpoint} is not host:port`));
  return new Promise((resolve, reject) => {
    const socket = tls.connect({
      host: at.host,
      port: at.port,
      ciphers: PSK_CIPHERS,
      minVersion: 'TLSv1.2',
      maxVersion: 'TLSv1.2',
      pskCallback: () => ({ identity: t.id, psk: Buffer.from(t.key, 'hex') }),
      checkServerIdentity: () => undefined,
    });
    const timer = setTimeout(() => fail(new TransferError(`could not reach the receiver at ${endpoint} within ${timeoutMs / 1000} s`)), timeoutMs);
    const onAbort = () => fail(abortError());
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.off('error', onError);
    };
    const fail = (e: Error) => {
      done();
      socket.destroy();
      reject(e);
    };
    const onError = (e: Error) => fail(new TransferError(`could not connect to the receiver at ${endpoint}: ${e.message}`));
    socket.once('secureConnect', () => {
      done();
      socket.on('error', () => {}); // reported by the reader and the pipes
      socket.setNoDelay(true);
      resolve(socket);
    });
    socket.on('error', onError);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Collects the last bytes of a child's stderr (for messages). */
function stderrOf(child: ChildProcess): () => string {
  let text = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (s: string) => (text = (text + s).slice(-2000)));
  return () => oneLine(text.trim()).slice(0, 500);
}

const exitOf = (child: ChildProcess) =>
  new Promise<number | string>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode ?? child.signalCode!);
    else child.once('close', (code, sig) => resolve(code ?? sig ?? 1));
  });

/**
 * Sends one snapshot: header, the receiver's OK, `btrfs send [-p parent] snapshot` in
 * frames, then the receiver's DONE. Resolves with the payload bytes sent.
 */
export async function streamSend(o: {
  socket: tls.TLSSocket;
  header: TransferHeader;
  snapshot: string;
  parent?: string;
  signal: AbortSignal;
  onBytes(n: bigint): void;
  btrfsBin?: string;
}): Promise<bigint> {
  const { socket, signal } = o;
  const reader = new LineReader(socket);
  let child: ChildProcess | undefined;
  const kill = () => child?.kill('SIGKILL');
  signal.addEventListener('abort', kill, { once: true });
  try {
    socket.write(encodeHeader(o.header));
    const first = await reader.next(30_000, signal);
    if (first.kind === 'no') throw new TransferError(`the receiver refused: ${first.reason}`);
    if (first.kind !== 'ok') throw new TransferError(`the receiver answered ${JSON.stringify(first)}`);
    child = spawn(o.btrfsBin ?? 'btrfs', ['send', '-q', ...(o.parent ? ['-p', o.parent] : []), o.snapshot], { stdio: ['ignore', 'pipe', 'pipe'] });
    const stderr = stderrOf(child);
    const exited = exitOf(child);
    const framer = new Framer();
    child.stdout!.pipe(framer, { end: false });
    framer.pipe(socket, { end: false });
    let reported = 0n;
    framer.on('data', () => {
      if (framer.bytes - reported >= 1n << 20n) o.onBytes((reported = framer.bytes));
    });
    // The receiver's last answer: DONE after the end frame, or ERR at any time (it stopped).
    // No time limit: a large stream takes long; the job's abort and the connection bound it.
    const answer = reader.next(Infinity, signal);
    answer.catch(() => {});
    const early = answer.then((a) => Promise.reject(new TransferError(`the receiver stopped the transfer: ${a.kind === 'err' || a.kind === 'no' ? a.reason : a.kind}`)));
    early.catch(() => {});
    // The stream has its end frame only when btrfs send finished well.
    const code = await Promise.race([exited, early]);
    if (signal.aborted) throw abortError();
    if (code !== 0) throw new TransferError(`btrfs send ${o.snapshot} failed (${code}): ${stderr()}`);
    await new Promise<void>((resolve) => {
      framer.once('end', resolve);
      framer.end();
    });
    o.onBytes(framer.bytes);
    const last = await answer;
    if (last.kind === 'done') {
      if (last.bytes !== framer.bytes) throw new TransferError(`the receiver got ${last.bytes} bytes of ${framer.bytes}`);
      return framer.bytes;
    }
    throw new TransferError(`the receiver failed: ${last.kind === 'err' || last.kind === 'no' ? last.reason : JSON.stringify(last)}`);
  } finally {
    signal.removeEventListener('abort', kill);
    kill();
    socket.destroy();
  }
}

/**
 * Receives one stream into `folder` (the header already checked): answers OK, pipes the
 * frames into `btrfs receive folder`, and answers DONE or ERR. Resolves with the bytes
 * received when `btrfs receive` succeeded on a complete stream; else rejects (the caller
 * deletes what a partial receive left).
 */
export async function streamReceive(o: { socket: tls.TLSSocket; folder: string; signal: AbortSignal; onBytes(n: bigint): void; check(): Promise<string | undefined>; btrfsBin?: string }): Promise<bigint> {
  const { socket, signal } = o;
  // --chroot: whatever paths a stream names (its sender holds the key, but is still another
  // machine), `btrfs receive` cannot reach outside the volume's folder.
  const child = spawn(o.btrfsBin ?? 'btrfs', ['receive', '--chroot', o.folder], { stdio: ['pipe', 'ignore', 'pipe'] });
  const stderr = stderrOf(child);
  const exited = exitOf(child);
  const kill = () => child.kill('SIGKILL');
  signal.addEventListener('abort', kill, { once: true });
  const unframer = new Unframer();
  try {
    child.stdin.on('error', () => {}); // a receive that died: told by its exit code
    socket.on('error', () => {});
    const streamed = new Promise<void>((resolve, reject) => {
      unframer.on('error', reject);
      unframer.on('end', () => (unframer.complete ? resolve() : reject(new TransferError('the stream ended before its end'))));
      socket.on('close', () => {
        if (!unframer.complete) reject(new TransferError('the sender closed the connection before the end of the stream'));
      });
    });
    streamed.catch(() => {}); // awaited below, perhaps after the exit
    let reported = 0n;
    unframer.on('data', () => {
      if (unframer.bytes - reported >= 1n << 20n) o.onBytes((reported = unframer.bytes));
    });
    socket.write('OK\n');
    socket.pipe(unframer).pipe(child.stdin);
    socket.resume();
    // btrfs receive exits at the end of its input, or early on a bad stream.
    const code = await Promise.race([exited, streamed.then(() => exited)]);
    if (signal.aborted) throw abortError();
    if (code !== 0) throw new TransferError(`btrfs receive failed (${code}): ${stderr()}`);
    await streamed;
    const wrong = await o.check();
    if (wrong) throw new TransferError(wrong);
    o.onBytes(unframer.bytes);
    await new Promise<void>((resolve) => socket.end(`DONE ${unframer.bytes}\n`, () => resolve()));
    return unframer.bytes;
  } catch (e) {
    kill();
    if (!socket.destroyed && socket.writable) socket.end(`ERR ${oneLine((e as Error).message)}\n`);
    throw e;
  } finally {
    signal.removeEventListener('abort', kill);
    kill();
    await exited;
    setTimeout(() => socket.destroy(), 1_000).unref();
  }
}
