import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

/**
 * One-off: rasterises web/public/icons/icon.svg into the PNGs the manifest and iOS need, with the system's
 * Chromium (no image library, no downloaded browser). Run after changing the SVG and commit the PNGs:
 * `npm exec -- tsx web/scripts/render-icons.ts`.
 */
const dir = resolve(dirname(fileURLToPath(import.meta.url)), '../public/icons');
const svg = await readFile(resolve(dir, 'icon.svg'), 'utf8');
const targets = [
  { file: 'icon-192.png', size: 192, padding: 0, background: 'transparent' },
  { file: 'icon-512.png', size: 512, padding: 0, background: 'transparent' },
  // iOS fills transparency with black and rounds corners itself: a full-bleed square on the brand colour.
  { file: 'apple-touch-icon.png', size: 180, padding: 0, background: '#0f5257', square: true },
  // Android masks to a circle or squircle: keep the artwork inside the 80% safe zone.
  { file: 'icon-maskable-512.png', size: 512, padding: 0.12, background: '#0f5257', square: true },
];

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
try {
  await mkdir(dir, { recursive: true });
  for (const t of targets) {
    const page = await browser.newPage({ viewport: { width: t.size, height: t.size }, deviceScaleFactor: 1 });
    const art = t.square ? svg.replace(/rx="112"/, 'rx="0"') : svg;
    const inset = Math.round(t.size * t.padding);
    await page.setContent(
      `<html><body style="margin:0;background:${t.background}">
        <div style="width:${t.size}px;height:${t.size}px;padding:${inset}px;box-sizing:border-box">${art.replace('<svg ', `<svg width="${t.size - 2 * inset}" height="${t.size - 2 * inset}" `)}</div>
      </body></html>`,
    );
    const png = await page.screenshot({ omitBackground: t.background === 'transparent', type: 'png' });
    await writeFile(resolve(dir, t.file), png);
    await page.close();
    console.log(`${t.file} ${t.size}×${t.size}`);
  }
} finally {
  await browser.close();
}
