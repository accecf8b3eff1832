import type { ServerResponse } from 'node:http';
import { Writable } from 'node:stream';

interface StreamMetadata {
  statusCode?: number;
  headers?: Record<string, string>;
  cookies?: string[];
}

type ResponseStream = Writable & { setMetadata(meta: StreamMetadata): void };

/**
 * The local stand-in for the Lambda runtime's response-streaming globals (`awslambda.streamifyResponse`,
 * `awslambda.HttpResponseStream.from`), which a streaming handler uses at module load. On AWS the runtime
 * frames the metadata and body for the function URL; here they go straight to the HTTP response.
 */
export function installLambdaStreamingGlobals() {
  // Other libraries (Powertools' invoke store) also hang things on `awslambda`: add to it, never replace it.
  const g = globalThis as { awslambda?: Record<string, unknown> };
  g.awslambda ??= {};
  const lambda = g.awslambda;
  lambda.streamifyResponse ??= <T extends (...args: never[]) => unknown>(fn: T) =>
    Object.assign(fn, { streaming: true });
  lambda.HttpResponseStream ??= {
    from(stream: ResponseStream, meta: StreamMetadata) {
      stream.setMetadata(meta);
      return stream;
    },
  };
}

export function responseStreamFor(res: ServerResponse): ResponseStream {
  let meta: StreamMetadata = {};
  const start = () => {
    if (res.headersSent) return;
    const headers: Record<string, string | string[]> = { ...meta.headers };
    if (meta.cookies?.length) headers['set-cookie'] = meta.cookies;
    res.writeHead(meta.statusCode ?? 200, headers);
  };
  // A reader who left (a closed tab, a chat abandoned mid-answer) destroys the response: what the handler
  // still writes goes nowhere, as on a function URL, instead of failing the write ("Cannot call write after a
  // stream was destroyed" in the log for every answer someone walked away from).
  const gone = () => res.destroyed || res.writableEnded;
  const stream = new Writable({
    write(chunk, _enc, done) {
      if (gone()) return done();
      start();
      res.write(chunk, () => done());
    },
    final(done) {
      if (gone()) return done();
      start();
      res.end(() => done());
    },
  }) as ResponseStream;
  stream.setMetadata = (m) => {
    meta = m;
  };
  return stream;
}
