/**
 * Backups of the embedded database (GET /api/v1/admin/backup; docs/operations.md, "Backups").
 * Only one process may open DATA_DIR, so the running service takes them itself: a checkpoint, a
 * copy of the data directory made while no statement runs (EmbeddedBackup explains why it is
 * consistent), then the copy archived as it is sent and removed afterwards. The answer is
 * streamed, not built in memory: the database holds every check result of the retention period
 * and can run to hundreds of MB, and the lock is held only for the copy, not while a client
 * downloads. A backup holds every password hash, key hash, webhook secret and subscriber
 * address: it is audited like a write. On PostgreSQL the service answers 409: pg_dump is the way.
 */
import { Context, DateTime, Effect, Layer, Option, Semaphore, Stream } from "effect"

import packageJson from "../../../package.json" with { type: "json" }
import { Conflict, ServiceUnavailable } from "../../domain/Errors.js"
import { orUnavailable } from "../../persistence/DatabaseErrors.js"
import { archiveOf } from "../../persistence/DataDirectoryArchive.js"
import {
  checkpoint,
  copyDataDirectory,
  EmbeddedDatabase,
  postgresVersionOf,
  removeLeftoverCopies
} from "../../persistence/EmbeddedBackup.js"
import { AuditTrail } from "../audit/AuditTrail.js"

/** The refusal on PostgreSQL: its own tools back it up, and the service does not hold its files. */
export const backupOnPostgres =
  "This service runs on PostgreSQL (DATABASE_URL): back it up with pg_dump, as docs/operations.md (\"Backups\") " +
  "describes; this endpoint backs up the embedded database only"

/** `status-page-20260504T100000Z.tar.gz`: when it was taken, in UTC, without characters file systems refuse. */
export const backupFileName = (takenAt: DateTime.Utc) =>
  `status-page-${DateTime.formatIso(takenAt).replace(/\.\d+Z$/, "Z").replace(/[-:]/g, "")}.tar.gz`

export class Backups extends Context.Service<Backups>()("Backups", {
  make: Effect.gen(function*() {
    const embedded = yield* EmbeddedDatabase
    const audit = yield* AuditTrail
    if (Option.isSome(embedded)) yield* removeLeftoverCopies(embedded.value.dataDir)
    /**
     * One backup at a time per process, each holding a copy of the database on disk until it is
     * sent: another waits its turn (a client that gives up leaves the queue).
     */
    const turns = yield* Semaphore.make(1)

    return {
      /**
       * A backup of the embedded database: its file name and the archive, read from the copy as
       * it is consumed. The copy (and this process's turn) lasts as long as the caller's scope:
       * an HTTP request's, which closes when the answer ends or the client goes away.
       */
      take: Effect.fn("Backups.take")(function*() {
        if (Option.isNone(embedded)) return yield* new Conflict({ message: backupOnPostgres })
        yield* Semaphore.takeScoped(turns, 1)
        const takenAt = yield* DateTime.now
        yield* orUnavailable(checkpoint)
        const copy = yield* copyDataDirectory(embedded.value).pipe(
          Effect.mapError((error) =>
            new ServiceUnavailable({ message: `The database could not be copied for the backup: ${error.message}` })
          )
        )
        const postgresVersion = yield* Effect.promise(() => postgresVersionOf(copy))
        const fileName = backupFileName(takenAt)
        yield* audit.transaction(audit.record({ target: { type: "backup", id: null, name: fileName } }))
        const archive = archiveOf(copy, {
          format: "status-page embedded backup",
          formatVersion: 1,
          serviceVersion: packageJson.version,
          takenAt: DateTime.formatIso(takenAt),
          postgresVersion: postgresVersion ?? "unknown"
        })
        return {
          fileName,
          // A failure once the answer has begun cuts the connection: the client sees a body that
          // ends early (a gzip stream without its end), never a backup that looks whole.
          archive: Stream.fromAsyncIterable(archive as AsyncIterable<Uint8Array>, (cause) => cause)
        }
      })
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide(AuditTrail.layer))
}
