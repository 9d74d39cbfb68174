import { describe, expect, test } from 'vitest';
import { crossOriginProblem, dashboardOrigins } from './origin';

describe('dashboardOrigins: from the configuration only', () => {
  test.each([
    { name: 'a loopback address: also localhost and ::1', host: '127.0.0.1', port: 3000, want: ['http://127.0.0.1:3000', 'http://[::1]:3000', 'http://localhost:3000'] },
    { name: 'localhost', host: 'localhost', port: 3000, want: ['http://127.0.0.1:3000', 'http://[::1]:3000', 'http://localhost:3000'] },
    { name: 'an address of the machine', host: '10.0.0.5', port: 8080, want: ['http://10.0.0.5:8080'] },
    { name: 'port 80 is left out, as browsers do', host: '10.0.0.5', port: 80, want: ['http://10.0.0.5'] },
    { name: 'an IPv6 address', host: 'fd00::5', port: 3000, want: ['http://[fd00::5]:3000'] },
    {
      name: 'every address: the machine names and loopback',
      host: '0.0.0.0',
      port: 3000,
      machineNames: ['10.0.0.5', 'box'],
      want: ['http://10.0.0.5:3000', 'http://127.0.0.1:3000', 'http://[::1]:3000', 'http://box:3000', 'http://localhost:3000'],
    },
    {
      name: 'public origins from STOWAGE_ALLOWED_ORIGINS, normalised; a malformed one is ignored',
      host: '10.0.0.5',
      port: 3000,
      allowed: ['https://Stowage.Example.com:443', 'not a url'],
      want: ['http://10.0.0.5:3000', 'https://stowage.example.com'],
    },
  ])('$name', ({ host, port, machineNames, allowed, want }) => {
    expect([...dashboardOrigins({ host, port, machineNames, allowedOrigins: allowed })].sort()).toEqual(want.sort());
  });
});

describe('crossOriginProblem', () => {
  const origins = dashboardOrigins({ host: '127.0.0.1', port: 3000, allowedOrigins: ['https://stowage.example.com'] });
  test.each([
    { name: 'a GET from anywhere', method: 'GET', headers: { origin: 'https://evil.example' }, refused: false },
    { name: 'a POST from the dashboard', method: 'POST', headers: { origin: 'http://127.0.0.1:3000' }, refused: false },
    { name: 'a POST from the dashboard as localhost', method: 'POST', headers: { origin: 'http://localhost:3000' }, refused: false },
    { name: 'a POST from the public origin behind a proxy', method: 'POST', headers: { origin: 'https://stowage.example.com' }, refused: false },
    { name: 'a POST from another origin', method: 'POST', headers: { origin: 'https://evil.example' }, refused: true },
    { name: 'a POST whose Host matches its foreign Origin (DNS rebinding)', method: 'POST', headers: { origin: 'http://evil.example:3000', host: 'evil.example:3000' }, refused: true },
    { name: 'a POST from the dashboard host on another port', method: 'POST', headers: { origin: 'http://127.0.0.1:3001' }, refused: true },
    { name: 'a POST from the dashboard host over the other scheme', method: 'POST', headers: { origin: 'https://127.0.0.1:3000' }, refused: true },
    { name: 'a POST with Origin null', method: 'POST', headers: { origin: 'null' }, refused: true },
    { name: 'a POST with an unreadable Origin', method: 'POST', headers: { origin: 'http://[' }, refused: true },
    { name: 'a POST with no Origin (a script)', method: 'POST', headers: {}, refused: false },
    { name: 'a POST with no Origin and a Referer from the dashboard', method: 'POST', headers: { referer: 'http://127.0.0.1:3000/claims?x=1' }, refused: false },
    { name: 'a POST with no Origin and a foreign Referer', method: 'POST', headers: { referer: 'https://evil.example/page' }, refused: true },
    { name: 'Origin wins over Referer', method: 'POST', headers: { origin: 'https://evil.example', referer: 'http://127.0.0.1:3000/' }, refused: true },
    { name: 'a POST marked cross-site without Origin', method: 'POST', headers: { 'sec-fetch-site': 'cross-site' }, refused: true },
    { name: 'a DELETE from another origin', method: 'DELETE', headers: { origin: 'http://b:3000' }, refused: true },
  ])('$name: refused=$refused', ({ method, headers, refused }) => {
    expect(crossOriginProblem(method, headers, origins) !== undefined).toBe(refused);
  });

  test("a refusal names the Referer's origin only, not its path", () => {
    expect(crossOriginProblem('POST', { referer: 'https://evil.example/secret?token=x' }, origins)).toBe('origin https://evil.example may not change anything here');
  });
});
