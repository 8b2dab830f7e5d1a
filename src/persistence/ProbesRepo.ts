/**
 * The probe registry's rows (migration 0020), keyed (region, name). Heartbeats are written one
 * region at a time, each region in a transaction of its own under a per-region advisory lock: a
 * region is held to its cap of probes exactly, and a region's failure cannot lose another's.
 */
import { Context, Effect, Layer, Schema } from "effect"

import type { PageRequest } from "../domain/Page.js"
import { orUnavailable } from "./DatabaseErrors.js"
import { type Keyset, readPage } from "./Keyset.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { rowsOf } from "./Rows.js"

/** One heartbeat as stored: the probe's fields, and `lastSeenAt` from the server's clock. */
export interface ProbeRecord {
  readonly region: string
  readonly name: string
  readonly version: string
  readonly startedAt: number
  readonly sentAt: number
  readonly lastSeenAt: number
  readonly concurrency: number
  readonly checksLastMinute: number
  readonly lagMs: number
  readonly inFlight: number
}

export class ProbeRow extends Schema.Class<ProbeRow>("ProbeRow")({
  region: Schema.String,
  name: Schema.String,
  version: Schema.String,
  startedAt: Schema.Date,
  sentAt: Schema.Date,
  lastSeenAt: Schema.Date,
  concurrency: Schema.Number,
  checksLastMinute: Schema.Number,
  lagMs: Schema.Number,
  inFlight: Schema.Number
}) {}

class RegionSeenRow extends Schema.Class<RegionSeenRow>("RegionSeenRow")({
  region: Schema.String,
  lastSeenAt: Schema.Date
}) {}

class NameRow extends Schema.Class<NameRow>("NameRow")({ name: Schema.String }) {}

class CountRow extends Schema.Class<CountRow>("CountRow")({ count: Schema.Number }) {}

/** What `recordRegion` did with the new names beyond the region's cap. */
export interface RegionRecorded {
  /** Offline probes deleted to make room, longest-silent first. */
  readonly replaced: ReadonlyArray<string>
  /** New probes not stored: the region was full of online probes. */
  readonly refused: ReadonlyArray<string>
}

/** The first key of the advisory locks taken per region (the second is the region's hash). */
const regionLockClass = 2020

// The heartbeat schema bounds these below only: a probe reporting absurd figures is stored at
// the column's limits rather than failing the whole batch (and the results beside it).
const maxInteger = 2_147_483_647
const int = (value: number) => Math.min(value, maxInteger)
// The latest instant both a JavaScript Date and PostgreSQL can hold.
const maxMillis = 8_640_000_000_000_000
const instant = (millis: number) => new Date(Math.min(millis, maxMillis))

/** Probes by region, then name. */
const probesInOrder: Keyset = {
  list: "probes",
  keys: [{ sql: "region", type: "text" }, { sql: "name", type: "text" }]
}

