/**
 * The Clerk Frontend API host for a publishable key. Clerk's keys are `pk_(test|live)_` + base64 of
 * "<frontend api host>$" (for production instances that host is clerk.<your domain>).
 */
export function clerkFrontendApi(publishableKey: string | undefined): string | undefined {
  const m = /^pk_(test|live)_([A-Za-z0-9+/=_-]+)$/.exec(publishableKey ?? '');
  if (!m?.[2]) return undefined;
  const decoded = Buffer.from(m[2], 'base64').toString('utf8');
  const host = decoded.endsWith('$') ? decoded.slice(0, -1) : '';
  return /^[a-z0-9.-]+\.[a-z]{2,}$/i.test(host) ? host : undefined;
}

/**
 * The PWA's Content-Security-Policy: our own origin, plus exactly what Clerk documents for its components
 * ("Configure Clerk Content-Security-Policy headers": the Frontend API host in script-src and connect-src,
 * Cloudflare's bot protection in script-src and frame-src, img.clerk.com, blob: workers, inline styles for
 * its CSS-in-JS). No key configured yet → Clerk development instances' hosts, so a first deploy still loads.
 * frame-ancestors 'none': nobody may frame the app (clickjacking on the approve button).
 */
export function contentSecurityPolicy(publishableKey: string | undefined, liveSocketOrigin?: string): string {
  const fapi = clerkFrontendApi(publishableKey);
  const clerk = fapi ? `https://${fapi}` : 'https://*.clerk.accounts.dev';
  const cloudflare = 'https://challenges.cloudflare.com';
  return [
    "default-src 'self'",
    `script-src 'self' ${clerk} ${cloudflare}`,
    // The live channel's socket is the WebSocket API's own host (issue 19).
    `connect-src 'self' ${clerk}${liveSocketOrigin ? ` ${liveSocketOrigin}` : ''}`,
    // blob: message photos are fetched with the session token and shown as blob URLs (issue 20).
    "img-src 'self' data: blob: https://img.clerk.com",
    "style-src 'self' 'unsafe-inline'",
    "worker-src 'self' blob:",
    `frame-src ${cloudflare}`,
    "manifest-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}
