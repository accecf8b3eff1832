import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from 'vitest';
import { responseStreamFor } from '../../scripts/local/lambda-streaming';

/**
 * The local function-URL stand-in: a reader who leaves mid-answer must not turn the handler's later writes
 * into stream errors (each abandoned chat logged "Cannot call write after a stream was destroyed").
 */
test('writes after the reader left go nowhere, without an error', async () => {
  const errors: unknown[] = [];
  let finished!: () => void;
  const done = new Promise<void>((r) => {
    finished = r;
  });
  const server = createServer((_req, res) => {
    const stream = responseStreamFor(res);
    stream.on('error', (e) => errors.push(e));
    stream.setMetadata({ statusCode: 200, headers: { 'content-type': 'text/plain' } });
    stream.write('first ');
    res.on('close', () => {
      // The handler goes on writing, as a streaming turn does until its model call ends.
      stream.write('after the reader left');
      stream.end('.', () => finished());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/' }, (res) => {
      res.once('data', () => {
        req.destroy();
        resolve();
      });
    });
    req.on('error', () => undefined);
    req.end();
  });
  await done;
  server.close();
  expect(errors).toEqual([]);
});
