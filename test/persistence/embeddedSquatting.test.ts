/**
 * Nobody can take the embedded database's connections from the service. It listens on a Unix
 * socket in a directory only the service's user may enter; connections that never authenticate
 * hold no slot, so admin writes go on while 32 of them are open, and they are closed at the
 * handshake deadline (shortened here).
 */
import { execFile } from "node:child_process"
import { existsSync, statSync } from "node:fs"
import { chmod, mkdir, mkdtemp, rm, stat } from "node:fs/promises"
import { tmpdir } from "node:os"
import * as Path from "node:path"

import { describe, expect, it, layer } from "@effect/vitest"
import { ConfigProvider, Context, Duration, Effect, Layer, Logger, Result } from "effect"
import { SqlClient } from "effect/sql"

import { Database, EmbeddedHandshakeTimeout } from "../../src/persistence/Database.js"
import { type EmbeddedAddress, embeddedAddress, squatter } from "../support/EmbeddedAddress.js"
import { replaceDefaultLogger } from "../support/Logs.js"
import { embeddedConfig } from "../support/TestDatabase.js"
import { ApiClient, TestStack } from "../support/TestServer.js"

/** Keeps the log in `logged`, to read where the database listens. */
const keepLog = (logged: Array<string>) =>
  replaceDefaultLogger(Logger.make(({ message }) => logged.push(String(message))))

/** The HTTP stack on the embedded default, with `handshake` as the deadline to authenticate. */
const embeddedStack = (handshake: Duration.Input, logged: Array<string>) =>
  TestStack(embeddedConfig(), "Info").pipe(
    Layer.provide(keepLog(logged)),
    Layer.provide(Layer.succeed(EmbeddedHandshakeTimeout, Duration.fromInputUnsafe(handshake)))
  )

/** `count` connections that never authenticate, half of them waiting at the password request; closed after the test. */
const squatters = (address: EmbeddedAddress, count: number) =>
  Effect.acquireRelease(
    Effect.promise(() => Promise.all(Array.from({ length: count }, (_, i) => squatter(address.connect, i % 2 === 0)))),
    (open) => Effect.sync(() => open.forEach(({ socket }) => socket.destroy()))
  )

/** 12 admin writes at once, each "created" or what it failed with. */
const concurrentWrites = (label: string) =>
  Effect.gen(function*() {
    const client = yield* ApiClient
    return yield* Effect.forEach(
      Array.from({ length: 12 }, (_, i) => i),
      (i) =>
        client.components.create({ payload: { name: `${label} ${i}` } }).pipe(
          Effect.result,
          Effect.map(Result.match({ onFailure: (error) => String(error), onSuccess: () => "created" }))
        ),
      { concurrency: "unbounded" }
    )
  })

/** Until every one of `open` is closed by the server (10 s at most). */
const allClosed = (open: ReadonlyArray<{ readonly closed: () => boolean }>) =>
  Effect.promise(async () => {
    for (let waited = 0; waited < 10_000 && !open.every(({ closed }) => closed()); waited += 20) {
      await new Promise((resume) => setTimeout(resume, 20))
    }
    return open.filter(({ closed }) => !closed()).length
  })

/** Whether every user may run `file`: it and each directory above it are executable by others. */
const runnableByAnyone = (file: string) => {
  const paths = [file]
  for (let dir = Path.dirname(file); dir !== Path.dirname(dir); dir = Path.dirname(dir)) paths.push(dir)
  return paths.every((path) => (statSync(path).mode & 0o001) !== 0)
}

/**
 * A Node binary user `nobody` can run: this one, unless it lives where others may not enter (a
 * clone in root's home), then the system's.
 */
const nodeForNobody = [process.execPath, "/usr/bin/node"].find((file) => existsSync(file) && runnableByAnyone(file))

/** Whether user `nobody` (65534) can connect to the socket at `path`: "connected", or the error code. */
const connectAsNobody = (path: string) =>
  Effect.promise(() =>
    new Promise<string>((resolve) =>
      execFile(
        nodeForNobody!,
        [
          "-e",
          "const s = require('net').connect({ path: process.argv[1] });" +
          "s.on('connect', () => { console.log('connected'); s.destroy() }); s.on('error', (e) => console.log(e.code))",
          path
        ],
        { uid: 65534, gid: 65534 },
        (error, stdout) => resolve(error ? String(error) : stdout.trim())
      )
    )
  )

