/**
 * The team's shared documents: find files, and read a document, a spreadsheet or a PDF as text the agent
 * can quote. Outputs are size-capped by the adapter and say when they were cut.
 */
export type DriveFileKind = 'folder' | 'doc' | 'sheet' | 'pdf' | 'other';

export interface DriveFile {
  id: string;
  name: string;
  kind: DriveFileKind;
  mimeType: string;
  modifiedTime?: string;
  link?: string;
}

export interface DriveSearchInput {
  /** Words to find in file names or contents; empty lists the most recently modified files. */
  query?: string;
  kind?: Exclude<DriveFileKind, 'other'>;
  folderId?: string;
  limit?: number;
}

export interface DocText {
  id: string;
  title: string;
  text: string;
  truncated: boolean;
}

export interface SheetValues {
  id: string;
  title: string;
  /** The tab that was read, and every tab's title so a follow-up can pick another. */
  sheet: string;
  sheets: string[];
  range: string;
  rows: string[][];
  truncated: boolean;
}

export interface PdfText {
  id: string;
  name: string;
  pages: number;
  text: string;
  truncated: boolean;
}

export interface Drive {
  search(input: DriveSearchInput): Promise<DriveFile[]>;
  readDoc(id: string, opts?: { maxChars?: number }): Promise<DocText>;
  readSheet(id: string, opts?: { range?: string; maxRows?: number }): Promise<SheetValues>;
  readPdf(id: string, opts?: { maxChars?: number }): Promise<PdfText>;
}
