// Cross-site request refusal for the dashboard: a state-changing request (anything but
// GET, HEAD, OPTIONS) that a browser sends from a page that is not the dashboard's is
// refused, so a page elsewhere cannot use a signed-in user's session cookie.
//
// The dashboard's origins come from its configuration, never from the request: the
// address and port it listens on (HOST, PORT; a loopback address also as `localhost`; a
// wildcard address as every address of the machine and its host name) and the origins
// listed in STOWAGE_ALLOWED_ORIGINS (its public name behind a proxy). The Host header is
// not trusted: a page on a name that resolves to the dashboard (DNS rebinding) sends a
// Host that matches its own Origin.
//
// Browsers send Origin on every cross-origin POST (and Sec-Fetch-Site); when Origin is
// absent the Referer's origin stands in for it, as the Fetch standard allows. Scripts and
// CLIs send neither and authenticate with bearer tokens, so a request without both is let
// through unless it says it is cross-site. Pure.
import type { IncomingHttpHeaders } from 'node:http';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** An origin as browsers serialise it (`http://host:port`, default port left out), or undefined. */
export function normalOrigin(text: string): string | undefined {
  try {
    const u = new URL(text);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
    return u.origin;
  } catch {
    return undefined;
  }
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function isWildcard(host: string): boolean {
  return host === '' || host === '0.0.0.0' || host === '::' || host === '[::]';
}

function hostPart(host: string): string {
  const bare = host.replace(/^\[|\]$/g, '');
  return bare.includes(':') ? `[${bare}]` : bare;
}

export interface DashboardAddress {
  /** The address the dashboard listens on (HOST). */
  host: string;
  /** The port it listens on (PORT, once bound). */
  port: number;
  /** STOWAGE_ALLOWED_ORIGINS: its public origins (a proxy's https name ...). */
  allowedOrigins?: readonly string[];
  /** For a wildcard host: the machine's addresses and its host name. */
  machineNames?: readonly string[];
}

/** Every origin a page of the dashboard may have, from its configuration. */
export function dashboardOrigins(a: DashboardAddress): Set<string> {
  const host = a.host.replace(/^\[|\]$/g, '');
  const names = new Set<string>();
  if (isWildcard(host)) for (const n of [...(a.machineNames ?? []), '127.0.0.1', '::1', 'localhost']) names.add(n);
  else names.add(host);
  if ([...names].some(isLoopback)) for (const n of ['127.0.0.1', '::1', 'localhost']) names.add(n);
  const out = new Set<string>();
  for (const n of names) {
    const o = normalOrigin(`http://${hostPart(n)}:${a.port}`);
    if (o) out.add(o);
  }
  for (const o of a.allowedOrigins ?? []) {
    const n = normalOrigin(o);
    if (n) out.add(n);
  }
  return out;
}

/** Why the request is refused, or undefined when it may go on. */
export function crossOriginProblem(method: string, headers: IncomingHttpHeaders, origins: ReadonlySet<string>): string | undefined {
  if (SAFE.has(method.toUpperCase())) return undefined;
  const origin = typeof headers.origin === 'string' ? headers.origin.trim() : undefined;
  const referer = typeof headers.referer === 'string' ? headers.referer.trim() : undefined;
  const site = typeof headers['sec-fetch-site'] === 'string' ? headers['sec-fetch-site'] : undefined;
  if (origin === 'null') return 'a request from an opaque origin may not change anything';
  const claimed = origin || referer;
  if (!claimed) {
    return site === 'cross-site' ? 'a cross-site request may not change anything' : undefined;
  }
  const from = normalOrigin(claimed);
  if (from && origins.has(from)) return undefined;
  // Only the origin is named: a Referer's path and query stay out of the answer.
  return `origin ${from ?? 'that cannot be read'} may not change anything here`;
}
