// The health endpoints' answers, as kube-apiserver's healthz package gives them:
//   GET /livez, /readyz, /healthz        200 `ok`, or 500 with one line per check
//   GET /readyz?verbose                  one line per check, then `readyz check passed`
//   GET /readyz?exclude=<check>          that check is skipped (`[+]<check> excluded: ok`)
//   GET /readyz/<check>                  that check alone: 200 `ok` or 500
// A failed check's reason never reaches the body (`[-]<check> failed: reason withheld`):
// the service that ran it logs the reason. /healthz is the deprecated form of both.

export type HealthEndpoint = 'livez' | 'readyz' | 'healthz';

export const HEALTH_ENDPOINTS: readonly HealthEndpoint[] = ['livez', 'readyz', 'healthz'];

export interface HealthRequest {
  endpoint: HealthEndpoint;
  /** `/readyz/<check>`: that check alone. */
  check?: string;
  verbose: boolean;
  exclude: string[];
}

export interface CheckResult {
  name: string;
  ok: boolean;
}

export interface HealthAnswer {
  status: 200 | 404 | 500;
  body: string;
}

export const HEALTH_HEADERS = { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' };

/** The health request a path and query name, or undefined when the path is not a health path. */
export function parseHealthRequest(pathname: string, query: URLSearchParams): HealthRequest | undefined {
  const segs = pathname.replace(/\/+$/, '').split('/').slice(1);
  const endpoint = HEALTH_ENDPOINTS.find((e) => e === segs[0]);
  if (!endpoint || segs.length > 2) return undefined;
  const check = segs.length === 2 ? segs[1] : undefined;
  if (check === '') return undefined;
  return { endpoint, check, verbose: query.has('verbose'), exclude: query.getAll('exclude').flatMap((e) => e.split(',')).filter(Boolean) };
}

/** The checks to run for a request, of those installed on its endpoint; undefined: no such check (404). */
export function checksToRun(req: HealthRequest, installed: readonly string[]): string[] | undefined {
  if (req.check !== undefined) return installed.includes(req.check) ? [req.check] : undefined;
  return installed.filter((n) => !req.exclude.includes(n));
}

/** The status and body for a request, given the installed checks and the results of those that ran. */
export function formatHealth(req: HealthRequest, installed: readonly string[], results: readonly CheckResult[]): HealthAnswer {
  const ok = new Map(results.map((r) => [r.name, r.ok]));
  if (req.check !== undefined) {
    if (!installed.includes(req.check)) return { status: 404, body: '404 page not found\n' };
    return ok.get(req.check) ? { status: 200, body: 'ok' } : { status: 500, body: 'internal server error: reason withheld\n' };
  }
  const lines: string[] = [];
  let failed = false;
  for (const name of installed) {
    if (req.exclude.includes(name)) {
      lines.push(`[+]${name} excluded: ok`);
    } else if (ok.get(name)) {
      lines.push(`[+]${name} ok`);
    } else {
      // A check without a result did not answer: a failure.
      failed = true;
      lines.push(`[-]${name} failed: reason withheld`);
    }
  }
  const unknown = [...new Set(req.exclude.filter((e) => !installed.includes(e)))];
  if (unknown.length) lines.push(`warn: some health checks cannot be excluded: no matches for ${unknown.map((u) => JSON.stringify(u)).join(',')}`);
  const report = lines.map((l) => `${l}\n`).join('');
  if (failed) return { status: 500, body: `${report}${req.endpoint} check failed\n` };
  if (!req.verbose) return { status: 200, body: 'ok' };
  return { status: 200, body: `${report}${req.endpoint} check passed\n` };
}
