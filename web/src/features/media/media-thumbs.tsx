import { useEffect, useState } from 'react';
import type { MediaRef } from '../../../../shared/src/contracts/conversations';
import { useAuth } from '../auth/auth-context';

type Loaded = { state: 'loading' } | { state: 'ready'; url: string } | { state: 'failed' };

/**
 * A text's photos as thumbnails, fetched from `/api/media/:id` with the session token (an <img src> cannot
 * carry it) and shown as blob URLs; a tap opens the full photo. A photo that cannot be fetched says so
 * instead of leaving a broken image.
 */
export function MediaThumbs({ media, label }: { media: MediaRef[]; label?: string }) {
  if (!media.length) return null;
  return (
    <ul className="media-thumbs" aria-label={label ?? 'Photos'}>
      {media.map((m, i) => (
        <li key={m.id}>
          <Thumb media={m} n={i + 1} />
        </li>
      ))}
    </ul>
  );
}

function Thumb({ media, n }: { media: MediaRef; n: number }) {
  const { getToken } = useAuth();
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' });
  const image = !!media.type?.startsWith('image/');
  useEffect(() => {
    let url: string | undefined;
    let gone = false;
    void (async () => {
      try {
        const token = await getToken();
        const res = await fetch(`/api/media/${encodeURIComponent(media.id)}`, {
          headers: token ? { authorization: `Bearer ${token}` } : {},
        });
        if (!res.ok) throw new Error(String(res.status));
        url = URL.createObjectURL(await res.blob());
        if (!gone) setLoaded({ state: 'ready', url });
      } catch {
        if (!gone) setLoaded({ state: 'failed' });
      }
    })();
    return () => {
      gone = true;
      if (url) URL.revokeObjectURL(url);
    };
  }, [media.id, getToken]);

  if (loaded.state === 'failed') return <span className="media-missing">Photo {n} unavailable</span>;
  if (loaded.state === 'loading')
    return (
      <span className="media-loading" role="img" aria-label={`Loading ${n}`}>
        {' '}
      </span>
    );
  if (!image)
    return (
      <a className="media-file" href={loaded.url} download>
        File {n} ({media.type ?? 'unknown type'})
      </a>
    );
  return (
    <a href={loaded.url} target="_blank" rel="noreferrer" className="media-link">
      <img src={loaded.url} alt={`Sent with the message (${n})`} className="media-thumb" />
    </a>
  );
}
