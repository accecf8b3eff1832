import { createHash } from 'node:crypto';

/**
 * EventBridge Scheduler names are 1–64 characters of `[0-9a-zA-Z-_.]`; our ids may be longer or hold other
 * characters, so a schedule is named by its purpose and a hash of what it is about (stable across replays).
 */
export function scheduleName(purpose: string, ref: string): string {
  const prefix = purpose.replace(/[^0-9a-zA-Z-_.]/g, '-').slice(0, 20);
  return `${prefix}-${createHash('sha256').update(ref).digest('hex').slice(0, 40)}`;
}
