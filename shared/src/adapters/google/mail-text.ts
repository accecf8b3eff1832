import { z } from 'zod';

/**
 * Turns a Gmail message payload (the MIME tree Gmail returns for `format=full`) into the plain text the
 * agent reads: text/plain parts when present, else text/html converted to text; attachments listed, not
 * inlined; quoted reply history dropped (the thread's earlier messages are separate messages anyway); the
 * result capped at a character limit.
 */
export const gmailHeaderSchema = z.object({ name: z.string(), value: z.string() });

export const gmailPartSchema = z.object({
  partId: z.string().optional(),
  mimeType: z.string().optional(),
  filename: z.string().optional(),
  headers: z.array(gmailHeaderSchema).optional(),
  body: z
    .object({ size: z.number().optional(), data: z.string().optional(), attachmentId: z.string().optional() })
    .optional(),
  get parts() {
    return z.array(gmailPartSchema).optional();
  },
});

export type GmailPart = z.infer<typeof gmailPartSchema>;

export function headerOf(
  headers: { name: string; value: string }[] | undefined,
  name: string,
): string | undefined {
  const wanted = name.toLowerCase();
  return headers?.find((h) => h.name.toLowerCase() === wanted)?.value;
}

function leaves(part: GmailPart): GmailPart[] {
  return part.parts?.length ? part.parts.flatMap(leaves) : [part];
}

function isAttachment(part: GmailPart): boolean {
  return Boolean(part.filename) || Boolean(part.body?.attachmentId);
}

/** Body bytes are base64url; the charset comes from the part's own Content-Type (utf-8 when absent). */
function decodePart(part: GmailPart): string {
  const bytes = Buffer.from(part.body?.data ?? '', 'base64url');
  const charset =
    /charset="?([^";\s]+)"?/i.exec(headerOf(part.headers, 'Content-Type') ?? '')?.[1] ?? 'utf-8';
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return bytes.toString('utf8');
  }
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/**
 * A deliberately small HTML → text conversion for HTML-only mail: block ends become newlines, list items
 * get dashes, tags and scripts go, entities are decoded. Good enough for notification and lead emails;
 * a full converter (e.g. html-to-text) would be the upgrade if layouts get richer.
 */
export function htmlToText(html: string): string {
  return html
    .replace(/<(script|style|head)\b[\s\S]*?<\/\1>/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<li\b[^>]*>/gi, '\n- ')
    .replace(/<\/(p|div|h[1-6]|li|tr|table|blockquote|ul|ol)>/gi, '\n')
    .replace(/<(td|th)\b[^>]*>/gi, ' ')
    .replace(/<[^>]+>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
      if (e[0] === '#') {
        const code = e[1]?.toLowerCase() === 'x' ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1));
        return Number.isFinite(code) ? String.fromCodePoint(code) : m;
      }
      return ENTITIES[e.toLowerCase()] ?? m;
    });
}

/** Drops quoted history: `>` lines, the "On … wrote:" line above them, and Outlook's original-message block. */
export function dropQuoted(text: string): string {
  const cut = text.search(/^-{2,}\s*Original Message\s*-{2,}/im);
  const lines = (cut >= 0 ? text.slice(0, cut) : text)
    .split('\n')
    .filter((l) => !l.trimStart().startsWith('>'));
  while (lines.length && lines[lines.length - 1]?.trim() === '') lines.pop();
  if (lines.length && /^On\b.*wrote:\s*$/.test(lines[lines.length - 1]?.trim() ?? '')) lines.pop();
  return lines.join('\n');
}

export function normalizeWhitespace(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t\u00a0]+\n/g, '\n')
    .replace(/[ \t\u00a0]{2,}/g, ' ')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

export function capText(text: string, limit: number): { text: string; truncated: boolean } {
  if (text.length <= limit) return { text, truncated: false };
  return { text: `${text.slice(0, Math.max(0, limit - 1)).trimEnd()}…`, truncated: true };
}

export function extractMailText(payload: GmailPart | undefined, limit: number) {
  const all = payload ? leaves(payload) : [];
  const body = all.filter((p) => !isAttachment(p));
  const plain = body.filter((p) => p.mimeType === 'text/plain').map(decodePart);
  const text = plain.length
    ? plain.join('\n')
    : body
        .filter((p) => p.mimeType === 'text/html')
        .map((p) => htmlToText(decodePart(p)))
        .join('\n');
  const attachments = all.filter(isAttachment).map((p) => ({
    filename: p.filename ?? '',
    mimeType: p.mimeType ?? 'application/octet-stream',
    size: p.body?.size ?? 0,
  }));
  return { ...capText(normalizeWhitespace(dropQuoted(text)), limit), attachments };
}
