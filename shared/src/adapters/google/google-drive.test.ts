import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GoogleEmulator, startGoogleEmulator } from '../../../../scripts/emulators/google';
import { DEMO_DRIVE_IDS } from '../../../../scripts/emulators/seed/google-data';
import { NotFoundError, ValidationError } from '../../errors';
import type { Drive } from '../../ports/drive';
import { createGoogleAuth } from './auth';
import { createGoogleDrive } from './google-drive';

let emu: GoogleEmulator;
let drive: Drive;

beforeAll(async () => {
  emu = await startGoogleEmulator();
  drive = createGoogleDrive({
    auth: createGoogleAuth({ serviceAccount: emu.serviceAccountJson, subject: emu.mailbox }),
    rootUrl: `${emu.url}/`,
    retry: { retryDelayMs: 10, maxRetryDelayMs: 20 },
  });
});
afterAll(async () => {
  await emu?.stop();
});

describe('GoogleDrive.search', () => {
  it('finds files by name and by content', async () => {
    const byName = await drive.search({ query: 'rent' });
    expect(byName.map((f) => f.id)).toContain(DEMO_DRIVE_IDS.rentRoll);
    expect(byName.find((f) => f.id === DEMO_DRIVE_IDS.rentRoll)?.kind).toBe('sheet');
    const byContent = await drive.search({ query: 'heater' });
    expect(byContent.map((f) => f.id)).toEqual([DEMO_DRIVE_IDS.procedures]);
    expect(byContent[0]).toMatchObject({ kind: 'doc', link: expect.stringContaining('docs.google.com') });
  });

  it('filters by kind and folder', async () => {
    const pdfs = await drive.search({ kind: 'pdf' });
    expect(pdfs.map((f) => f.name)).toEqual(['Lease summary - 12 Oak St #2.pdf']);
    const inFolder = await drive.search({ folderId: DEMO_DRIVE_IDS.folder });
    expect(inFolder.map((f) => f.id).sort()).toEqual(
      [DEMO_DRIVE_IDS.procedures, DEMO_DRIVE_IDS.rentRoll, DEMO_DRIVE_IDS.leasePdf].sort(),
    );
  });

  it('escapes quotes in the query instead of breaking it', async () => {
    await expect(drive.search({ query: "O'Brien \\ lease" })).resolves.toEqual([]);
  });
});

