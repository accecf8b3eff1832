import { createHash } from 'node:crypto';
import { type BigIntStats, closeSync, fstatSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { inflateSync } from 'node:zlib';
import type { PackObjects } from './git-pack-index';

/**
 * The working tree of a fresh clone, written straight from its one packfile (issue #14: memory cold start).
 *
 * isomorphic-git's checkout inflates every object with pako (pure JS), lstat()s every file and writes an
 * index of all of them; on a 1,000-file workspace that was most of the cold start. Here the pack is read
 * once with node:zlib, deltas are applied in memory, every blob is checked against its id (SHA-1 of
 * "blob <size>\0" + content, as git names it) and written, and the index (the staging area, with each
 * file's stat data from the handle that wrote it) is written once, so git — ours or the CLI — sees a clean
 * working copy.
 *
 * Formats from git's Documentation/gitformat-pack.txt (pack v2, pack index v2) and gitformat-index.txt
 * (index v2). Anything else — more than one
 * pack, a base outside the pack, a symlink or submodule entry — returns false and the caller falls back to
 * isomorphic-git's checkout, which handles every case.
 */
export async function checkoutFromPack(
  dir: string,
  commitOid: string,
  /** The clone's objects as its index pass read them (git-pack-index.ts): not inflated and hashed again. */
  known?: PackObjects,
): Promise<boolean> {
  try {
    return await checkout(dir, commitOid, known);
  } catch (error) {
    // Nothing is written before every blob has been read and verified, so a fallback starts clean.
    if (error instanceof PackError) return false;
    throw error;
  }
}

async function checkout(dir: string, commitOid: string, known?: PackObjects): Promise<boolean> {
  const store = known ? knownStore(known) : await storeOnDisk(dir);
  if (!store) return false;
  const commit = store.read(commitOid);
  if (commit?.type !== 'commit') return false;
  const treeOid = /^tree ([0-9a-f]{40})$/m.exec(commit.data.toString('latin1'))?.[1];
  if (!treeOid) return false;
  const files = listBlobs(store, treeOid, '');
  if (!files) return false;
  const blobs = files.map((f) => ({ ...f, data: verifiedBlob(store, f) }));
  const stats = await writeFiles(dir, blobs);
  await writeFile(join(dir, '.git', 'index'), indexFile(blobs, stats));
  return true;
}

interface PackObject {
  type: 'commit' | 'tree' | 'blob' | 'tag';
  data: Buffer;
}

/** Objects by id; `verified`: every object's id was computed from its content (no need to hash it again). */
interface ObjectStore {
  read(oid: string): PackObject | undefined;
  verified: boolean;
}

/** The clone's one pack, read from disk with its index: objects are inflated on demand and checked. */
async function storeOnDisk(dir: string): Promise<ObjectStore | undefined> {
  const packDir = join(dir, '.git', 'objects', 'pack');
  const packs = (await readdir(packDir).catch(() => [] as string[])).filter((f) => f.endsWith('.pack'));
  if (packs.length !== 1) return undefined;
  const base = join(packDir, (packs[0] as string).slice(0, -'.pack'.length));
  const [pack, idx] = await Promise.all([readFile(`${base}.pack`), readFile(`${base}.idx`)]);
  const store = packStore(pack, readPackIndex(idx));
  return store && { ...store, verified: false };
}

function knownStore(objects: PackObjects): ObjectStore {
  return { read: (oid) => objects.get(oid), verified: true };
}

interface FileEntry {
  path: string;
  oid: string;
  executable: boolean;
}

/** oid → offset in the pack, from an index v2 (magic \377tOc, version 2). */
function readPackIndex(idx: Buffer): Map<string, number> | undefined {
  if (idx.readUInt32BE(0) !== 0xff744f63 || idx.readUInt32BE(4) !== 2) return undefined;
  const count = idx.readUInt32BE(8 + 255 * 4);
  const names = 8 + 256 * 4;
  const offsets = names + count * 20 + count * 4;
  const large = offsets + count * 4;
  const map = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    const oid = idx.toString('hex', names + i * 20, names + i * 20 + 20);
    const small = idx.readUInt32BE(offsets + i * 4);
    // MSB set: the offset is in the 8-byte table (packs over 2 GiB; a memory workspace never gets there).
    const at = small & 0x80000000 ? Number(idx.readBigUInt64BE(large + (small & 0x7fffffff) * 8)) : small;
    map.set(oid, at);
  }
  return map;
}

