import { createHash } from 'node:crypto';
import { crc32, inflateSync } from 'node:zlib';
import type { GitHttpRequest, GitHttpResponse, HttpClient } from 'isomorphic-git';
import { applyDelta, readEntryHeader } from './git-pack-checkout';

/**
 * A clone's pack indexed with node:zlib and node:crypto (issue 14: memory cold start).
 *
 * isomorphic-git indexes a fetched pack in pure JS (pako inflate, a JS CRC-32, one promise per SHA-1): on a
 * 1,000-file workspace that was two thirds of a cold start's clone, and the network a tenth. So the clone's
 * one upload-pack response is captured on its way in (`capturingHttp`), isomorphic-git is handed the same
 * response with an empty pack (it writes the refs, the shallow list and the config as usual, and skips the
 * indexing it does for a non-empty pack), and the real pack is written here with its index.
 *
 * Formats: git's Documentation/gitformat-pack.txt (pack v2, pack index v2) and gitprotocol-pack.txt /
 * gitprotocol-http.txt (pkt-lines, side-band-64k). Anything unexpected (no side-band, a second response, a
 * pack that does not parse) leaves the response untouched, and isomorphic-git indexes it as before.
 */

const FLUSH = Buffer.from('0000');
const EMPTY_PACK_HEADER = Buffer.from('5041434b0000000200000000', 'hex');

/**
 * An http client for one clone: the upload-pack response's pack is indexed and handed to `keep` (which writes
 * both into the clone's object store before isomorphic-git goes on: it reads the commit right after), and
 * isomorphic-git gets the response with an empty pack instead.
 */
export function capturingHttp(
  http: HttpClient,
  keep: (pack: Buffer, idx: Buffer, objects: PackObjects) => Promise<void>,
): HttpClient {
  let kept = false;
  return {
    async request(req: GitHttpRequest): Promise<GitHttpResponse> {
      const res = await http.request(req);
      const uploadPack = req.method === 'POST' && req.url.endsWith('/git-upload-pack');
      if (kept || !uploadPack || res.statusCode !== 200) return res;
      const body = await collect(res.body);
      const split = splitSideBand(body);
      const indexed = split && indexPackObjects(split.pack);
      // Not a response or a pack this code knows (a thin pack, no side-band): isomorphic-git gets it whole.
      if (!split || !indexed) return { ...res, body: once(body) };
      await keep(split.pack, indexed.idx, indexed.objects);
      kept = true;
      return { ...res, body: once(split.rest) };
    },
  };
}

async function collect(body: GitHttpResponse['body']): Promise<Buffer> {
  const chunks: Buffer[] = [];
  if (body) for await (const c of body) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks);
}

async function* once(b: Buffer): AsyncIterableIterator<Uint8Array> {
  yield b;
}

const pkt = (payload: Buffer) =>
  Buffer.concat([Buffer.from((payload.length + 4).toString(16).padStart(4, '0')), payload]);

/**
 * The response as pkt-lines: the negotiation (shallow lines, flushes, NAK/ACK) kept as it came, the pack's
 * band-1 packets replaced by one packet holding an empty pack, progress and errors kept. Undefined when the
 * response is not side-band framed or does not end where its packets say (then nothing is changed).
 */
function splitSideBand(body: Buffer): { pack: Buffer; rest: Buffer } | undefined {
  const head: Buffer[] = [];
  const tail: Buffer[] = [];
  const pack: Buffer[] = [];
  let pos = 0;
  let banded = false;
  while (pos < body.length) {
    const len = Number.parseInt(body.toString('latin1', pos, pos + 4), 16);
    if (!Number.isInteger(len) || (len !== 0 && len < 4) || pos + Math.max(len, 4) > body.length)
      return undefined;
    const raw = body.subarray(pos, pos + Math.max(len, 4));
    const payload = body.subarray(pos + 4, pos + len);
    pos += Math.max(len, 4);
    if (!banded && (len === 0 || /^(shallow|unshallow|ACK|NAK)/.test(payload.toString('latin1', 0, 9)))) {
      head.push(raw);
      continue;
    }
    banded = true;
    if (len === 0) tail.push(raw);
    else if (payload[0] === 1) pack.push(payload.subarray(1));
    else if (payload[0] === 2 || payload[0] === 3) tail.push(raw);
    else return undefined;
  }
  const whole = Buffer.concat(pack);
  if (!banded || whole.length < 32 || whole.toString('latin1', 0, 4) !== 'PACK') return undefined;
  const empty = Buffer.concat([EMPTY_PACK_HEADER, createHash('sha1').update(EMPTY_PACK_HEADER).digest()]);
  const band1 = pkt(Buffer.concat([Buffer.from([1]), empty]));
  return { pack: whole, rest: Buffer.concat([...head, band1, ...(tail.length ? tail : [FLUSH])]) };
}

const TYPES = [undefined, 'commit', 'tree', 'blob', 'tag'] as const;
const OFS_DELTA = 6;
const REF_DELTA = 7;

interface Entry {
  offset: number;
  crc: number;
  kind: number;
  /** The inflated data: the object's, or the delta's until it is resolved. */
  data: Buffer;
  baseOffset?: number;
  baseOid?: string;
  type?: (typeof TYPES)[number];
  oid?: string;
}

