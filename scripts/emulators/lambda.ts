import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local AWS Lambda `Invoke` (REST JSON: `POST /2015-03-31/functions/{FunctionName}/invocations`, the
 * request `@aws-sdk/client-lambda` 3.1162 sends) that runs the handlers it is given in this process. Like
 * Lambda it answers 200 with the handler's JSON result; a handler that throws is still a 200, with
 * `X-Amz-Function-Error: Unhandled` and `{ errorType, errorMessage }` as the payload; an unknown function is a
 * 404 `ResourceNotFoundException`; a payload that is not JSON a 400 `InvalidRequestContentException`; one over
 * 6 MB (the synchronous limit) a 413 `RequestTooLargeException`. See test/contracts/vendor/aws/README.md.
 */
export type InvokeHandler = (event: unknown) => Promise<unknown>;

export interface LambdaEmulator {
  url: string;
  invocations: Array<{ functionName: string; event: unknown }>;
  stop(): Promise<void>;
}

const SYNC_PAYLOAD_LIMIT = 6 * 1024 * 1024;
const PATH = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;

export async function startLambdaEmulator(
  functions: Record<string, InvokeHandler>,
  port = 0,
): Promise<LambdaEmulator> {
  const invocations: LambdaEmulator['invocations'] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const m = req.method === 'POST' ? PATH.exec(new URL(req.url ?? '/', 'http://x').pathname) : null;
    if (!m) return error(res, 404, 'UnknownOperationException', `${req.method} ${req.url}`);
    // The SDK sends a bare name or an ARN; the name is what follows `function:` in an ARN.
    const name = decodeURIComponent(m[1] ?? '').replace(/^arn:aws:lambda:[^:]+:\d+:function:/, '');
    const handler = functions[name];
    if (!handler) return error(res, 404, 'ResourceNotFoundException', `Function not found: ${name}`);
    if (body.length > SYNC_PAYLOAD_LIMIT)
      return error(res, 413, 'RequestTooLargeException', 'Request must be smaller than 6291456 bytes');
    let event: unknown;
    try {
      event = body.length ? JSON.parse(body.toString('utf8')) : {};
    } catch {
      return error(res, 400, 'InvalidRequestContentException', 'Could not parse request body into json');
    }
    invocations.push({ functionName: name, event });
    try {
      const result = await handler(event);
      reply(res, 200, result ?? null);
    } catch (e) {
      const err = e instanceof Error ? e : new Error(String(e));
      reply(
        res,
        200,
        { errorType: err.name, errorMessage: err.message },
        { 'x-amz-function-error': 'Unhandled' },
      );
    }
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    invocations,
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}

function reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, {
    'content-type': 'application/json',
    'x-amzn-requestid': randomUUID(),
    'x-amz-executed-version': '$LATEST',
    ...headers,
  });
  res.end(JSON.stringify(body));
}

function error(res: ServerResponse, status: number, type: string, message: string) {
  res.writeHead(status, {
    'content-type': 'application/json',
    'x-amzn-errortype': type,
    'x-amzn-requestid': randomUUID(),
  });
  res.end(JSON.stringify({ Type: 'User', message }));
}
