/**
 * Response headers for the API and the PWA (issue 12, SPEC §6.5). The PWA's CSP allows what Clerk documents
 * for production (clerk.com/docs/guides/secure/best-practices/csp-headers, read 2026-11-23): its Frontend
 * API host in script-src and connect-src, challenges.cloudflare.com for bot protection (script-src,
 * frame-src), *.protect.clerk.com (any port) for abuse protection, img.clerk.com, workers from 'self' and
 * blob:, and inline styles for its CSS-in-JS. On AWS, CloudFront's response-headers policy is the PWA's one
 * source; these values are what the local server sends and what the template is compared with.
 */

/** The Frontend API host a publishable key names (`pk_live_<base64("clerk.example.com$")>`), if any. */
export function clerkFrontendApi(publishableKey: string | undefined): string | undefined {
  const m = publishableKey?.match(/^pk_(?:live|test)_([A-Za-z0-9+/=_-]+)$/);
  if (!m?.[1]) return undefined;
  const host = Buffer.from(m[1], 'base64').toString('utf8').replace(/\$$/, '');
  return /^[a-z0-9.-]+\.[a-z]{2,}$/i.test(host) ? `https://${host}` : undefined;
}

export function pwaContentSecurityPolicy(opts: { clerkPublishableKey?: string } = {}): string {
  const fapi = clerkFrontendApi(opts.clerkPublishableKey);
  const clerk = fapi ? [fapi] : [];
  const directives: Record<string, string[]> = {
    'default-src': ["'self'"],
    'script-src': ["'self'", ...clerk, 'https://challenges.cloudflare.com', 'https://*.protect.clerk.com'],
    'connect-src': ["'self'", ...clerk, 'https://*.protect.clerk.com:*'],
    // blob: for message photos: the PWA fetches them from /api/media/:id with its token (an <img src> cannot
    // carry one) and shows a blob URL; without it the browser blocks the image and the thumbnail is blank.
    'img-src': ["'self'", 'data:', 'blob:', 'https://img.clerk.com'],
    'style-src': ["'self'", "'unsafe-inline'"],
    'worker-src': ["'self'", 'blob:'],
    'frame-src': ['https://challenges.cloudflare.com', 'https://*.protect.clerk.com'],
    'manifest-src': ["'self'"],
    'object-src': ["'none'"],
    'base-uri': ["'self'"],
    'form-action': ["'self'"],
    'frame-ancestors': ["'none'"],
  };
  return Object.entries(directives)
    .map(([k, v]) => `${k} ${v.join(' ')}`)
    .join('; ');
}

const HSTS = 'max-age=63072000; includeSubDomains';

const COMMON = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'strict-origin-when-cross-origin',
} as const;

/** The PWA shell and assets. HSTS only over HTTPS on AWS: locally it would pin 127.0.0.1 to https. */
export function pwaSecurityHeaders(opts: {
  clerkPublishableKey?: string;
  onAws: boolean;
}): Record<string, string> {
  return {
    ...COMMON,
    'content-security-policy': pwaContentSecurityPolicy(opts),
    ...(opts.onAws ? { 'strict-transport-security': HSTS } : {}),
  };
}

/** The API answers JSON only: nothing in it may load, run or be framed. */
export function apiSecurityHeaders(opts: { onAws: boolean }): Record<string, string> {
  return {
    ...COMMON,
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
    ...(opts.onAws ? { 'strict-transport-security': HSTS } : {}),
  };
}
