import { docs, type docs_v1 } from '@googleapis/docs';
import { drive } from '@googleapis/drive';
import { sheets } from '@googleapis/sheets';
import type { OAuth2Client } from 'google-auth-library';
import { z } from 'zod';
import { describeZodIssues, UpstreamError, ValidationError } from '../../errors';
import type { Drive, DriveFile, DriveFileKind, DriveSearchInput } from '../../ports/drive';
import type { PdfTextReader } from '../../ports/pdf-text';
import { createLocalPdfText } from '../pdf-text-local';
import { callGoogle, type GoogleRetryOptions, googleRetryConfig, parseGoogle } from './google-errors';
import { capText, normalizeWhitespace } from './mail-text';

export interface GoogleDriveOptions {
  auth: OAuth2Client;
  rootUrl?: string;
  retry?: GoogleRetryOptions;
  /** PDFs larger than this are refused rather than loaded into the function's memory. */
  maxPdfBytes?: number;
  /** Default cap on returned text. */
  maxChars?: number;
  /**
   * Who turns a PDF into text: in this process by default; on AWS the pdf-text function
   * (composition/tool-deps.ts), so pdf.js is not in the worker's or the streaming API's artifact.
   */
  pdfText?: PdfTextReader;
}

const MIME: Record<Exclude<DriveFileKind, 'other'>, string> = {
  folder: 'application/vnd.google-apps.folder',
  doc: 'application/vnd.google-apps.document',
  sheet: 'application/vnd.google-apps.spreadsheet',
  pdf: 'application/pdf',
};

const kindOf = (mimeType: string): DriveFileKind =>
  (Object.entries(MIME).find(([, m]) => m === mimeType)?.[0] as DriveFileKind | undefined) ?? 'other';

const fileSchema = z.object({
  id: z.string(),
  name: z.string(),
  mimeType: z.string(),
  modifiedTime: z.string().optional(),
  webViewLink: z.string().optional(),
  size: z.string().optional(),
});
const fileListSchema = z.object({ files: z.array(fileSchema).optional() });

const paragraphSchema = z.object({
  elements: z
    .array(z.object({ textRun: z.object({ content: z.string().optional() }).optional() }))
    .optional(),
  paragraphStyle: z.object({ namedStyleType: z.string().optional() }).optional(),
  bullet: z.object({ nestingLevel: z.number().optional() }).optional(),
});

const structuralSchema = z.object({
  paragraph: paragraphSchema.optional(),
  get table() {
    return z
      .object({
        tableRows: z
          .array(
            z.object({
              tableCells: z.array(z.object({ content: z.array(structuralSchema).optional() })).optional(),
            }),
          )
          .optional(),
      })
      .optional();
  },
  get tableOfContents() {
    return z.object({ content: z.array(structuralSchema).optional() }).optional();
  },
});
type Structural = z.infer<typeof structuralSchema>;

const documentSchema = z.object({
  documentId: z.string(),
  title: z.string().optional(),
  body: z.object({ content: z.array(structuralSchema).optional() }).optional(),
});

const spreadsheetSchema = z.object({
  spreadsheetId: z.string(),
  properties: z.object({ title: z.string().optional() }).optional(),
  sheets: z.array(z.object({ properties: z.object({ title: z.string() }) })).optional(),
});

const valuesSchema = z.object({
  range: z.string(),
  values: z.array(z.array(z.union([z.string(), z.number(), z.boolean()]))).optional(),
});

/** Drive query strings quote with single quotes and escape `\` and `'` with a backslash (Drive "Search for files"). */
const quote = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** Docs body → markdown-ish text: headings keep their level, bullets a dash, table rows ` | `-joined cells. */
function docText(content: Structural[] | undefined): string {
  const out: string[] = [];
  for (const el of content ?? []) {
    if (el.paragraph) {
      const text = (el.paragraph.elements ?? [])
        .map((e) => e.textRun?.content ?? '')
        .join('')
        .replace(/\n$/, '');
      const style = el.paragraph.paragraphStyle?.namedStyleType ?? '';
      const heading = /^HEADING_(\d)$/.exec(style)?.[1] ?? (style === 'TITLE' ? '1' : undefined);
      if (heading) out.push(`${'#'.repeat(Number(heading))} ${text}`);
      else if (el.paragraph.bullet)
        out.push(`${'  '.repeat(el.paragraph.bullet.nestingLevel ?? 0)}- ${text}`);
      else out.push(text);
    } else if (el.table) {
      for (const row of el.table.tableRows ?? []) {
        out.push(
          (row.tableCells ?? []).map((cell) => docText(cell.content).replace(/\n+/g, ' ').trim()).join(' | '),
        );
      }
    } else if (el.tableOfContents) {
      out.push(docText(el.tableOfContents.content));
    }
  }
  return out.join('\n');
}

const searchInput = z.object({
  query: z.string().max(200).optional(),
  kind: z.enum(['folder', 'doc', 'sheet', 'pdf']).optional(),
  folderId: z.string().max(200).optional(),
  limit: z.number().int().min(1).max(50).optional(),
});

