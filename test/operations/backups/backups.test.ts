/**
 * Backups (docs/operations.md, "Backups"), on real processes: the service as `npm start` runs it,
 * the `status-page` command line, PostgreSQL's own tools.
 *
 * - Embedded: `status-page backup` of a running service while two writers keep writing (a
 *   component and an incident update at a time) is a consistent database: restored, it holds a
 *   prefix of each writer's writes, every write answered before the backup began among them, and
 *   no write failed meanwhile. A backup taken at rest, restored into another DATA_DIR, serves
 *   every public surface and admin list exactly as the running original does. Only an owner may
 *   take one; it is audited and not cacheable.
 * - PostgreSQL: the documented procedure (pg_dump of the running service's database, createdb,
 *   pg_restore), word for word, gives a service that shows the same; the endpoint answers 409
 *   there.
 * - Restore refuses a DATA_DIR that holds a database (without --force), a file that is not a
 *   backup, a tarball of something else, and a database from a newer version, leaving DATA_DIR
 *   as it was.
 */
import { execFile } from "node:child_process"
import { randomUUID } from "node:crypto"
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pipeline } from "node:stream/promises"
import { promisify } from "node:util"
import { gunzipSync } from "node:zlib"

import { PGlite } from "@electric-sql/pglite"
import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

import { type Role } from "../../../src/domain/Role.js"
import { archiveOf, extractArchive } from "../../../src/persistence/DataDirectoryArchive.js"
import { projectRoot } from "../../support/ChildProcess.js"
import { answerWith, receiver } from "../../support/Receiver.js"
import { type SmtpCapture, smtpCapture } from "../../support/SmtpCapture.js"
import { adminUrl } from "../../support/TestDatabase.js"
import {
  buildBundle,
  differences,
  fill,
  ownerKey,
  startDeployment,
  statusPage,
  subscribe,
  surfaces,
  withApi
} from "./Deployment.js"

const run = promisify(execFile)

const bundle = join(projectRoot, `dist/backups-${randomUUID()}`)
const work = mkdtempSync(join(tmpdir(), "sps-backups-"))
let scope: Scope.Closeable
let target: { readonly url: string }
let smtp: SmtpCapture

beforeAll(async () => {
  scope = await Effect.runPromise(Scope.make())
  const inScope = <A>(effect: Effect.Effect<A, never, Scope.Scope>) =>
    Effect.runPromise(Effect.provideService(effect, Scope.Scope, scope))
  ;[target, smtp] = await Promise.all([inScope(receiver(answerWith(200))), inScope(smtpCapture), buildBundle(bundle)])
})

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
  rmSync(work, { recursive: true, force: true })
  rmSync(bundle, { recursive: true, force: true })
})

/** `status-page …`, bundled as the server is (Deployment.buildBundle). */
const cli = (args: ReadonlyArray<string>, env: Record<string, string>) => statusPage(bundle, args, env)

/** The environment of `status-page restore` on `dataDir`. */
const local = (dataDir: string) => ({ DATA_DIR: dataDir, DATABASE_URL: "" })

const pad = (n: number) => String(n).padStart(4, "0")

/**
 * Two writers, each one write at a time until stopped: components `Loop 0001`, `Loop 0002`, …
 * and updates `Update 0001`, … of one incident. `counts` are the writes answered so far.
 */