export class ProbesRepo extends Context.Service<ProbesRepo>()("ProbesRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const probes = rowsOf(ProbeRow)
    const regionsSeen = rowsOf(RegionSeenRow)

    return {
      /**
       * Inserts or updates one row per record of `region` (at most one record per name), in a
       * transaction that holds the region's advisory lock. A name the region does not know yet
       * takes a free place (at most `maxProbes` rows per region), else the place of the probe
       * of the region silent the longest, if that one was last seen before `offlineBefore`;
       * failing both it is refused. A row is updated by a heartbeat of another run of the probe
       * (a restart: `started_at` differs) or a later one of the same run; a heartbeat delivered
       * again late (claimed from a dead ingest instance) is older than the stored one and
       * changes nothing, so it cannot make a dead probe look online.
       */
      recordRegion: (
        region: string,
        records: ReadonlyArray<ProbeRecord>,
        bounds: { readonly maxProbes: number; readonly offlineBefore: Date }
      ) =>
        orUnavailable(sql.withTransaction(Effect.gen(function*() {
          yield* sql`select pg_advisory_xact_lock(${regionLockClass}, hashtext(${region}))`
          const names = records.map((r) => r.name)
          const known = new Set(
            (yield* Schema.decodeUnknownEffect(Schema.Array(NameRow))(
              yield* sql`select name from probes where region = ${region} and name = any(${names}::text[])`
            )).map((row) => row.name)
          )
          const fresh = names.filter((name) => !known.has(name))
          let replaced: ReadonlyArray<string> = []
          let refused: ReadonlyArray<string> = []
          if (fresh.length > 0) {
            const [stored] = yield* Schema.decodeUnknownEffect(Schema.Array(CountRow))(
              yield* sql`select count(*)::int as count from probes where region = ${region}`
            )
            let room = bounds.maxProbes - (stored?.count ?? 0)
            if (fresh.length > room) {
              replaced = (yield* Schema.decodeUnknownEffect(Schema.Array(NameRow))(
                yield* sql`
                  delete from probes where region = ${region} and name in (
                    select name from probes
                    where region = ${region} and last_seen_at < ${bounds.offlineBefore} and name <> all(${names}::text[])
                    order by last_seen_at, name
                    limit ${fresh.length - Math.max(room, 0)})
                  returning name`
              )).map((row) => row.name)
              room = Math.max(room, 0) + replaced.length
              refused = fresh.slice(room)
            }
          }
          const refusedNames = new Set(refused)
          const stored = records.filter((r) => !refusedNames.has(r.name))
          if (stored.length > 0) {
            yield* sql`
              insert into probes (region, name, version, started_at, sent_at, last_seen_at, concurrency,
                                  checks_last_minute, lag_ms, in_flight)
              select ${region}, * from unnest(
                ${stored.map((r) => r.name)}::text[], ${stored.map((r) => r.version)}::text[],
                ${stored.map((r) => instant(r.startedAt))}::timestamptz[],
                ${stored.map((r) => instant(r.sentAt))}::timestamptz[],
                ${stored.map((r) => instant(r.lastSeenAt))}::timestamptz[],
                ${stored.map((r) => int(r.concurrency))}::integer[],
                ${stored.map((r) => int(r.checksLastMinute))}::integer[],
                ${stored.map((r) => int(r.lagMs))}::integer[], ${stored.map((r) => int(r.inFlight))}::integer[])
              on conflict (region, name) do update set
                version = excluded.version, started_at = excluded.started_at, sent_at = excluded.sent_at,
                last_seen_at = greatest(probes.last_seen_at, excluded.last_seen_at), concurrency = excluded.concurrency,
                checks_last_minute = excluded.checks_last_minute, lag_ms = excluded.lag_ms, in_flight = excluded.in_flight
              where probes.started_at <> excluded.started_at or probes.sent_at < excluded.sent_at`
          }
          return { replaced, refused } satisfies RegionRecorded
        }))),

      /** The first `limit` probes, by region then name. */
      list: (limit: number) => probes.all(sql`select * from probes order by region, name limit ${limit}`),

      listPage: (page: PageRequest) =>
        readPage(
          sql,
          probesInOrder,
          page,
          (p) => sql`select *, ${p.pageKey} from probes where ${p.after} ${p.orderBy} ${p.limit}`,
          probes.all
        ),

      /** Each region with when its probe heard from last was seen. */
      lastSeenByRegion: () =>
        regionsSeen.all(sql`select region, max(last_seen_at) as last_seen_at from probes group by region`),

      /** Deletes up to `limit` probes last seen before `cutoff`; how many it deleted. */
      removeSilent: (cutoff: Date, limit: number) =>
        orUnavailable(sql`
          delete from probes
          where (region, name) in (
            select region, name from probes where last_seen_at < ${cutoff} limit ${limit} for update skip locked)
          and last_seen_at < ${cutoff}
          returning region`).pipe(Effect.map((rows) => rows.length))
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
