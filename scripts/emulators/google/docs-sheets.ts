import type { SeedDocBlock } from '../seed/google-data';
import type { DriveFile } from './drive-query';
import { ApiError } from './errors';

/** Docs `documents.get` bodies and Sheets A1 range reads, built from the seed's plain records. */
export function buildDocument(file: DriveFile) {
  let index = 1;
  const paragraph = (text: string, namedStyleType: string, bullet: boolean) => {
    const content = `${text}\n`;
    const start = index;
    index += content.length;
    return {
      startIndex: start,
      endIndex: index,
      paragraph: {
        elements: [{ startIndex: start, endIndex: index, textRun: { content, textStyle: {} } }],
        paragraphStyle: { namedStyleType, direction: 'LEFT_TO_RIGHT' },
        ...(bullet ? { bullet: { listId: 'kix.list1', textStyle: {} } } : {}),
      },
    };
  };
  const block = (b: SeedDocBlock) => {
    if (b.kind === 'heading') return paragraph(b.text, `HEADING_${b.level}`, false);
    if (b.kind === 'bullet') return paragraph(b.text, 'NORMAL_TEXT', true);
    if (b.kind === 'paragraph') return paragraph(b.text, 'NORMAL_TEXT', false);
    const start = index++;
    const tableRows = b.rows.map((row) => {
      const rowStart = index++;
      const tableCells = row.map((cell) => {
        const cellStart = index++;
        const content = [paragraph(cell, 'NORMAL_TEXT', false)];
        return {
          startIndex: cellStart,
          endIndex: index,
          content,
          tableCellStyle: { rowSpan: 1, columnSpan: 1 },
        };
      });
      return { startIndex: rowStart, endIndex: index, tableCells };
    });
    return {
      startIndex: start,
      endIndex: ++index,
      table: { rows: b.rows.length, columns: Math.max(0, ...b.rows.map((r) => r.length)), tableRows },
    };
  };
  const content = [
    { endIndex: 1, sectionBreak: { sectionStyle: { columnSeparatorStyle: 'NONE' } } },
    ...(file.doc ?? []).map(block),
  ];
  return {
    documentId: file.id,
    title: file.name,
    body: { content },
    lists: {
      'kix.list1': {
        listProperties: { nestingLevels: [{ glyphType: 'GLYPH_TYPE_UNSPECIFIED', glyphSymbol: '●' }] },
      },
    },
    revisionId: `rev-${file.modifiedTime}`,
    suggestionsViewMode: 'SUGGESTIONS_INLINE',
  };
}

function colToIndex(col: string): number {
  let n = 0;
  for (const ch of col.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

function indexToCol(i: number): string {
  let n = i + 1;
  let s = '';
  while (n > 0) {
    const r = (n - 1) % 26;
    s = String.fromCharCode(65 + r) + s;
    n = Math.floor((n - 1) / 26);
  }
  return s;
}

function quoteSheet(title: string): string {
  return /^[A-Za-z0-9_]+$/.test(title) ? title : `'${title.replace(/'/g, "''")}'`;
}

/** A1 notation: `Sheet!A1:C5`, `'Rent roll'!A:C`, `Sheet`, `A1:C5` (first sheet), open-ended `A2:C`. */
export function readRange(file: DriveFile, range: string) {
  const sheets = file.sheets ?? [];
  const bang = range.lastIndexOf('!');
  let sheetName: string | undefined;
  let cells = '';
  const cellRe = /^([A-Za-z]*)(\d*)(?::([A-Za-z]*)(\d*))?$/;
  if (bang >= 0) {
    sheetName = range.slice(0, bang);
    cells = range.slice(bang + 1);
  } else if (cellRe.test(range) && !sheets.some((s) => s.title === range)) {
    cells = range;
  } else {
    sheetName = range;
  }
  if (sheetName?.startsWith("'")) sheetName = sheetName.slice(1, -1).replace(/''/g, "'");
  const sheet = sheetName === undefined ? sheets[0] : sheets.find((s) => s.title === sheetName);
  const m = cellRe.exec(cells);
  if (!sheet || !m) throw new ApiError(400, `Unable to parse range: ${range}`, 'badRequest');
  const startCol = m[1] ? colToIndex(m[1]) : 0;
  const startRow = m[2] ? Number(m[2]) - 1 : 0;
  const single = m[3] === undefined && m[4] === undefined && cells !== '';
  const endCol = single ? startCol : m[3] ? colToIndex(m[3]) : Number.POSITIVE_INFINITY;
  const endRow = single ? startRow : m[4] ? Number(m[4]) - 1 : Number.POSITIVE_INFINITY;
  const rows = sheet.rows
    .slice(startRow, endRow === Number.POSITIVE_INFINITY ? undefined : endRow + 1)
    .map((r) => r.slice(startCol, endCol === Number.POSITIVE_INFINITY ? undefined : endCol + 1));
  // Sheets omits trailing empty cells and rows.
  const trimmed = rows.map((r) => {
    const copy = [...r];
    while (copy.length && copy[copy.length - 1] === '') copy.pop();
    return copy;
  });
  while (trimmed.length && trimmed[trimmed.length - 1]?.length === 0) trimmed.pop();
  const width = Math.max(1, ...trimmed.map((r) => r.length));
  const lastCol = endCol === Number.POSITIVE_INFINITY ? startCol + width - 1 : endCol;
  const lastRow = endRow === Number.POSITIVE_INFINITY ? startRow + Math.max(1, trimmed.length) - 1 : endRow;
  const a1 = `${quoteSheet(sheet.title)}!${indexToCol(startCol)}${startRow + 1}:${indexToCol(lastCol)}${lastRow + 1}`;
  return { a1, values: trimmed };
}