describe('GoogleDrive.readDoc', () => {
  it('renders headings, bullets and tables as text', async () => {
    const doc = await drive.readDoc(DEMO_DRIVE_IDS.procedures);
    expect(doc.title).toBe('Maintenance procedures');
    expect(doc.text).toContain('# Maintenance procedures\nUrgent issues');
    expect(doc.text).toContain('## Heating\n- Ask the tenant whether the thermostat has power.');
    expect(doc.text).toContain('Plumbing | Martinez Plumbing | +14155550121');
    expect(doc.truncated).toBe(false);
    const short = await drive.readDoc(DEMO_DRIVE_IDS.procedures, { maxChars: 30 });
    expect(short).toMatchObject({ truncated: true });
    expect(short.text.length).toBeLessThanOrEqual(30);
  });

  it('maps a missing document to NotFoundError and a non-document to ValidationError', async () => {
    await expect(drive.readDoc('nope')).rejects.toBeInstanceOf(NotFoundError);
    await expect(drive.readDoc(DEMO_DRIVE_IDS.rentRoll)).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('GoogleDrive.readSheet', () => {
  it('reads the first tab by default and names every tab', async () => {
    const sheet = await drive.readSheet(DEMO_DRIVE_IDS.rentRoll);
    expect(sheet).toMatchObject({
      title: 'Rent roll',
      sheet: 'Rent roll',
      sheets: ['Rent roll', 'Vacancies'],
    });
    expect(sheet.rows[0]).toEqual(['Unit', 'Tenant', 'Monthly rent', 'Lease end', 'Balance']);
    expect(sheet.rows[1]).toEqual(['12 Oak St #2', 'Maria Lopez', '2150', '2026-05-31', '0']);
    // Sheets drops trailing empty cells: the vacant unit's row is shorter.
    expect(sheet.rows[4]).toEqual(['48 Elm Ave #3', '', '1950']);
  });

  it('reads another tab, a range, and caps rows', async () => {
    const tab = await drive.readSheet(DEMO_DRIVE_IDS.rentRoll, { range: 'Vacancies' });
    expect(tab).toMatchObject({
      sheet: 'Vacancies',
      rows: [
        ['Unit', 'Available from'],
        ['48 Elm Ave #3', 'next month'],
      ],
    });
    const range = await drive.readSheet(DEMO_DRIVE_IDS.rentRoll, { range: 'A2:B3' });
    expect(range.rows).toEqual([
      ['12 Oak St #2', 'Maria Lopez'],
      ['48 Elm Ave #5', 'David Kim'],
    ]);
    expect(range.range).toBe("'Rent roll'!A2:B3");
    const capped = await drive.readSheet(DEMO_DRIVE_IDS.rentRoll, { maxRows: 2 });
    expect(capped).toMatchObject({ truncated: true });
    expect(capped.rows).toHaveLength(2);
  });
});

describe('GoogleDrive.readPdf', () => {
  it('extracts the text of a PDF with unpdf', async () => {
    const pdf = await drive.readPdf(DEMO_DRIVE_IDS.leasePdf);
    expect(pdf).toMatchObject({ name: 'Lease summary - 12 Oak St #2.pdf', pages: 1, truncated: false });
    expect(pdf.text).toContain('Lease summary: 12 Oak St #2');
    expect(pdf.text).toContain('Monthly rent: $2,150, due on the 1st');
  });

  it('refuses a file that is not a PDF, and bytes that are not one', async () => {
    await expect(drive.readPdf(DEMO_DRIVE_IDS.procedures)).rejects.toThrow(/not a PDF/);
    emu.state.respondNext(`/drive/v3/files/${DEMO_DRIVE_IDS.leasePdf}?alt=media`, {
      status: 200,
      body: 'this is not a pdf',
      headers: { 'content-type': 'application/pdf' },
    });
    await expect(drive.readPdf(DEMO_DRIVE_IDS.leasePdf)).rejects.toThrow(/could not be read as a PDF/);
  });

  it('refuses a PDF over the size limit before downloading it', async () => {
    const small = createGoogleDrive({
      auth: createGoogleAuth({ serviceAccount: emu.serviceAccountJson, subject: emu.mailbox }),
      rootUrl: `${emu.url}/`,
      maxPdfBytes: 100,
    });
    const before = emu.state.requests.filter((r) => r.path.endsWith(DEMO_DRIVE_IDS.leasePdf)).length;
    await expect(small.readPdf(DEMO_DRIVE_IDS.leasePdf)).rejects.toThrow(/too large/);
    expect(emu.state.requests.filter((r) => r.path.endsWith(DEMO_DRIVE_IDS.leasePdf)).length).toBe(
      before + 1,
    );
  });
});

describe('GoogleDrive upstream failures', () => {
  it('retries a 429 on a search and then succeeds', async () => {
    emu.state.failNext('/drive/v3/files', 429);
    await expect(drive.search({ kind: 'pdf' })).resolves.toHaveLength(1);
  });

  it('retries a 503 on a sheet read and then succeeds', async () => {
    emu.state.failNext(`/v4/spreadsheets/${DEMO_DRIVE_IDS.rentRoll}/values`, 503);
    await expect(drive.readSheet(DEMO_DRIVE_IDS.rentRoll)).resolves.toMatchObject({ sheet: 'Rent roll' });
  });

  it('reports malformed responses as upstream faults', async () => {
    emu.state.respondNext('/drive/v3/files', { status: 200, body: '{"files":[{"id":7}]}' });
    await expect(drive.search({ query: 'rent' })).rejects.toMatchObject({ code: 'upstream_malformed' });
    emu.state.respondNext(`/v1/documents/${DEMO_DRIVE_IDS.procedures}`, {
      status: 200,
      body: '{"title":"no id"}',
    });
    await expect(drive.readDoc(DEMO_DRIVE_IDS.procedures)).rejects.toMatchObject({
      code: 'upstream_malformed',
    });
  });

  it('reports revoked credentials as an auth failure', async () => {
    emu.state.revokeTokens();
    await expect(drive.readDoc(DEMO_DRIVE_IDS.procedures)).rejects.toMatchObject({
      code: 'upstream_auth_failed',
    });
  });
});
