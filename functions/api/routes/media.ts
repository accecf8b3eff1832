import type { Hono } from 'hono';
import { ValidationError } from '../../../shared/src/errors';
import type { AppEnv } from '../app';
import { currentUser } from '../http';

const MEDIA_ID = /^med_[0-9a-f]{32}$/;
/** Types a browser may render inline; anything else is served as a download, never sniffed into a page. */
const INLINE =
  /^(image\/(jpeg|png|gif|webp|heic|heif|bmp)|video\/(mp4|quicktime|3gpp)|audio\/(mpeg|mp4|amr|ogg))$/i;

/**
 * A message's photo, proxied: the session guard has checked the team member, the provider's URL stays on the
 * server, and the bytes come back with the stored type. The PWA fetches it with its Bearer token and shows
 * a blob URL (an <img src> cannot carry the token).
 */
export function registerMediaRoutes(app: Hono<AppEnv>) {
  app.get('/api/media/:id', async (c) => {
    currentUser(c);
    const id = c.req.param('id');
    if (!MEDIA_ID.test(id)) throw new ValidationError('Not a media id.');
    const media = await c.get('core').mediaFetcher.fetch(id);
    const type = media.type.split(';')[0]?.trim() ?? '';
    const inline = INLINE.test(type);
    return c.body(new Uint8Array(media.data), 200, {
      'content-type': inline ? type : 'application/octet-stream',
      'content-disposition': inline ? 'inline' : `attachment; filename="${id}"`,
      'cache-control': 'private, max-age=3600',
    });
  });
}
