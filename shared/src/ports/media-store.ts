/**
 * Where an inbound photo or file really is: the provider's URL, kept server-side only. Messages carry our id
 * and type (contracts/conversations.ts `mediaRef`); the API's `/api/media/:id` reads this record and proxies.
 */
export interface MediaRecord {
  id: string;
  url: string;
  type: string | null;
  conversationId: string;
  messageId: string;
  createdAt: string;
}

export interface MediaStore {
  /** Idempotent: the same id written again (a replayed step) keeps the first record. */
  put(r: MediaRecord): Promise<void>;
  get(id: string): Promise<MediaRecord | undefined>;
}

/** The bytes of one media item, fetched from the provider. */
export interface MediaContent {
  type: string;
  data: Buffer;
}

export interface MediaFetcher {
  /** Throws NotFoundError for an unknown id, UpstreamError when the provider fails or the file is too big. */
  fetch(id: string): Promise<MediaContent>;
}
