import { describe, expect, it } from 'vitest';
import { conflict, notFound, StowageError } from '../../domain/errors';
import { RowBusyError } from './controller-tx';
import { errorText, expectedContention } from './errors';

const pgError = (code: string, message = 'pg') => Object.assign(new Error(message), { code });

describe('expectedContention', () => {
  it.each([
    { name: 'a row busy in another transaction', err: new RowBusyError('PersistentVolume "a"'), want: 'row busy in another transaction' },
    { name: 'a stale write', err: conflict('PersistentVolume', 'a', 'persistentvolumes'), want: /^conflict: Operation cannot be fulfilled/ },
    { name: 'an object gone meanwhile', err: notFound('PersistentVolume', 'a', 'persistentvolumes'), want: 'notfound: persistentvolumes "a" not found' },
    { name: 'lock_not_available (55P03)', err: pgError('55P03'), want: 'row lock not available' },
    { name: 'serialization_failure (40001)', err: pgError('40001'), want: 'serialization conflict' },
    { name: 'admin_shutdown (57P01)', err: pgError('57P01'), want: 'database unavailable: the database is shutting down' },
    { name: 'the connection closed at shutdown', err: new Error('Connection terminated'), want: 'database unavailable: the database connection closed' },
    { name: 'the connection closed unexpectedly', err: new Error('Connection terminated unexpectedly'), want: 'database unavailable: the database connection closed' },
    { name: 'an invalid object (a real error)', err: new StowageError('Invalid', 'bad'), want: undefined },
    { name: 'a syntax error (a real error)', err: pgError('42601'), want: undefined },
    { name: 'a TypeError (a real error)', err: new TypeError('x is undefined'), want: undefined },
    { name: 'not an Error at all', err: 'boom', want: undefined },
  ])('$name', ({ err, want }) => {
    const got = expectedContention(err);
    if (want instanceof RegExp) expect(got).toMatch(want);
    else expect(got).toBe(want);
  });
});

describe('errorText', () => {
  it.each([
    { name: 'a plain error', error: new Error('disk full'), text: 'disk full' },
    { name: 'a database error inside a client dump', error: new Error('\nInvalid `prisma.$executeRawUnsafe()` invocation:\nRaw query failed. Code: `P0001`. Message: `no PVs today`'), text: 'no PVs today' },
    { name: 'not an error', error: 'just text', text: 'just text' },
  ])('$name', ({ error, text }) => {
    expect(errorText(error)).toBe(text);
  });
});
