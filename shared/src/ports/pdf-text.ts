import type { PdfTextRequest, PdfTextResult } from '../contracts/pdf-text';

/**
 * The text of a PDF in Google Drive, fetched by id with the caller's access token. In process where pdf.js
 * is at hand (the local stack, tests, and the pdf-text function itself); on AWS the worker and the streaming
 * API ask the pdf-text function, so pdf.js (1.6 MB) is not in their artifacts (issue 16).
 * Bytes that are not a readable PDF are a result (`unreadable`), not an error; a failed download throws.
 */
export interface PdfTextReader {
  read(request: PdfTextRequest): Promise<PdfTextResult>;
}
