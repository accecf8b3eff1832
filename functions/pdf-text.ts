import * as z from 'zod/mini';
import { createLocalPdfText } from '../shared/src/adapters/pdf-text-local';
import { pdfTextRequest } from '../shared/src/contracts/pdf-text';
import { describeZodIssues, ValidationError } from '../shared/src/errors';

/**
 * The text of a Drive PDF, for the worker and the streaming API (shared/src/adapters/pdf-text-lambda.ts):
 * pdf.js (1.6 MB) lives in this function's artifact alone (issue 16). It is invoked only by those two
 * functions' roles (IAM); it downloads the file with the access token it is given and holds no secrets.
 */
const env = z.object({ GOOGLE_API_BASE: z.optional(z.string()) }).parse(process.env);
const reader = createLocalPdfText(env.GOOGLE_API_BASE ? { rootUrl: env.GOOGLE_API_BASE } : {});

export const handler = async (event: unknown) => {
  const parsed = pdfTextRequest.safeParse(event);
  if (!parsed.success) throw new ValidationError(`pdf-text input: ${describeZodIssues(parsed.error.issues)}`);
  return reader.read(parsed.data);
};
