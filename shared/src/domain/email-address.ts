/**
 * One email address, parsed strictly enough to decide which domain it belongs to: exactly one `@`, a
 * non-empty local part without spaces or angle brackets, and a domain of dot-separated DNS labels. Anything
 * else (`mallory@evil.example@oakproperties.example`, `"a@b"@c`, display-name forms) is not an address here:
 * an allow-list check must never have to guess which `@` counts.
 */
export interface EmailAddress {
  address: string;
  local: string;
  domain: string;
}

const LOCAL = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}$/;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export function parseEmailAddress(raw: string): EmailAddress | null {
  const address = raw.trim().toLowerCase();
  if (address.length > 254) return null;
  const parts = address.split('@');
  if (parts.length !== 2) return null;
  const [local, domain] = parts as [string, string];
  if (!LOCAL.test(local) || local.startsWith('.') || local.endsWith('.') || local.includes('..')) return null;
  const labels = domain.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) return null;
  return { address, local, domain };
}

/** Whether an address's domain is on the allow-list (exact domain match; entries may carry a leading `@`). */
export function domainAllowed(email: EmailAddress, allowed: ReadonlySet<string>): boolean {
  return allowed.has(email.domain);
}
