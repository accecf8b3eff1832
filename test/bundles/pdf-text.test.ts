import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type GoogleEmulator, startGoogleEmulator } from '../../scripts/emulators/google';
import { type LambdaEmulator, startLambdaEmulator } from '../../scripts/emulators/lambda';
import { DEMO_DRIVE_IDS } from '../../scripts/emulators/seed/google-data';
import { createGoogleAuth } from '../../shared/src/adapters/google/auth';
import { createGoogleDrive } from '../../shared/src/adapters/google/google-drive';
import { createLambdaPdfText } from '../../shared/src/adapters/pdf-text-lambda';
import { UpstreamError, ValidationError } from '../../shared/src/errors';
import type { Drive } from '../../shared/src/ports/drive';

/**
 * On AWS the worker and the streaming API read Drive PDFs through the pdf-text function (issue 16: pdf.js
 * stays out of their artifacts). Here the Drive adapter reads through the Lambda client, against the Lambda
 * emulator running functions/pdf-text.ts, which downloads from the Google emulator with the token it is given.
 */
let google: GoogleEmulator;
let lambda: LambdaEmulator;
let drive: Drive;

beforeAll(async () => {
  google = await startGoogleEmulator();
  // The function reads its settings at load, as on Lambda.
  process.env.GOOGLE_API_BASE = `${google.url}/`;
  const fn = await import('../../functions/pdf-text');
  lambda = await startLambdaEmulator({ 'switchboard-pdf-text': fn.handler });
  process.env.AWS_ACCESS_KEY_ID = 'local';
  process.env.AWS_SECRET_ACCESS_KEY = 'local';
  drive = createGoogleDrive({
    auth: createGoogleAuth({ serviceAccount: google.serviceAccountJson, subject: google.mailbox }),
    rootUrl: `${google.url}/`,
    pdfText: createLambdaPdfText({
      functionName: 'switchboard-pdf-text',
      region: 'us-east-1',
      endpoint: lambda.url,
    }),
  });
}, 30_000);
afterAll(async () => {
  await lambda?.stop();
  await google?.stop();
});

describe('Drive PDFs through the pdf-text function', () => {
  test('the text comes back through one invocation that carries a token, not the file', async () => {
    const pdf = await drive.readPdf(DEMO_DRIVE_IDS.leasePdf);
    expect(pdf).toMatchObject({ name: 'Lease summary - 12 Oak St #2.pdf', pages: 1, truncated: false });
    expect(pdf.text).toContain('Monthly rent: $2,150, due on the 1st');
    expect(lambda.invocations).toHaveLength(1);
    expect(lambda.invocations[0]?.event).toEqual({
      fileId: DEMO_DRIVE_IDS.leasePdf,
      accessToken: expect.any(String),
      maxBytes: 10 * 1024 * 1024,
    });
    // The function downloaded the bytes itself, with the bearer token it was given.
    const download = google.state.requests.filter((r) => r.search?.includes('alt=media'));
    expect(download.length).toBeGreaterThanOrEqual(1);
  });

  test('bytes that are not a PDF are a 4xx-style refusal naming the file, not a function failure', async () => {
    google.state.respondNext(`/drive/v3/files/${DEMO_DRIVE_IDS.leasePdf}?alt=media`, {
      status: 200,
      body: 'this is not a pdf',
      headers: { 'content-type': 'application/pdf' },
    });
    const err = await drive.readPdf(DEMO_DRIVE_IDS.leasePdf).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(String((err as Error).message)).toMatch(/Lease summary.*could not be read as a PDF/);
  });

  test('a failed download inside the function is an upstream error the caller may retry', async () => {
    google.state.failNext(`/drive/v3/files/${DEMO_DRIVE_IDS.leasePdf}?alt=media`, 500);
    const err = await drive.readPdf(DEMO_DRIVE_IDS.leasePdf).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as UpstreamError).retryable).toBe(true);
  });

  test('an unknown function or a malformed invocation is refused as Lambda refuses it', async () => {
    const missing = createLambdaPdfText({ functionName: 'nope', region: 'us-east-1', endpoint: lambda.url });
    await expect(missing.read({ fileId: 'x', accessToken: 't', maxBytes: 1 })).rejects.toThrow(
      /could not be invoked/,
    );
    const bad = createLambdaPdfText({
      functionName: 'switchboard-pdf-text',
      region: 'us-east-1',
      endpoint: lambda.url,
    });
    // The function refuses input its contract does not allow (zod at the boundary): a function error.
    await expect(bad.read({ fileId: '', accessToken: 't', maxBytes: 1 })).rejects.toThrow(
      /PDF reader failed/,
    );
  });
});
