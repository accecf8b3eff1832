import { afterAll, beforeAll, expect, test } from 'vitest';
import { mediaIdFor } from '../../shared/src/domain/media';
import { type ApiHarness, MEMBER, startApiHarness } from '../api/harness';

/** `GET /api/media/:id`: a team session only, our ids only, the bytes with their type, errors as clear 4xx. */
let h: ApiHarness;
beforeAll(async () => {
  h = await startApiHarness();
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

test('the proxy serves a stored photo to a signed-in member, and refuses everyone else clearly', async () => {
  const id = mediaIdFor('sms_test', 0);
  const png = Buffer.from('89504e470d0a1a0a0000', 'hex');
  h.openphone.state.media.set('leak1', { type: 'image/png', data: png });
  await h.core.media.put({
    id,
    url: `${h.openphone.url}/media/leak1`,
    type: 'image/png',
    conversationId: 'c_1',
    messageId: 'm_1',
    createdAt: new Date().toISOString(),
  });
  const token = await h.token(MEMBER);

  const ok = await h.call('GET', `/api/media/${id}`, { token });
  expect(ok.status).toBe(200);
  expect(ok.headers.get('content-type')).toBe('image/png');
  expect(ok.headers.get('cache-control')).toBe('private, max-age=3600');
  expect(Buffer.from(await ok.arrayBuffer())).toEqual(png);

  expect((await h.call('GET', `/api/media/${id}`)).status).toBe(401);
  const bad = await h.call('GET', '/api/media/..%2Fetc', { token });
  expect(bad.status).toBe(400);
  const unknown = await h.call('GET', `/api/media/${mediaIdFor('other', 0)}`, { token });
  expect(unknown.status).toBe(404);

  h.openphone.state.media.delete('leak1');
  expect((await h.call('GET', `/api/media/${id}`, { token })).status).toBe(404);
});

test('a type a browser could run as a page is served as a download', async () => {
  const id = mediaIdFor('sms_html', 0);
  h.openphone.state.media.set('page1', { type: 'text/html', data: Buffer.from('<script>1</script>') });
  await h.core.media.put({
    id,
    url: `${h.openphone.url}/media/page1`,
    type: 'text/html',
    conversationId: 'c_1',
    messageId: 'm_2',
    createdAt: new Date().toISOString(),
  });
  const res = await h.call('GET', `/api/media/${id}`, { token: await h.token(MEMBER) });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/octet-stream');
  expect(res.headers.get('content-disposition')).toMatch(/^attachment/);
});
