import { ApiError } from './errors';

/**
 * Google's simple and multipart upload protocols (the `/upload/...` form of a method), as the googleapis
 * client speaks them when a call is given `media`: `uploadType=media` sends the bytes alone,
 * `uploadType=multipart` sends `multipart/related` with the JSON resource first and the bytes second.
 * Resumable uploads (a session URL, then PUTs) are not emulated.
 */
export interface Upload {
  metadata: Record<string, unknown>;
  media: Buffer;
  mediaType: string;
}

const mediaTypeOf = (contentType: string) => (contentType.split(';')[0] ?? '').trim().toLowerCase();

function parseMetadata(text: string): Record<string, unknown> {
  try {
    const json: unknown = text.trim() === '' ? {} : JSON.parse(text);
    if (!json || typeof json !== 'object' || Array.isArray(json)) throw new Error('not an object');
    return json as Record<string, unknown>;
  } catch {
    throw new ApiError(400, 'Invalid JSON payload received.', 'parseError');
  }
}

/** Splits a `multipart/related` body into its parts (headers lower-cased), byte-exact. */
function multipartParts(body: Buffer, boundary: string): { headers: Record<string, string>; body: Buffer }[] {
  // latin1 maps bytes 1:1 to code units, so string offsets are byte offsets.
  const text = body.toString('latin1');
  const delimiter = `--${boundary}`;
  const parts: { headers: Record<string, string>; body: Buffer }[] = [];
  let at = text.indexOf(delimiter);
  if (at < 0) throw new ApiError(400, 'Invalid multipart request: boundary not found.', 'badContent');
  while (true) {
    const afterDelimiter = at + delimiter.length;
    if (text.startsWith('--', afterDelimiter)) break; // the closing delimiter
    const next = text.indexOf(`\r\n${delimiter}`, afterDelimiter);
    const nextLf = next < 0 ? text.indexOf(`\n${delimiter}`, afterDelimiter) : -1;
    const end = next >= 0 ? next : nextLf;
    if (end < 0)
      throw new ApiError(400, 'Invalid multipart request: missing closing boundary.', 'badContent');
    const part = text.slice(afterDelimiter, end).replace(/^[ \t]*\r?\n/, '');
    const split = /\r?\n\r?\n/.exec(part);
    const head = split ? part.slice(0, split.index) : part;
    const content = split ? part.slice(split.index + split[0].length) : '';
    const headers: Record<string, string> = {};
    for (const line of head.split(/\r?\n/)) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    parts.push({ headers, body: Buffer.from(content, 'latin1') });
    at = end + (next >= 0 ? 2 : 1);
  }
  return parts;
}

/** Reads an upload request body; `accepts` says which media types the method takes (e.g. `message/`). */
export function readUpload(
  uploadType: string | undefined,
  contentType: string,
  body: Buffer,
  accepts: (mediaType: string) => boolean,
  acceptedLabel: string,
): Upload {
  const checkMedia = (mediaType: string) => {
    if (!accepts(mediaType)) {
      throw new ApiError(
        400,
        `Media type '${mediaType || 'none'}' is not supported. Valid media types: [${acceptedLabel}]`,
        'badContent',
      );
    }
  };
  if (uploadType === 'media') {
    const mediaType = mediaTypeOf(contentType);
    checkMedia(mediaType);
    return { metadata: {}, media: body, mediaType };
  }
  if (uploadType === 'multipart') {
    const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
    if (mediaTypeOf(contentType) !== 'multipart/related' || !boundary) {
      throw new ApiError(
        400,
        'Invalid multipart request: expected multipart/related with a boundary.',
        'badContent',
      );
    }
    const parts = multipartParts(body, boundary);
    const [meta, media] = parts;
    if (parts.length !== 2 || !meta || !media) {
      throw new ApiError(400, `Invalid multipart request with ${parts.length} mime parts.`, 'badContent');
    }
    if (mediaTypeOf(meta.headers['content-type'] ?? '') !== 'application/json') {
      throw new ApiError(
        400,
        'Invalid multipart request: the first part must be application/json.',
        'badContent',
      );
    }
    const mediaType = mediaTypeOf(media.headers['content-type'] ?? '');
    checkMedia(mediaType);
    return { metadata: parseMetadata(meta.body.toString('utf8')), media: media.body, mediaType };
  }
  throw new ApiError(
    400,
    uploadType === 'resumable'
      ? 'uploadType=resumable is not supported by this emulator; use media or multipart.'
      : `Invalid upload type: ${uploadType ?? '(none)'}`,
    'invalidArgument',
  );
}
