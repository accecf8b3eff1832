import * as z from 'zod/mini';
import '../zod-mini';

/** The most text a reader returns: far more than any tool shows (12,000 characters by default), and well
 * under Lambda's 6 MB response limit. */
export const PDF_TEXT_MAX_CHARS = 500_000;

/** What the pdf-text function is invoked with (shared/src/adapters/pdf-text-lambda.ts). */
export const pdfTextRequest = z.object({
  fileId: z.string().check(z.minLength(1), z.maxLength(200)),
  /** A short-lived Google access token with Drive read scope, minted by the caller for this one download. */
  accessToken: z.string().check(z.minLength(1), z.maxLength(4096)),
  maxBytes: z.number().check(z.int(), z.positive()),
});
export type PdfTextRequest = z.infer<typeof pdfTextRequest>;

export const pdfTextResult = z.union([
  z.object({ pages: z.number().check(z.int(), z.nonnegative()), text: z.string(), truncated: z.boolean() }),
  z.object({ unreadable: z.string() }),
]);
export type PdfTextResult = z.infer<typeof pdfTextResult>;