/** Every object of a pack v2 with its offset, CRC-32 of its raw bytes, type and id (deltas resolved). */
function readEntries(pack: Buffer): Entry[] | undefined {
  if (pack.toString('latin1', 0, 4) !== 'PACK' || pack.readUInt32BE(4) !== 2) return undefined;
  const count = pack.readUInt32BE(8);
  const entries: Entry[] = [];
  let pos = 12;
  for (let i = 0; i < count; i++) {
    const offset = pos;
    const head = readEntryHeader(pack, offset);
    const { kind } = head;
    pos = head.pos;
    const entry: Entry = { offset, crc: 0, kind, data: Buffer.alloc(0) };
    if (head.baseOffset !== undefined) entry.baseOffset = head.baseOffset;
    else if (head.baseOid !== undefined) entry.baseOid = head.baseOid;
    else if (!TYPES[kind]) return undefined;
    // `info` gives the engine, whose bytesWritten is the compressed length this object took.
    const { buffer, engine } = inflateSync(pack.subarray(pos), { info: true }) as unknown as {
      buffer: Buffer;
      engine: { bytesWritten: number };
    };
    entry.data = buffer;
    pos += engine.bytesWritten;
    entry.crc = crc32(pack.subarray(offset, pos));
    entries.push(entry);
  }
  return pos === pack.length - 20 ? entries : undefined;
}

/** Types and ids, bases first (a delta's base is resolved before the delta, however they are ordered). */
function resolve(entries: Entry[]): boolean {
  const byOffset = new Map(entries.map((e) => [e.offset, e]));
  const byOid = new Map<string, Entry>();
  const name = (e: Entry) => {
    const header = Buffer.from(`${e.type} ${e.data.length}\0`);
    e.oid = createHash('sha1').update(header).update(e.data).digest('hex');
    byOid.set(e.oid, e);
  };
  for (const e of entries) {
    if (e.kind === OFS_DELTA || e.kind === REF_DELTA) continue;
    e.type = TYPES[e.kind];
    name(e);
  }
  // Deltas on deltas: each pass resolves those whose base is known; a pass that resolves none ends it.
  let pending = entries.filter((e) => !e.oid);
  while (pending.length) {
    const left: Entry[] = [];
    for (const e of pending) {
      const base = e.baseOffset !== undefined ? byOffset.get(e.baseOffset) : byOid.get(e.baseOid ?? '');
      if (!base?.oid) {
        left.push(e);
        continue;
      }
      e.type = base.type;
      e.data = applyDelta(base.data, e.data);
      name(e);
    }
    if (left.length === pending.length) return false; // a base outside the pack (a thin pack): not ours to do
    pending = left;
  }
  return true;
}

/**
 * A pack's objects by id, as the index pass inflated and named them: each id is the SHA-1 of its content, so
 * they are verified. The checkout that follows a clone writes the tree from them (git-pack-checkout.ts)
 * instead of inflating and hashing every object a second time.
 */
export type PackObjects = ReadonlyMap<string, { type: 'commit' | 'tree' | 'blob' | 'tag'; data: Buffer }>;

/** The pack index v2 for a pack: fanout, sorted ids, CRC-32s, 32-bit offsets, the pack's and its own SHA-1. */
export function indexPack(pack: Buffer): Buffer | undefined {
  return indexPackObjects(pack)?.idx;
}

/** The pack's index and its objects, or undefined for a pack this code does not index (see above). */
export function indexPackObjects(pack: Buffer): { idx: Buffer; objects: PackObjects } | undefined {
  if (pack.length < 32 || pack.length >= 0x80000000) return undefined;
  // The trailer is the SHA-1 of everything before it: a pack cut short or damaged in transit is refused.
  const sum = createHash('sha1').update(pack.subarray(0, -20)).digest();
  if (!sum.equals(pack.subarray(-20))) return undefined;
  const entries = readEntries(pack);
  if (!entries || !resolve(entries)) return undefined;
  const objects = new Map<string, { type: 'commit' | 'tree' | 'blob' | 'tag'; data: Buffer }>();
  for (const e of entries) if (e.oid && e.type) objects.set(e.oid, { type: e.type, data: e.data });
  return { idx: indexFile(pack, entries), objects };
}

function indexFile(pack: Buffer, entries: Entry[]): Buffer {
  const sorted = [...entries].sort((a, b) => ((a.oid as string) < (b.oid as string) ? -1 : 1));
  const n = sorted.length;
  const out = Buffer.alloc(8 + 256 * 4 + n * 28 + 40);
  out.writeUInt32BE(0xff744f63, 0);
  out.writeUInt32BE(2, 4);
  const fanout = new Array<number>(256).fill(0);
  for (const e of sorted) (fanout[Number.parseInt((e.oid as string).slice(0, 2), 16)] as number)++;
  let running = 0;
  for (let i = 0; i < 256; i++) {
    running += fanout[i] as number;
    out.writeUInt32BE(running, 8 + i * 4);
  }
  const names = 8 + 256 * 4;
  sorted.forEach((e, i) => {
    out.write(e.oid as string, names + i * 20, 'hex');
    out.writeUInt32BE(e.crc >>> 0, names + n * 20 + i * 4);
    out.writeUInt32BE(e.offset, names + n * 24 + i * 4);
  });
  const trailer = names + n * 28;
  pack.copy(out, trailer, pack.length - 20);
  createHash('sha1')
    .update(out.subarray(0, trailer + 20))
    .digest()
    .copy(out, trailer + 20);
  return out;
}
