import { extractEmails } from './extract-emails';

/**
 * Whether an email really comes from the team's own domain, from Gmail's own verdict (issue 17).
 *
 * Gmail's receiving server prepends one `Authentication-Results` header (RFC 8601) to every message it
 * accepts, e.g. `mx.google.com; spf=pass … smtp.mailfrom=…; dkim=pass header.i=@oak.example; dmarc=pass
 * (p=REJECT sp=REJECT dis=NONE) header.from=oak.example`. The `From:` line itself proves nothing: anyone can
 * write `From: alex@oak.example`. Only DMARC ties the visible From domain to SPF or DKIM.
 *
 * The sender can put `Authentication-Results` headers of their own in the message too (RFC 8601 §7.2), and
 * those sit BELOW the one Gmail adds. So only the top-most header counts, and only when its authserv-id is
 * Gmail's; anything else is no verdict at all.
 */
export const GMAIL_AUTHSERV_ID = 'mx.google.com';

export interface DmarcVerdict {
  /** RFC 8601 / RFC 7489 result: pass, fail, none, temperror, permerror (lower-cased). */
  result: string;
  /** The domain DMARC evaluated: the visible From domain (`header.from`). */
  headerFrom: string;
}

/** Comments in parentheses carry no results (RFC 8601 §2.2); dropping them keeps the parse simple. */
const stripComments = (s: string) => s.replace(/\([^()]*\)/g, ' ');

/** The DMARC verdict of the top-most Authentication-Results header, if Gmail wrote it. */
export function dmarcVerdict(
  authResults: readonly string[],
  authservId = GMAIL_AUTHSERV_ID,
): DmarcVerdict | undefined {
  const top = authResults[0];
  if (!top) return undefined;
  const [id, ...resinfo] = stripComments(top).split(';');
  // authserv-id may be followed by a version number ("mx.google.com 1").
  if (id?.trim().split(/\s+/)[0]?.toLowerCase() !== authservId) return undefined;
  for (const part of resinfo) {
    const m = part.trim().match(/^dmarc\s*=\s*([a-z]+)\b(.*)$/i);
    if (!m) continue;
    const from = m[2]?.match(/\bheader\.from\s*=\s*([^\s;]+)/i)?.[1];
    return { result: (m[1] ?? '').toLowerCase(), headerFrom: (from ?? '').toLowerCase() };
  }
  return undefined;
}

/**
 * Team mail: the From address is on one of the team's domains AND Gmail's DMARC check passed for exactly
 * that domain. Mail that only claims the domain (no verdict, a failed one, another domain's) is outside mail.
 */
export function isTeamMail(
  from: string,
  verdict: DmarcVerdict | undefined,
  teamDomains: readonly string[],
): boolean {
  const address = extractEmails(from)[0] ?? '';
  const domain = address.split('@')[1]?.toLowerCase();
  if (!domain || !teamDomains.map((d) => d.toLowerCase()).includes(domain)) return false;
  return verdict?.result === 'pass' && verdict.headerFrom === domain;
}
