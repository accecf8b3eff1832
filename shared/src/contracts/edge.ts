/**
 * The header the PWA carries its session in on /api/chat. That route reaches a Lambda function URL through
 * CloudFront origin access control, which SigV4-signs each request into the Authorization header, so the
 * Clerk bearer token travels beside it instead ("Bearer <jwt>", same form).
 */
export const SESSION_HEADER = 'x-switchboard-session';

/** CloudFront OAC cannot hash a POST body for a Lambda origin: the viewer sends its SHA-256 (hex) here. */
export const BODY_HASH_HEADER = 'x-amz-content-sha256';