const TYPES = [undefined, 'commit', 'tree', 'blob', 'tag'] as const;
const OFS_DELTA = 6;
const REF_DELTA = 7;

/**
 * A pack entry's header at `offset`: its kind, where its zlib data starts, and a delta's base (by offset
 * for OFS_DELTA, by id for REF_DELTA). The inflated size it also holds is skipped: inflate finds the end.
 */
export function readEntryHeader(pack: Buffer, offset: number) {
  let pos = offset;
  let byte = pack[pos++] as number;
  const kind = (byte >> 4) & 7;
  while (byte & 0x80) byte = pack[pos++] as number;
  if (kind === OFS_DELTA) {
    byte = pack[pos++] as number;
    let back = byte & 0x7f;
    while (byte & 0x80) {
      byte = pack[pos++] as number;
      back = ((back + 1) << 7) | (byte & 0x7f);
    }
    return { kind, pos, baseOffset: offset - back };
  }
  if (kind === REF_DELTA) return { kind, pos: pos + 20, baseOid: pack.toString('hex', pos, pos + 20) };
  return { kind, pos };
}

/** Reads objects by oid, resolving delta chains (memoised by offset: siblings share their bases). */
function packStore(pack: Buffer, index: Map<string, number> | undefined) {
  if (!index || pack.toString('latin1', 0, 4) !== 'PACK' || pack.readUInt32BE(4) !== 2) return undefined;
  const byOffset = new Map<number, PackObject>();
  const at = (offset: number, depth = 0): PackObject => {
    const known = byOffset.get(offset);
    if (known) return known;
    if (depth > 64) throw new PackError('delta chain too deep');
    const { kind, pos, ...head } = readEntryHeader(pack, offset);
    let object: PackObject;
    if (kind === OFS_DELTA || kind === REF_DELTA) {
      const baseOffset = head.baseOffset ?? (head.baseOid ? index.get(head.baseOid) : undefined);
      if (baseOffset === undefined) throw new PackError('delta base outside the pack');
      const base = at(baseOffset, depth + 1);
      object = { type: base.type, data: applyDelta(base.data, inflateSync(pack.subarray(pos))) };
    } else {
      const type = TYPES[kind];
      if (!type) throw new PackError(`object type ${kind}`);
      object = { type, data: inflateSync(pack.subarray(pos)) };
    }
    byOffset.set(offset, object);
    return object;
  };
  return {
    read(oid: string): PackObject | undefined {
      const offset = index.get(oid);
      return offset === undefined ? undefined : at(offset);
    },
  };
}

class PackError extends Error {}

/** A git delta: source size, target size, then copy (from the base) and insert (literal) instructions. */
export function applyDelta(base: Buffer, delta: Buffer): Buffer {
  let pos = 0;
  const varint = () => {
    let value = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = delta[pos++] as number;
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return value;
  };
  if (varint() !== base.length) throw new PackError('delta base size mismatch');
  const out = Buffer.allocUnsafe(varint());
  let written = 0;
  while (pos < delta.length) {
    const op = delta[pos++] as number;
    if (op & 0x80) {
      let offset = 0;
      let size = 0;
      for (let i = 0; i < 4; i++) if (op & (1 << i)) offset |= (delta[pos++] as number) << (8 * i);
      for (let i = 0; i < 3; i++) if (op & (0x10 << i)) size |= (delta[pos++] as number) << (8 * i);
      offset >>>= 0;
      if (size === 0) size = 0x10000;
      written += base.copy(out, written, offset, offset + size);
    } else if (op) {
      written += delta.copy(out, written, pos, pos + op);
      pos += op;
    } else {
      throw new PackError('delta opcode 0');
    }
  }
  if (written !== out.length) throw new PackError('delta target size mismatch');
  return out;
}

