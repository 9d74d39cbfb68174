// Cross-site request refusal for the dashboard: a state-changing request (anything but
// GET, HEAD, OPTIONS) that a browser sends from another origin is refused, so a page
// elsewhere cannot use a signed-in user's session cookie. Browsers send Origin on every
// cross-origin POST (and Sec-Fetch-Site); scripts and CLIs send neither and authenticate
// with bearer tokens, so a request without both is let through. Pure.
import type { IncomingHttpHeaders } from 'node:http';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Why the request is refused, or undefined when it may go on. */
export function crossOriginProblem(
  method: string,
  headers: IncomingHttpHeaders,
  opts: { secure: boolean; allowedOrigins?: readonly string[] },
): string | undefined {
  if (SAFE.has(method.toUpperCase())) return undefined;
  const origin = typeof headers.origin === 'string' ? headers.origin.replace(/\/+$/, '') : undefined;
  const site = typeof headers['sec-fetch-site'] === 'string' ? headers['sec-fetch-site'] : undefined;
  if (origin === undefined || origin === 'null') {
    if (origin === 'null') return 'a request from an opaque origin may not change anything';
    return site === 'cross-site' ? 'a cross-site request may not change anything' : undefined;
  }
  const host = headers.host;
  const own = host ? `${opts.secure ? 'https' : 'http'}://${host}` : undefined;
  if (origin === own || opts.allowedOrigins?.includes(origin)) return undefined;
  return `origin ${origin} may not change anything here`;
}
