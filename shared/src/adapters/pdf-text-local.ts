import { PDF_TEXT_MAX_CHARS, type PdfTextRequest, type PdfTextResult } from '../contracts/pdf-text';
import { NotFoundError, UpstreamError } from '../errors';
import type { PdfTextReader } from '../ports/pdf-text';

/**
 * Downloads the PDF from Drive (`files.get?alt=media`, the request @googleapis/drive sends, with the bearer
 * token the caller minted) and extracts its text with pdf.js (unpdf) in this process. pdf.js is imported on
 * the first read: in the pdf-text function's artifact it is shipped beside the bundle
 * (scripts/build/after-bundle.ts); elsewhere it resolves from the repository (local stack, tests).
 */
export function createLocalPdfText(opts: { rootUrl?: string } = {}): PdfTextReader {
  const root = (opts.rootUrl ?? 'https://www.googleapis.com/').replace(/\/?$/, '/');
  return {
    async read(req) {
      const bytes = await download(root, req);
      if (bytes.byteLength > req.maxBytes)
        return { unreadable: `it is too large to read (${bytes.byteLength} bytes; limit ${req.maxBytes})` };
      return extract(bytes);
    },
  };
}

async function download(root: string, req: PdfTextRequest): Promise<ArrayBuffer> {
  const url = `${root}drive/v3/files/${encodeURIComponent(req.fileId)}?alt=media&supportsAllDrives=true`;
  let res: Response;
  try {
    res = await fetch(url, { headers: { authorization: `Bearer ${req.accessToken}` } });
  } catch (e) {
    throw new UpstreamError('Google Drive could not be reached for the PDF download', { cause: e });
  }
  if (res.status === 404) throw new NotFoundError(`No Drive file ${req.fileId}`);
  if (!res.ok) {
    throw new UpstreamError(`Google Drive refused the PDF download (${res.status})`, {
      retryable: res.status === 429 || res.status >= 500,
    });
  }
  return res.arrayBuffer();
}

async function extract(bytes: ArrayBuffer): Promise<PdfTextResult> {
  const { extractText } = await import('unpdf');
  try {
    // pdf.js takes ownership of the buffer it is given.
    const r = await extractText(new Uint8Array(bytes), { mergePages: true });
    const truncated = r.text.length > PDF_TEXT_MAX_CHARS;
    return { pages: r.totalPages, text: truncated ? r.text.slice(0, PDF_TEXT_MAX_CHARS) : r.text, truncated };
  } catch (e) {
    return { unreadable: e instanceof Error ? e.message : String(e) };
  }
}