/** Every regular file under a tree; undefined at a symlink, a submodule or a missing object. */
function listBlobs(store: ObjectStore, treeOid: string, prefix: string) {
  const tree = store.read(treeOid);
  if (tree?.type !== 'tree') return undefined;
  const files: FileEntry[] = [];
  const data = tree.data;
  let pos = 0;
  while (pos < data.length) {
    const space = data.indexOf(0x20, pos);
    const nul = data.indexOf(0, space);
    const mode = data.toString('latin1', pos, space);
    const name = data.toString('utf8', space + 1, nul);
    const oid = data.toString('hex', nul + 1, nul + 21);
    pos = nul + 21;
    if (mode === '40000') {
      const inner = listBlobs(store, oid, `${prefix}${name}/`);
      if (!inner) return undefined;
      files.push(...inner);
    } else if (mode === '100644' || mode === '100755') {
      files.push({ path: `${prefix}${name}`, oid, executable: mode === '100755' });
    } else {
      return undefined;
    }
  }
  return files;
}

/** The blob's content, checked against its id: SHA-1 of "blob <size>\0" + content, as git names it. */
function verifiedBlob(store: ObjectStore, file: FileEntry): Buffer {
  const blob = store.read(file.oid);
  if (blob?.type !== 'blob') throw new PackError(`missing blob for ${file.path}`);
  if (store.verified) return blob.data;
  const id = createHash('sha1').update(`blob ${blob.data.length}\0`).update(blob.data).digest('hex');
  if (id !== file.oid) throw new PackError(`blob ${file.path} does not match its id`);
  return blob.data;
}

type FileStat = BigIntStats;

/**
 * Folders, then the files, each file's stat data from the descriptor that wrote it (for the index). Plain
 * synchronous calls on purpose: a thousand small files cost four thread-pool round trips each when done
 * with promises, several times the work itself, and nothing else runs during a cold start.
 */
async function writeFiles(dir: string, files: Array<FileEntry & { data: Buffer }>): Promise<FileStat[]> {
  const folders = [...new Set(files.map((f) => dirname(f.path)))].filter((d) => d !== '.');
  for (const d of folders) mkdirSync(join(dir, d), { recursive: true });
  return files.map((file) => {
    const fd = openSync(join(dir, file.path), 'w', file.executable ? 0o755 : 0o644);
    try {
      writeSync(fd, file.data);
      return fstatSync(fd, { bigint: true });
    } finally {
      closeSync(fd);
    }
  });
}

/**
 * An index v2 ("DIRC"): one 62-byte entry per file (stat data, mode, id, flags) and its path, NUL-padded
 * to a multiple of 8, sorted by path bytes; a SHA-1 of everything before it closes the file.
 */
export function indexFile(files: Array<FileEntry & { data: Buffer }>, stats: FileStat[]): Buffer {
  const order = files.map((f, i) => ({ f, st: stats[i] as FileStat, name: Buffer.from(f.path) }));
  order.sort((a, b) => Buffer.compare(a.name, b.name));
  const parts: Buffer[] = [];
  const head = Buffer.alloc(12);
  head.write('DIRC', 0, 'latin1');
  head.writeUInt32BE(2, 4);
  head.writeUInt32BE(order.length, 8);
  parts.push(head);
  const u32 = (n: bigint) => Number(BigInt.asUintN(32, n));
  for (const { f, st, name } of order) {
    const entry = Buffer.alloc(Math.ceil((62 + name.length + 1) / 8) * 8);
    const fields = [
      u32(st.ctimeNs / 1_000_000_000n),
      u32(st.ctimeNs % 1_000_000_000n),
      u32(st.mtimeNs / 1_000_000_000n),
      u32(st.mtimeNs % 1_000_000_000n),
      u32(st.dev),
      u32(st.ino),
      f.executable ? 0o100755 : 0o100644,
      u32(st.uid),
      u32(st.gid),
      u32(st.size),
    ];
    for (const [i, v] of fields.entries()) entry.writeUInt32BE(v, i * 4);
    entry.write(f.oid, 40, 'hex');
    entry.writeUInt16BE(Math.min(name.length, 0xfff), 60);
    name.copy(entry, 62);
    parts.push(entry);
  }
  const body = Buffer.concat(parts);
  return Buffer.concat([body, createHash('sha1').update(body).digest()]);
}