export function createGoogleDrive(opts: GoogleDriveOptions): Drive {
  const common = {
    auth: opts.auth,
    ...(opts.rootUrl ? { rootUrl: opts.rootUrl } : {}),
    retryConfig: googleRetryConfig(opts.retry),
  };
  const driveApi = drive({ version: 'v3', ...common });
  const sheetsApi = sheets({ version: 'v4', ...common });
  // @googleapis/docs still depends on googleapis-common 8 (google-auth-library 10), whose types name a
  // different OAuth2Client class; at runtime it only calls `auth.request()`, which ours provides.
  const docsApi = docs({ version: 'v1', ...common, auth: opts.auth as unknown as docs_v1.Options['auth'] });
  const maxPdfBytes = opts.maxPdfBytes ?? 10 * 1024 * 1024;
  const pdfText = opts.pdfText ?? createLocalPdfText(opts.rootUrl ? { rootUrl: opts.rootUrl } : {});
  const defaultMax = opts.maxChars ?? 12_000;

  const toPort = (f: z.infer<typeof fileSchema>): DriveFile => ({
    id: f.id,
    name: f.name,
    kind: kindOf(f.mimeType),
    mimeType: f.mimeType,
    ...(f.modifiedTime ? { modifiedTime: f.modifiedTime } : {}),
    ...(f.webViewLink ? { link: f.webViewLink } : {}),
  });

  return {
    async search(raw: DriveSearchInput) {
      const parsed = searchInput.safeParse(raw);
      if (!parsed.success) throw new ValidationError(describeZodIssues(parsed.error.issues));
      const input = parsed.data;
      const clauses = ['trashed = false'];
      const words = input.query?.trim();
      if (words) clauses.push(`(name contains ${quote(words)} or fullText contains ${quote(words)})`);
      if (input.kind) clauses.push(`mimeType = ${quote(MIME[input.kind])}`);
      if (input.folderId) clauses.push(`${quote(input.folderId)} in parents`);
      const res = await callGoogle('Drive search', () =>
        driveApi.files.list({
          q: clauses.join(' and '),
          pageSize: input.limit ?? 10,
          fields: 'files(id,name,mimeType,modifiedTime,webViewLink)',
          // Full-text results come back by relevance; only a plain listing is ordered by recency.
          ...(words ? {} : { orderBy: 'modifiedTime desc' }),
          supportsAllDrives: true,
          includeItemsFromAllDrives: true,
        }),
      );
      return (parseGoogle(fileListSchema, res.data, 'files.list').files ?? []).map(toPort);
    },

    async readDoc(id, o = {}) {
      const res = await callGoogle('document', () => docsApi.documents.get({ documentId: id }));
      const doc = parseGoogle(documentSchema, res.data, 'documents.get');
      const capped = capText(normalizeWhitespace(docText(doc.body?.content)), o.maxChars ?? defaultMax);
      return { id: doc.documentId, title: doc.title ?? '', ...capped };
    },

    async readSheet(id, o = {}) {
      const maxRows = o.maxRows ?? 200;
      const meta = await callGoogle('spreadsheet', () =>
        sheetsApi.spreadsheets.get({
          spreadsheetId: id,
          fields: 'spreadsheetId,properties.title,sheets.properties.title',
        }),
      );
      const book = parseGoogle(spreadsheetSchema, meta.data, 'spreadsheets.get');
      const titles = (book.sheets ?? []).map((s) => s.properties.title);
      const first = titles[0];
      if (!first) throw new ValidationError('The spreadsheet has no sheets');
      const tab = (t: string) => `'${t.replace(/'/g, "''")}'`;
      const wanted = o.range?.trim();
      const range = !wanted
        ? tab(first)
        : wanted.includes('!')
          ? wanted
          : titles.includes(wanted)
            ? tab(wanted)
            : `${tab(first)}!${wanted}`;
      const res = await callGoogle('sheet range', () =>
        sheetsApi.spreadsheets.values.get({ spreadsheetId: id, range, valueRenderOption: 'FORMATTED_VALUE' }),
      );
      const values = parseGoogle(valuesSchema, res.data, 'values.get');
      const rows = (values.values ?? []).map((r) => r.map(String));
      const sheetName = values.range.includes('!')
        ? values.range
            .slice(0, values.range.lastIndexOf('!'))
            .replace(/^'(.*)'$/, '$1')
            .replace(/''/g, "'")
        : first;
      return {
        id: book.spreadsheetId,
        title: book.properties?.title ?? '',
        sheet: sheetName,
        sheets: titles,
        range: values.range,
        rows: rows.slice(0, maxRows),
        truncated: rows.length > maxRows,
      };
    },

    async readPdf(id, o = {}) {
      const meta = await callGoogle('file', () =>
        driveApi.files.get({ fileId: id, fields: 'id,name,mimeType,size', supportsAllDrives: true }),
      );
      const file = parseGoogle(fileSchema, meta.data, 'files.get');
      if (file.mimeType !== MIME.pdf)
        throw new ValidationError(`${file.name} is not a PDF (${file.mimeType})`);
      if (Number(file.size ?? 0) > maxPdfBytes) {
        throw new ValidationError(
          `${file.name} is too large to read (${file.size} bytes; limit ${maxPdfBytes})`,
        );
      }
      // A token for this one download: the reader (perhaps another function) fetches the bytes itself.
      const { token } = await callGoogle('access token', () => opts.auth.getAccessToken());
      if (!token) {
        throw new UpstreamError('Google issued no access token for the PDF download', {
          code: 'upstream_malformed',
          retryable: false,
        });
      }
      const result = await pdfText.read({ fileId: file.id, accessToken: token, maxBytes: maxPdfBytes });
      if ('unreadable' in result)
        throw new ValidationError(`${file.name} could not be read as a PDF: ${result.unreadable}`);
      const capped = capText(normalizeWhitespace(result.text), o.maxChars ?? defaultMax);
      return { id: file.id, name: file.name, pages: result.pages, ...capped };
    },
  };
}
