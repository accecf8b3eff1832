import { pwaContentSecurityPolicy } from '../../../shared/src/domain/security-headers';

/**
 * The PWA's Content-Security-Policy on CloudFront: the same policy the local PWA server sends (one source,
 * shared/src/domain/security-headers.ts: our own origin plus exactly what Clerk documents, frame-ancestors
 * 'none'), with the live channel's WebSocket host in connect-src and, while no publishable key is configured,
 * Clerk development instances' hosts so a first deploy still loads.
 */
export function contentSecurityPolicy(publishableKey: string | undefined, liveSocketOrigin?: string): string {
  return pwaContentSecurityPolicy({
    ...(publishableKey ? { clerkPublishableKey: publishableKey } : {}),
    ...(liveSocketOrigin ? { liveSocketOrigin } : {}),
    clerkDevInstances: true,
  });
}
