// A short token naming the content of an answer an agent long-polls for (its pods, its pool
// work): the agent sends it back as `seen`, and the server holds an answer that would be the same.
import { createHash } from 'node:crypto';

export function answerVersion(answer: unknown): string {
  return createHash('sha256').update(JSON.stringify(answer)).digest('base64url').slice(0, 22);
}
