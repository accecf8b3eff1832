import { randomUUID } from 'node:crypto';

/** Time-ordered ids (ISO timestamp prefix + random) so DynamoDB sort keys list in arrival order. */
export function newId(prefix = ''): string {
  const ts = Date.now().toString(36).padStart(9, '0');
  return `${prefix}${ts}${randomUUID().replace(/-/g, '').slice(0, 12)}`;
}
