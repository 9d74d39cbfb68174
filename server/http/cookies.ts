import type { IncomingMessage } from 'node:http';

export const SESSION_COOKIE = 'stowage_session';

export function readCookie(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    if (part.slice(0, i).trim() === name) return decodeURIComponent(part.slice(i + 1).trim());
  }
  return undefined;
}

export function sessionCookie(token: string | null, secure: boolean): string {
  const attrs = ['Path=/', 'HttpOnly', 'SameSite=Lax', ...(secure ? ['Secure'] : [])];
  if (token === null) return `${SESSION_COOKIE}=; Max-Age=0; ${attrs.join('; ')}`;
  return `${SESSION_COOKIE}=${encodeURIComponent(token)}; Max-Age=${7 * 24 * 3600}; ${attrs.join('; ')}`;
}

export function bearerToken(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  if (!h) return undefined;
  const m = /^Bearer\s+(.+)$/i.exec(h.trim());
  return m?.[1]?.trim();
}