const writeLoop = (base: string, key: string, incident: string) => {
  let running = true
  const counts = { components: 0, updates: 0 }
  const failures: Array<string> = []
  const post = async (path: string, body: unknown) => {
    const answer = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body)
    })
    if (answer.status !== 201 && answer.status !== 200) {
      failures.push(`${path}: ${answer.status} ${await answer.text()}`)
    }
    return answer.status < 300
  }
  const writer = async (kind: keyof typeof counts, write: (n: number) => Promise<boolean>) => {
    while (running && (await write(counts[kind] + 1))) {
      counts[kind]++
      // A steady stream, not a flood: the machine also runs the backup's command line.
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
  const writers = Promise.all([
    writer("components", (n) => post("/api/v1/admin/components", { name: `Loop ${pad(n)}` })),
    writer(
      "updates",
      (n) => post(`/api/v1/admin/incidents/${incident}/updates`, { status: "identified", message: `Update ${pad(n)}` })
    )
  ])
  return {
    counts: () => ({ ...counts }),
    failures,
    stop: async () => {
      running = false
      await writers
    }
  }
}

/** The numbers of the names that match `pattern` (`Loop (\d+)`), in order. */
const numbered = (names: ReadonlyArray<string>, pattern: RegExp) =>
  names.flatMap((name) => {
    const match = pattern.exec(name)
    return match === null ? [] : [Number(match[1])]
  }).sort((a, b) => a - b)

const oneToN = (n: number) => Array.from({ length: n }, (_, i) => i + 1)

/** The backup `from` with its database changed by `statement`, archived again as a backup. */
const altered = async (from: string, statement: string) => {
  const directory = join(work, `altered-${randomUUID()}`)
  const manifest = await extractArchive(from, directory)
  const db = await PGlite.create(directory)
  await db.exec(statement)
  await db.close()
  const file = `${directory}.tar.gz`
  await pipeline(archiveOf(directory, manifest), createWriteStream(file))
  return file
}

describe("backups of the embedded database", () => {
  it("are taken while writes go on, by owners only, and restore every surface", async () => {
    const source = await startDeployment(bundle, { DATA_DIR: join(work, "source") }, { SMTP_URL: smtp.url })
    try {
      const base = source.base
      const key = await ownerKey(base, "backups")
      const owner = { authorization: `Bearer ${key}` }
      const filled = await fill(base, key, target.url)
      await subscribe(base, "reader@backup.test", [filled.api])
      await subscribe(base, "pending@backup.test", [])
      const mail = (await Effect.runPromise(smtp.waitFor(2, 20_000)))
        .find((message) => message.envelopeTo.includes("reader@backup.test"))
      const token = /\/subscribe\/verify\/([A-Za-z0-9_-]+)/.exec(mail?.parsed.text ?? "")?.[1]
      expect((await fetch(`${base}/api/v1/subscribe/verify/${token}`)).status).toBe(200)

      // Only an owner: the backup holds every secret's hash and every subscriber's address.
      for (const role of ["admin", "editor", "viewer"] satisfies Array<Role>) {
        const made = await withApi(base, key, (client) => client.apiKeys.create({ payload: { name: role, role } }))
        const refused = await fetch(`${base}/api/v1/admin/backup`, { headers: { authorization: `Bearer ${made.key}` } })
        expect(refused.status, role).toBe(403)
        expect((await refused.json())._tag).toBe("Forbidden")
      }

      // Two backups while two writers write: the command line's, and one read here as the API
      // answers it. They run one after the other (each holds a copy of the database on disk).
      const remote = { STATUS_PAGE_URL: base, STATUS_PAGE_API_KEY: key }
      const loop = writeLoop(base, key, filled.incident)
      await expect.poll(() => loop.counts().components, { timeout: 20_000 }).toBeGreaterThan(10)
      const answeredBefore = loop.counts()
      const during = join(work, "during.tar.gz")
      const [taken, { answer, body }] = await Promise.all([
        cli(["backup", during], remote),
        fetch(`${base}/api/v1/admin/backup`, { headers: owner }).then(async (answer) => ({
          answer,
          body: Buffer.from(await answer.arrayBuffer())
        }))
      ])
      const answeredAfter = loop.counts()
      await loop.stop()
      expect(taken.code, taken.stderr).toBe(0)
      expect(taken.stdout).toMatch(/^Wrote status-page-\d{8}T\d{6}Z\.tar\.gz to .*during\.tar\.gz \(\d+\.\d MB\)/)
      expect(statSync(during).mode & 0o777).toBe(0o600)
      expect(loop.failures).toEqual([])
      expect(answeredAfter.components + answeredAfter.updates).toBeGreaterThan(
        answeredBefore.components + answeredBefore.updates
      )
      expect(answer.status).toBe(200)
      expect(answer.headers.get("content-type")).toBe("application/gzip")
      expect(answer.headers.get("cache-control")).toBe("no-store")
      const fileName = /^attachment; filename="(status-page-\d{8}T\d{6}Z\.tar\.gz)"$/
        .exec(answer.headers.get("content-disposition") ?? "")?.[1]
      expect(fileName).toBeDefined()
      const archive = gunzipSync(body)
      expect(archive.subarray(0, 23).toString()).toBe("status-page-backup.json")
      expect(archive.includes("pgdata/PG_VERSION")).toBe(true)
      // Both are in the audit log, by the key that took them.
      const audited = await fetch(`${base}/api/v1/admin/audit-log?operation=operations.backup`, { headers: owner })
      const entries = (await audited.json()) as Array<{ readonly target: { readonly name: string } }>
      expect(entries).toHaveLength(2)
      expect(entries.find((entry) => entry.target.name === fileName)).toMatchObject({
        operation: "operations.backup",
        actor: { type: "apiKey", name: "backups" },
        clientAddress: "127.0.0.1",
        target: { type: "backup", id: null, name: fileName }
      })
      // And one at rest.
      const atRest = join(work, "at-rest.tar.gz")
      const second = await cli(["backup", atRest], remote)
      expect(second.code, second.stderr).toBe(0)
      // Nothing is left behind: no partial file beside them, no copy in DATA_DIR once the answers ended.
      expect(readdirSync(work).filter((name) => name.endsWith(".partial"))).toEqual([])
      await expect.poll(() => readdirSync(join(work, "source")).filter((name) => name.startsWith("backup-copy-")))
        .toEqual([])

      // The backup taken during the writes: a prefix of each writer's, with all answered before it.
      const restored = join(work, "restored")
      const first = await cli(["restore", during], local(restored))
      expect(first.code, first.stderr).toBe(0)
      expect(first.stdout).toContain(`Restored ${during}`)
      const one = await startDeployment(bundle, { DATA_DIR: restored })
      try {
        const [components, incident] = await withApi(one.base, key, (client) =>
          Effect.all([
            client.components.list({ query: { limit: 1000 } }),
            client.incidents.get({ params: { id: filled.incident } })
          ]))
        const loopComponents = numbered(components.map((c) => c.name), /^Loop (\d+)$/)
        const updates = numbered(incident.updates.map((u) => u.message), /^Update (\d+)$/)
        expect(loopComponents).toEqual(oneToN(loopComponents.length))
        expect(updates).toEqual(oneToN(updates.length))
        expect(loopComponents.length).toBeGreaterThanOrEqual(answeredBefore.components)
        expect(updates.length).toBeGreaterThanOrEqual(answeredBefore.updates)
        expect(loopComponents.length).toBeLessThanOrEqual(answeredAfter.components + 1)
        expect(updates.length).toBeLessThanOrEqual(answeredAfter.updates + 1)
      } finally {
        await one.stop()
      }

      // The one at rest, in place of it: refused without --force, then every surface the same.
      const refused = await cli(["restore", atRest], local(restored))
      expect(refused.code).toBe(2)
      expect(refused.stderr).toContain(`${restored} already holds a database`)
      const forced = await cli(["restore", atRest, "--force"], local(restored))
      expect(forced.code, forced.stderr).toBe(0)
      const aside = /Moved the database that was in .* to (\S+);/.exec(forced.stdout)?.[1]
      expect(aside).toMatch(/\/pgdata\.before-restore-\d{8}T\d{6}Z$/)
      expect(existsSync(join(aside!, "PG_VERSION"))).toBe(true)
      const two = await startDeployment(bundle, { DATA_DIR: restored })
      try {
        const [original, copy] = await Promise.all([surfaces(base, key, filled), surfaces(two.base, key, filled)])
        expect(differences(original, copy)).toEqual([])
      } finally {
        await two.stop()
      }

      // A database from a newer version (its migrations table says so; restoreChecks.unit.test.ts
      // has the other cases): refused, even with --force, and the database in DATA_DIR stays.
      const newer = await altered(
        atRest,
        "insert into effect_sql_migrations (migration_id, name) values (9999, 'from_the_future')"
      )
      const before = readdirSync(restored).sort()
      const tooNew = await cli(["restore", newer, "--force"], local(restored))
      expect(tooNew.code).toBe(2)
      expect(tooNew.stderr).toContain("it comes from a newer version of the service")
      expect(tooNew.stderr).toContain("with migrations up to 9999")
      expect(readdirSync(restored).sort()).toEqual(before)
    } finally {
      await source.stop()
    }
  }, 180_000)
})

describe("backups on PostgreSQL", () => {
  /** The server's address and a database of its own, as createdb and the URLs name them. */
  const server = new URL(adminUrl)
  const connection = ["--host", server.hostname, "--port", server.port || "5432", "--username", server.username]
  const urlOf = (database: string) => {
    const url = new URL(adminUrl)
    url.pathname = `/${database}`
    return url.toString()
  }

  it("follow the documented procedure: pg_dump while it runs, createdb, pg_restore", async () => {
    const [tools, serverVersion] = await Promise.all([
      run("pg_dump", ["--version"]),
      run("psql", [adminUrl, "--tuples-only", "--no-align", "--command", "show server_version_num"])
    ])
    // The docs' rule: pg_dump of the server's major version or newer.
    expect(Number(/(\d+)\.\d+/.exec(tools.stdout)![1])).toBeGreaterThanOrEqual(
      Math.floor(Number(serverVersion.stdout.trim()) / 10_000)
    )
    const name = `sps_test_${randomUUID().replace(/-/g, "").slice(0, 12)}`
    const restoredName = `${name}_restored`
    const dump = join(work, "status-page.dump")
    try {
      await run("createdb", [...connection, name])
      const source = await startDeployment(bundle, { DATABASE_URL: urlOf(name) })
      try {
        const key = await ownerKey(source.base, "backups")
        const filled = await fill(source.base, key, target.url)
        await subscribe(source.base, "reader@backup.test", [filled.api])

        // The endpoint is the embedded database's: here it says to use pg_dump.
        const refused = await fetch(`${source.base}/api/v1/admin/backup`, {
          headers: { authorization: `Bearer ${key}` }
        })
        expect(refused.status).toBe(409)
        const body = await refused.json()
        expect(body._tag).toBe("Conflict")
        expect(body.message).toContain("pg_dump")
        expect(body.message).toContain("docs/operations.md")
        const viaCli = await cli(["backup", join(work, "pg.tar.gz")], {
          STATUS_PAGE_URL: source.base,
          STATUS_PAGE_API_KEY: key
        })
        expect(viaCli.code).toBe(1)
        expect(viaCli.stderr).toContain("Conflict: This service runs on PostgreSQL")
        expect(existsSync(join(work, "pg.tar.gz"))).toBe(false)

        // docs/operations.md, "Backups", as written there.
        await run("pg_dump", ["--format=custom", `--file=${dump}`, urlOf(name)])
        await run("createdb", [...connection, restoredName])
        await run("pg_restore", ["--no-owner", "--single-transaction", `--dbname=${urlOf(restoredName)}`, dump])

        const copy = await startDeployment(bundle, { DATABASE_URL: urlOf(restoredName) })
        try {
          const [original, restored] = await Promise.all([
            surfaces(source.base, key, filled),
            surfaces(copy.base, key, filled)
          ])
          expect(differences(original, restored)).toEqual([])
        } finally {
          await copy.stop()
        }
      } finally {
        await source.stop()
      }
    } finally {
      await run("dropdb", [...connection, "--if-exists", "--force", name])
      await run("dropdb", [...connection, "--if-exists", "--force", restoredName])
    }
  }, 120_000)
})

describe("restore refuses", () => {
  it("what is not a backup of this service, and leaves DATA_DIR as it was", async () => {
    const restoreInto = async (file: string) => {
      const dataDir = join(work, `refused-${randomUUID()}`)
      const answer = await cli(["restore", file], local(dataDir))
      // Nothing of it stays: no database, no half-written one.
      expect(existsSync(dataDir) ? readdirSync(dataDir) : []).toEqual([])
      return answer
    }
    const notGzip = join(work, "notes.txt")
    writeFileSync(notGzip, "not a backup\n")
    const otherTarball = join(work, "other.tar.gz")
    mkdirSync(join(work, "other", "pgdata"), { recursive: true })
    writeFileSync(join(work, "other", "pgdata", "PG_VERSION"), "17\n")
    await run("tar", ["-czf", otherTarball, "-C", join(work, "other"), "pgdata"])

    const [plain, other, missing] = await Promise.all([
      restoreInto(notGzip),
      restoreInto(otherTarball),
      restoreInto(join(work, "no-such-file.tar.gz"))
    ])
    expect(plain.code).toBe(2)
    expect(plain.stderr).toContain(
      `${notGzip} cannot be restored: it is not a backup of this service: it is not a gzip`
    )
    expect(other.code).toBe(2)
    expect(other.stderr).toContain("it does not begin with status-page-backup.json")
    expect(missing.code).toBe(2)
  }, 60_000)
})
