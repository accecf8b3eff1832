/**
 * Response headers for the API and the PWA (issue 12, SPEC §6.5). The PWA's CSP allows what Clerk documents
 * for production (clerk.com/docs/guides/secure/best-practices/csp-headers, read 2026-11-23): its Frontend
 * API host in script-src and connect-src, challenges.cloudflare.com for bot protection (script-src,
 * frame-src), *.protect.clerk.com (any port) for abuse protection, img.clerk.com, workers from 'self' and
 * blob:, and inline styles for its CSS-in-JS. On AWS, CloudFront's response-headers policy is the PWA's one
 * source of headers, and its CSP is built by `pwaContentSecurityPolicy` below, as the local server's is.
 */

/** The Frontend API host a publishable key names (`pk_live_<base64("clerk.example.com$")>`), if any. */
export function clerkFrontendApi(publishableKey: string | undefined): string | undefined {
  const m = publishableKey?.match(/^pk_(?:live|test)_([A-Za-z0-9+/=_-]+)$/);
  if (!m?.[1]) return undefined;
  const host = Buffer.from(m[1], 'base64').toString('utf8').replace(/\$$/, '');
  return /^[a-z0-9.-]+\.[a-z]{2,}$/i.test(host) ? `https://${host}` : undefined;
}

/**
 * The PWA's CSP, locally and on CloudFront (infra/lib/edge/content-security-policy.ts builds the template's
 * from this). On AWS the live channel's socket is the WebSocket API's own host, and before a Clerk key is
 * configured the hosts of Clerk development instances are allowed so a first deploy still loads.
 */
export function pwaContentSecurityPolicy(
  opts: { clerkPublishableKey?: string; liveSocketOrigin?: string; clerkDevInstances?: boolean } = {},
): string {
  const fapi = clerkFrontendApi(opts.clerkPublishableKey);
  const clerk = fapi ? [fapi] : opts.clerkDevInstances ? ['https://*.clerk.accounts.dev'] : [];
  const live = opts.liveSocketOrigin ? [opts.liveSocketOrigin] : [];
  const directives: Record<string, string[]> = {
    'default-src': ["'self'"],
    'script-src': ["'self'", ...clerk, 'https://challenges.cloudflare.com', 'https://*.protect.clerk.com'],
    'connect-src': ["'self'", ...clerk, 'https://*.protect.clerk.com:*', ...live],
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
