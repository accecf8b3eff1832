// dynalite ships no types; this is the part of its API the local stack uses (its readme: dynalite(options)
// returns an http.Server; createTableMs & co. are the simulated delays, `path` a LevelDB folder).
declare module 'dynalite' {
  import type { Server } from 'node:http';

  interface DynaliteOptions {
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
  }
  export default function dynalite(options?: DynaliteOptions): Server;
}
