import { NotFoundError, UpstreamError } from '../errors';
import type { MediaContent, MediaFetcher, MediaStore } from '../ports/media-store';

/**
 * Past this a media item is refused: a Lambda response carries 6 MB (binary goes base64, +33%), and the
 * Messages API takes images up to 5 MB. Carriers cap MMS well below it.
 */
export const MAX_MEDIA_BYTES = 4 * 1024 * 1024;
const TIMEOUT_MS = 10_000;

export interface HttpMediaFetcherOptions {
  store: MediaStore;
  /** The OpenPhone API origin: only a URL there gets the API key (Quo's storage URLs are public). */
  openPhoneBase: string;
  openPhoneKey?: string;
  fetchImpl?: typeof fetch;
}

/**
 * Fetches a message's photo from the provider by our media id. The key goes only to the OpenPhone API's own
 * origin, never to a third-party storage host; only http(s) URLs are fetched (they came in a signed webhook,
 * but a stored record is still not a reason to follow any scheme).
 */
export function httpMediaFetcher(opts: HttpMediaFetcherOptions): MediaFetcher {
  const doFetch = opts.fetchImpl ?? fetch;
  const apiOrigin = new URL(opts.openPhoneBase).origin;
  return {
    async fetch(id) {
      const rec = await opts.store.get(id);
      if (!rec) throw new NotFoundError(`No media ${id}`);
      let url: URL;
      try {
        url = new URL(rec.url);
      } catch {
        throw new UpstreamError(`Media ${id} has no usable address`, { retryable: false });
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:')
        throw new UpstreamError(`Media ${id} has no usable address`, { retryable: false });
      const headers: Record<string, string> = {};
      if (opts.openPhoneKey && url.origin === apiOrigin) headers.authorization = opts.openPhoneKey;
      const res = await doFetch(url, { headers, signal: AbortSignal.timeout(TIMEOUT_MS) }).catch((e) => {
        throw new UpstreamError(`The provider did not answer for media ${id}`, { cause: e });
      });
      if (res.status === 404 || res.status === 410)
        throw new NotFoundError(`Media ${id} is gone at the provider`);
      if (!res.ok) throw new UpstreamError(`The provider answered ${res.status} for media ${id}`);
      return readCapped(res, id, rec.type);
    },
  };
}

async function readCapped(res: Response, id: string, stored: string | null): Promise<MediaContent> {
  const declared = Number(res.headers.get('content-length') ?? '0');
  if (declared > MAX_MEDIA_BYTES) throw tooBig(id);
  const data = Buffer.from(await res.arrayBuffer());
  if (data.length > MAX_MEDIA_BYTES) throw tooBig(id);
  const type = stored ?? res.headers.get('content-type') ?? 'application/octet-stream';
  return { type, data };
}

const tooBig = (id: string) =>
  new UpstreamError(`Media ${id} is over ${MAX_MEDIA_BYTES / 1024 / 1024} MB`, {
    retryable: false,
    code: 'media_too_large',
  });
