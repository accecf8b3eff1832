import { BODY_HASH_HEADER, SESSION_HEADER } from '../../../shared/src/contracts/edge';

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * fetch for routes served by a function URL behind CloudFront origin access control (/api/chat): the session
 * moves from Authorization (which CloudFront replaces with its SigV4 signature) to SESSION_HEADER, and a
 * string body gets the SHA-256 header OAC needs to sign a POST. Other bodies are sent as they are.
 */
export async function signedBodyFetch(input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const auth = headers.get('authorization');
  if (auth) {
    headers.delete('authorization');
    headers.set(SESSION_HEADER, auth);
  }
  if (typeof init.body === 'string') headers.set(BODY_HASH_HEADER, await sha256Hex(init.body));
  return fetch(input, { ...init, headers });
}