const longDeadlineLog: Array<string> = []
layer(embeddedStack("1 minute", longDeadlineLog), { excludeTestServices: true, timeout: 60_000 })(
  "the embedded database with a long handshake deadline",
  (it) => {
    it.effect("listens on a Unix socket in DATA_DIR/socket, a directory of mode 0700 of the service's user", () =>
      Effect.gen(function*() {
        const address = embeddedAddress(longDeadlineLog)
        expect(address.socketPath).toBe(Path.resolve(address.dataDir, "socket", ".s.PGSQL.5432"))
        const directory = yield* Effect.promise(() => stat(Path.dirname(address.socketPath!)))
        expect(directory.mode & 0o777).toBe(0o700)
        expect(directory.uid).toBe(process.getuid!())
      }))

    it.effect.skipIf(process.getuid?.() !== 0 || nodeForNobody === undefined)(
      "another local user cannot connect to it",
      () =>
        Effect.gen(function*() {
          const address = embeddedAddress(longDeadlineLog)
          // DATA_DIR and the socket open to all (the socket as under umask 0): its directory keeps them out.
          yield* Effect.promise(() => chmod(address.dataDir, 0o755))
          yield* Effect.promise(() => chmod(address.socketPath!, 0o777))
          expect(yield* connectAsNobody(address.socketPath!)).toBe("EACCES")
        })
    )

    it.effect("32 connections that never authenticate hold no slot: concurrent admin writes all succeed", () =>
      Effect.gen(function*() {
        const open = yield* squatters(embeddedAddress(longDeadlineLog), 32)
        expect(yield* concurrentWrites("Squatted")).toEqual(Array.from({ length: 12 }, () => "created"))
        // They were there all along: the deadline is a minute here.
        expect(open.filter(({ closed }) => closed())).toEqual([])
      }))
  }
)

const shortDeadlineLog: Array<string> = []
layer(embeddedStack("300 millis", shortDeadlineLog), { excludeTestServices: true, timeout: 60_000 })(
  "the embedded database with a short handshake deadline",
  (it) => {
    it.effect("closes connections that never authenticate at the deadline; the service's own stay", () =>
      Effect.gen(function*() {
        const open = yield* squatters(embeddedAddress(shortDeadlineLog), 32)
        expect(yield* allClosed(open)).toBe(0)
        expect(yield* concurrentWrites("After")).toEqual(Array.from({ length: 12 }, () => "created"))
      }))
  }
)

describe("the embedded database under a DATA_DIR too long for a socket's path", () => {
  it.live(
    "listens in a private directory of the system's temporary one instead, removed at stop",
    () =>
      Effect.gen(function*() {
        const base = yield* Effect.acquireRelease(
          Effect.promise(() => mkdtemp(Path.join(tmpdir(), "sps-embedded-"))),
          (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
        )
        const dataDir = Path.join(base, "d".repeat(100))
        yield* Effect.promise(() => mkdir(dataDir))
        const logged: Array<string> = []
        const address = yield* Effect.scoped(Effect.gen(function*() {
          const context = yield* Layer.build(
            Database.pipe(
              Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ DATA_DIR: dataDir }))),
              Layer.provide(keepLog(logged))
            )
          )
          const address = embeddedAddress(logged)
          const sql = Context.get(context, SqlClient.SqlClient)
          expect(yield* sql<{ one: number }>`select 1 as one`).toEqual([{ one: 1 }])
          expect(Path.dirname(Path.dirname(address.socketPath!))).toBe(tmpdir())
          const directory = yield* Effect.promise(() => stat(Path.dirname(address.socketPath!)))
          expect(directory.mode & 0o777).toBe(0o700)
          return address
        }))
        const gone = yield* Effect.promise(() => stat(Path.dirname(address.socketPath!)).then(() => false, () => true))
        expect(gone).toBe(true)
      }).pipe(Effect.scoped),
    60_000
  )
})
