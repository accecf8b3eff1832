import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { createMimeMessage } from 'mimetext';
import { afterAll, expect, test } from 'vitest';
import { leanMimetext } from '../../scripts/build/after-bundle';

/**
 * The artifacts' mimetext without mime-db (scripts/build/after-bundle.ts `leanMimetext`): the Gmail send path
 * composes byte-for-byte the same message as the package itself, and mime-db is not in the bundle.
 */
const dir = mkdtempSync(join(tmpdir(), 'lean-mimetext-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A message as shared/src/adapters/google/gmail-mailbox.ts composes one; Date and boundaries fixed. */
const COMPOSE = `
export function compose(createMimeMessage) {
  const msg = createMimeMessage();
  msg.boundaries = { mixed: 'm', alt: 'a', related: 'r' };
  msg.setHeader('Date', 'Tue, 24 Nov 2026 12:00:00 +0000');
  msg.setSender({ name: 'Oak Properties', addr: 'office@oak.example' });
  msg.setTo(['Maria Lopez <maria@example.com>']);
  msg.setCc(['sam@oak.example']);
  msg.setSubject('Re: Lease renewal — 12 Oak St');
  msg.setHeader('Message-ID', '<m-1@oak.example>');
  msg.setHeader('In-Reply-To', '<p-1@example.com>');
  msg.addMessage({ contentType: 'text/plain', data: Buffer.from('Hi Maria — yes, Thursday works.').toString('base64'), encoding: 'base64' });
  return msg.asEncoded();
}
`;

test('the bundled mimetext composes the same message as the package, without mime-db', async () => {
  writeFileSync(join(dir, 'compose.mjs'), COMPOSE);
  writeFileSync(
    join(dir, 'entry.mjs'),
    "import { createMimeMessage } from 'mimetext';\nimport { compose } from './compose.mjs';\nexport const raw = compose(createMimeMessage);\nexport { createMimeMessage };\n",
  );
  const out = await build({
    entryPoints: [join(dir, 'entry.mjs')],
    outfile: join(dir, 'out.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    metafile: true,
    plugins: [leanMimetext],
    nodePaths: [join(process.cwd(), 'node_modules')],
    banner: { js: "import { createRequire as __cr } from 'module'; const require = __cr(import.meta.url);" },
    logLevel: 'silent',
  });
  const inputs = Object.keys(out.metafile.inputs);
  expect(inputs.some((p) => p.includes('mime-db'))).toBe(false);
  expect(inputs.some((p) => p.includes('core-js-pure'))).toBe(false);

  const bundled = (await import(pathToFileURL(join(dir, 'out.mjs')).href)) as {
    raw: string;
    createMimeMessage: typeof createMimeMessage;
  };
  const { compose } = (await import(pathToFileURL(join(dir, 'compose.mjs')).href)) as {
    compose: (f: typeof createMimeMessage) => string;
  };
  expect(bundled.raw).toBe(compose(createMimeMessage));
  expect(Buffer.from(bundled.raw, 'base64url').toString()).toContain(
    Buffer.from('Hi Maria — yes, Thursday works.').toString('base64'),
  );

  // An attachment's full content type is still accepted, a malformed one still refused.
  const attach = (type: string) => () =>
    bundled.createMimeMessage().addAttachment({ filename: 'a.pdf', contentType: type, data: 'AA==' });
  expect(attach('application/pdf')).not.toThrow();
  expect(attach('')).toThrow(/invalid content type/);
});
