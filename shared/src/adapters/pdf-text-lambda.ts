import type { InvokeCommandOutput, LambdaClient } from '@aws-sdk/client-lambda';
import { pdfTextResult } from '../contracts/pdf-text';
import { UpstreamError } from '../errors';
import type { PdfTextReader } from '../ports/pdf-text';

export interface LambdaPdfTextOptions {
  /** The pdf-text function (PDF_TEXT_FUNCTION, set by the CDK stack). */
  functionName: string;
  region?: string;
  /** A Lambda API endpoint other than AWS's (the local Lambda emulator in tests). */
  endpoint?: string;
}

/**
 * Reads a PDF through the pdf-text function (functions/pdf-text.ts), synchronously: the worker and the
 * streaming API do not carry pdf.js (1.6 MB), which kept their artifacts over 5 MB (issue 16). The Lambda
 * client is imported on the first PDF read (the runtime provides it). A function error is an upstream error
 * worth retrying; bytes that are not a PDF come back as a result.
 */
export function createLambdaPdfText(opts: LambdaPdfTextOptions): PdfTextReader {
  let client: Promise<{
    lambda: LambdaClient;
    Invoke: typeof import('@aws-sdk/client-lambda').InvokeCommand;
  }>;
  const lambda = () => {
    client ??= import('@aws-sdk/client-lambda').then((m) => ({
      lambda: new m.LambdaClient({
        ...(opts.region ? { region: opts.region } : {}),
        ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
      }),
      Invoke: m.InvokeCommand,
    }));
    return client;
  };
  return {
    async read(request) {
      const { lambda: c, Invoke } = await lambda();
      let out: InvokeCommandOutput;
      try {
        out = await c.send(
          new Invoke({
            FunctionName: opts.functionName,
            Payload: new TextEncoder().encode(JSON.stringify(request)),
          }),
        );
      } catch (e) {
        throw new UpstreamError('The PDF reader could not be invoked', { cause: e });
      }
      const body = out.Payload ? new TextDecoder().decode(out.Payload) : '';
      if (out.FunctionError) {
        throw new UpstreamError(`The PDF reader failed: ${body.slice(0, 300)}`, {
          code: 'pdf_reader_failed',
        });
      }
      const parsed = pdfTextResult.safeParse(parseJson(body));
      if (!parsed.success) {
        throw new UpstreamError('The PDF reader answered something unexpected', {
          code: 'upstream_malformed',
          retryable: false,
        });
      }
      return parsed.data;
    },
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
