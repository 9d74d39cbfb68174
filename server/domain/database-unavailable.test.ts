import { describe, expect, it } from 'vitest';
import { databaseUnavailableReason } from './database-unavailable';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('databaseUnavailableReason', () => {
  const cases: [string, unknown, string | undefined][] = [
    ['admin shutdown (pg_ctl stop -m fast)', withCode('terminating connection due to administrator command', '57P01'), 'the database is shutting down'],
    ['crash recovery', withCode('terminating connection because of crash of another server process', '57P02'), 'the database is restarting after a crash'],
    ['starting up', withCode('the database system is starting up', '57P03'), 'the database is starting up'],
    ['standby not yet promoted', withCode('cannot execute INSERT in a read-only transaction', '25006'), 'the database is a read-only standby'],
    ['connection failure class', withCode('connection failure', '08006'), 'the database connection failed'],
    ['too many connections', withCode('sorry, too many clients already', '53300'), 'the database has no free connections'],
    ['statement timeout', withCode('canceling statement due to statement timeout', '57014'), 'the database statement was cancelled (timeout)'],
    ['refused', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'), 'the database refused the connection'],
    ['reset', withCode('read ECONNRESET', 'ECONNRESET'), 'the database connection was reset'],
    ['terminated', new Error('Connection terminated unexpectedly'), 'the database connection closed'],
    ['connect timeout', new Error('Connection terminated due to connection timeout'), 'the database connection closed'],
    ['pool wait timeout', new Error('timeout exceeded when trying to connect'), 'no database connection was free in time'],
    ['client-side query timeout', new Error('Query read timeout'), 'the database did not answer in time'],
    ['closed client', new Error('Client has encountered a connection error and is not queryable'), 'the database connection closed'],
    ['several addresses refused', new AggregateError([withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')], ''), 'the database refused the connection'],
    ['wrapped in a cause', new Error('write failed', { cause: withCode('x', '57P01') }), 'the database is shutting down'],
    // Not availability: the request or the data is at fault, or it is a bug.
    ['unique violation', withCode('duplicate key value violates unique constraint', '23505'), undefined],
    ['serialization failure', withCode('could not serialize access', '40001'), undefined],
    ['syntax error', withCode('syntax error at or near', '42601'), undefined],
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'spec')"), undefined],
    ['a message that only mentions a connection', new Error('Connection terminated unexpectedly, said the user'), undefined],
    ['not an error', 'ECONNREFUSED', undefined],
    ['code key is data', withCode('x', '__proto__'), undefined],
    ['code toString is data', withCode('x', 'toString'), undefined],
  ];
  it.each(cases)('%s', (_name, e, want) => {
    expect(databaseUnavailableReason(e)).toBe(want);
  });

  it('stops at a bounded depth of causes', () => {
    let e: Error = withCode('x', '57P01');
    for (let i = 0; i < 10; i++) e = new Error('wrap', { cause: e });
    expect(databaseUnavailableReason(e)).toBeUndefined();
  });
});
