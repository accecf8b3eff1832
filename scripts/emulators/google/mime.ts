import { createMimeMessage } from 'mimetext';
import type { SeedEmail } from '../seed/google-data';

/** Just enough MIME for what clients send and the seed needs: headers, RFC 2047 words, multipart, base64/QP. */
export type Header = { name: string; value: string };

export interface MimeNode {
  headers: Header[];
  mimeType: string;
  params: Record<string, string>;
  filename: string;
  body: Buffer;
  children: MimeNode[];
}

/** RFC 2047 encoded words (`=?utf-8?B?…?=`), which mimetext uses for names and subjects. */
function decodeWords(value: string): string {
  return value.replace(
    /=\?([^?]+)\?([bBqQ])\?([^?]*)\?=(\s+(?==\?))?/g,
    (_m, charset: string, enc: string, text: string) => {
      const bytes =
        enc.toUpperCase() === 'B'
          ? Buffer.from(text, 'base64')
          : decodeQuotedPrintable(text.replace(/_/g, ' '));
      return bytes.toString(/utf-?8/i.test(charset) ? 'utf8' : 'latin1');
    },
  );
}

function decodeQuotedPrintable(s: string): Buffer {
  const soft = s.replace(/=\r?\n/g, '');
  const out: number[] = [];
  for (let i = 0; i < soft.length; i++) {
    const hex = soft.slice(i + 1, i + 3);
    if (soft[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      out.push(Number.parseInt(hex, 16));
      i += 2;
    } else {
      out.push(...Buffer.from(soft[i] ?? '', 'utf8'));
    }
  }
  return Buffer.from(out);
}

export function parseHeaderBlock(block: string): Header[] {
  const unfolded = block.replace(/\r?\n[ \t]+/g, ' ');
  return unfolded
    .split(/\r?\n/)
    .filter((l) => l.includes(':'))
    .map((l) => {
      const at = l.indexOf(':');
      return { name: l.slice(0, at).trim(), value: decodeWords(l.slice(at + 1).trim()) };
    });
}

export function headerValue(headers: Header[], name: string): string | undefined {
  return headers.find((h) => h.name.toLowerCase() === name.toLowerCase())?.value;
}

function parseParams(value: string): { value: string; params: Record<string, string> } {
  const [first = '', ...rest] = value.split(';');
  const params: Record<string, string> = {};
  for (const p of rest) {
    const at = p.indexOf('=');
    if (at < 0) continue;
    params[p.slice(0, at).trim().toLowerCase()] = p
      .slice(at + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
  }
  return { value: first.trim().toLowerCase(), params };
}

export function parseMime(raw: string): MimeNode {
  const split = /\r?\n\r?\n/.exec(raw);
  const head = split ? raw.slice(0, split.index) : raw;
  const body = split ? raw.slice(split.index + split[0].length) : '';
  const headers = parseHeaderBlock(head);
  const ct = parseParams(headerValue(headers, 'Content-Type') ?? 'text/plain; charset=us-ascii');
  const disposition = parseParams(headerValue(headers, 'Content-Disposition') ?? '');
  const filename = disposition.params.filename ?? ct.params.name ?? '';
  const boundary = ct.params.boundary;
  if (ct.value.startsWith('multipart/') && boundary) {
    const parts: string[] = [];
    let current: string[] | undefined;
    for (const line of body.split(/\r?\n/)) {
      if (line === `--${boundary}--`) break;
      if (line === `--${boundary}`) {
        if (current) parts.push(current.join('\n'));
        current = [];
      } else current?.push(line);
    }
    if (current) parts.push(current.join('\n'));
    return {
      headers,
      mimeType: ct.value,
      params: ct.params,
      filename,
      body: Buffer.alloc(0),
      children: parts.map(parseMime),
    };
  }
  const cte = (headerValue(headers, 'Content-Transfer-Encoding') ?? '7bit').trim().toLowerCase();
  const bytes =
    cte === 'base64'
      ? Buffer.from(body.replace(/\s+/g, ''), 'base64')
      : cte === 'quoted-printable'
        ? decodeQuotedPrintable(body)
        : Buffer.from(body.replace(/\r?\n$/, ''), 'utf8');
  return { headers, mimeType: ct.value, params: ct.params, filename, body: bytes, children: [] };
}

export function nodeText(node: MimeNode): string {
  return node.body.toString(/^(utf-?8|us-ascii)$/i.test(node.params.charset ?? 'utf-8') ? 'utf8' : 'latin1');
}

export function stripHtml(html: string): string {
  return html
    .replace(/<(br|\/p|\/div|\/h\d|\/li)[^>]*>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&nbsp;/g, ' ');
}

export function leaves(node: MimeNode): MimeNode[] {
  return node.children.length ? node.children.flatMap(leaves) : [node];
}

export function composeRaw(e: {
  from: string;
  to: string;
  cc?: string;
  subject: string;
  text?: string;
  html?: string;
  attachments?: SeedEmail['attachments'];
  messageIdHeader: string;
  inReplyTo?: string;
  references?: string;
  date: Date;
  /** Headers a receiving server prepends (Authentication-Results), written before the others. */
  received?: Array<[string, string]>;
}): string {
  const msg = createMimeMessage();
  for (const [name, value] of e.received ?? []) msg.setHeader(name, value);
  msg.setSender(e.from);
  msg.setTo(e.to);
  if (e.cc) msg.setCc(e.cc);
  msg.setSubject(e.subject);
  msg.setHeader('Date', e.date.toUTCString().replace('GMT', '+0000'));
  msg.setHeader('Message-ID', e.messageIdHeader);
  if (e.inReplyTo) msg.setHeader('In-Reply-To', e.inReplyTo);
  if (e.references) msg.setHeader('References', e.references);
  const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
  if (e.text !== undefined)
    msg.addMessage({ contentType: 'text/plain', data: b64(e.text), encoding: 'base64' });
  if (e.html !== undefined)
    msg.addMessage({ contentType: 'text/html', data: b64(e.html), encoding: 'base64' });
  for (const a of e.attachments ?? []) {
    msg.addAttachment({
      filename: a.filename,
      contentType: a.mimeType,
      data: Buffer.from(a.data).toString('base64'),
    });
  }
  return msg.asRaw();
}
