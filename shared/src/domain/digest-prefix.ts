/**
 * The person's own digest thread: where the digest is kept, and where its push opens. Apart from ./digest.ts
 * (which re-exports it) so the visibility check every conversation read makes does not load luxon with the
 * digest's formatting (issue 16: the API functions' init).
 */
export const DIGEST_CONVERSATION_PREFIX = 'c_digest_';
