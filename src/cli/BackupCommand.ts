/**
 * `status-page backup FILE`: a running service's embedded database, through the API (owner key),
 * written to FILE whole or not at all: into a file of its own beside it (mode 0600: the backup
 * holds every secret's hash and every subscriber's address), checked to be a complete gzip
 * stream, then renamed over FILE. `status-page restore` (./RestoreCommand.ts) reads it.
 */
import { randomUUID } from "node:crypto"
import { createReadStream } from "node:fs"
import { open, rename, rm, stat } from "node:fs/promises"
import * as Path from "node:path"
import { Writable } from "node:stream"
import { pipeline } from "node:stream/promises"
import { createGunzip } from "node:zlib"

import { Config, Console, Effect, Schema, Stream } from "effect"
import { Argument, Command, Flag } from "effect/cli"

import { UsageError } from "./CliFailure.js"
import { connection, withClient } from "./Remote.js"

/** The backup could not be written where it was asked to go. */
export class CannotWrite extends Schema.TaggedError<CannotWrite>()("CannotWrite", { message: Schema.String }) {}

const megabytes = (bytes: number) => `${(bytes / 1_000_000).toFixed(1)} MB`

/** Whether `file` is a whole gzip stream: reading it to its end checks its length and CRC. */
const completeGzip = (file: string) =>
  pipeline(createReadStream(file), createGunzip(), new Writable({ write: (_chunk, _encoding, done) => done() }))
    .then(() => true, () => false)

/** Writes `chunks` to `target` through a file of its own in the same directory, renamed over it once whole. */
const writeWhole = (target: string, chunks: Stream.Stream<Uint8Array, unknown>) => {
  const partial = Path.join(Path.dirname(target), `.${Path.basename(target)}.${randomUUID()}.partial`)
  return Effect.gen(function*() {
    const failed = (error: unknown) =>
      new CannotWrite({ message: `Cannot write ${target}: ${error instanceof Error ? error.message : String(error)}` })
    const handle = yield* Effect.tryPromise({ try: () => open(partial, "wx", 0o600), catch: failed })
    const written = yield* Stream.runFoldEffect(
      chunks,
      () => 0,
      (total, chunk) =>
        Effect.tryPromise({ try: () => handle.write(chunk), catch: failed }).pipe(
          Effect.as(total + chunk.length)
        )
    ).pipe(
      Effect.tap(() => Effect.tryPromise({ try: () => handle.sync(), catch: failed })),
      Effect.ensuring(Effect.promise(() => handle.close()))
    )
    if (!(yield* Effect.promise(() => completeGzip(partial)))) {
      return yield* new CannotWrite({ message: "The service's answer ended early: the backup is incomplete" })
    }
    yield* Effect.tryPromise({ try: () => rename(partial, target), catch: failed })
    return written
  }).pipe(Effect.onError(() => Effect.promise(() => rm(partial, { force: true }))))
}

export const BackupCommand = Command.make("backup", {
  url: connection.url,
  apiKey: connection.apiKey,
  insecure: connection.insecure,
  // A backup is as large as the database: more time than an answer of the API.
  timeout: Flag.Int("timeout").pipe(
    Flag.withFallbackConfig(Config.Int("STATUS_PAGE_TIMEOUT")),
    Flag.withDefault(300),
    Flag.withDescription("Seconds to wait for the whole backup (default: 300)")
  ),
  file: Argument.String("file").pipe(
    Argument.withDescription("Where to write the backup (.tar.gz); replaced if it exists")
  )
}, (options) =>
  Effect.gen(function*() {
    const target = Path.resolve(options.file)
    const directory = yield* Effect.promise(() =>
      stat(Path.dirname(target)).then((info) => info.isDirectory(), () => false)
    )
    if (!directory) return yield* new UsageError({ message: `${Path.dirname(target)} is not a directory` })
    const { bytes, fileName } = yield* withClient({ ...options, json: false }, (client) =>
      Effect.gen(function*() {
        const answer = yield* client.operations.backup()
        const fileName = /filename="([^"]+)"/.exec(answer.headers["content-disposition"])?.[1] ?? "the backup"
        return { bytes: yield* writeWhole(target, answer.body), fileName }
      }))
    yield* Console.log(
      `Wrote ${fileName} to ${target} (${megabytes(bytes)}). Restore it with: status-page restore ${target}`
    )
  })).pipe(
    Command.withDescription(
      "Back up a running service's embedded database to FILE (an owner's API key; on PostgreSQL use pg_dump)"
    )
  )
