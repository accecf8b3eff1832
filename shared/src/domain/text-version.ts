import { createHash } from 'node:crypto';

/**
 * A short content hash of a file's text: what an editor (or a policy proposal) started from, compared before
 * a write replaces the file, so a change made against an older text never silently undoes a newer one.
 */
export function textVersion(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
