import { describe, expect, test } from 'vitest';
import { crossOriginProblem } from './origin';

describe('crossOriginProblem', () => {
  test.each([
    { name: 'a GET from anywhere', method: 'GET', headers: { origin: 'https://evil.example', host: 'a:3000' }, refused: false },
    { name: 'a POST from the same origin', method: 'POST', headers: { origin: 'http://a:3000', host: 'a:3000' }, refused: false },
    { name: 'a POST from another origin', method: 'POST', headers: { origin: 'https://evil.example', host: 'a:3000' }, refused: true },
    { name: 'a POST from the same host over the other scheme', method: 'POST', headers: { origin: 'https://a:3000', host: 'a:3000' }, refused: true },
    { name: 'a POST from an allowed origin', method: 'POST', headers: { origin: 'https://proxy.example', host: 'a:3000' }, refused: false },
    { name: 'a POST with Origin null', method: 'POST', headers: { origin: 'null', host: 'a:3000' }, refused: true },
    { name: 'a POST with no Origin (a script)', method: 'POST', headers: { host: 'a:3000' }, refused: false },
    { name: 'a POST marked cross-site without Origin', method: 'POST', headers: { host: 'a:3000', 'sec-fetch-site': 'cross-site' }, refused: true },
    { name: 'a DELETE from another origin', method: 'DELETE', headers: { origin: 'http://b:3000', host: 'a:3000' }, refused: true },
  ])('$name: refused=$refused', ({ method, headers, refused }) => {
    const problem = crossOriginProblem(method, headers, { secure: false, allowedOrigins: ['https://proxy.example'] });
    expect(problem !== undefined).toBe(refused);
  });
});
