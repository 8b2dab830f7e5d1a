/**
 * The backup's archive (src/persistence/DataDirectoryArchive.ts): what it writes is a tar.gz
 * that GNU tar reads, and what it reads back is the same files; a file handed to `restore` that
 * is not such an archive, or one whose entries would leave `pgdata/` (`..`, a link, another
 * folder), is refused before anything is written outside the directory it extracts to.
 */
import { execFile } from "node:child_process"
import { randomBytes } from "node:crypto"
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pipeline } from "node:stream/promises"
import { promisify } from "node:util"

import { afterAll, describe, expect, it } from "vitest"

import {
  archiveOf,
  extractArchive,
  type Manifest,
  manifestName,
  NotABackup
} from "../../../src/persistence/DataDirectoryArchive.js"

const run = promisify(execFile)
const work = mkdtempSync(join(tmpdir(), "sps-archive-"))
afterAll(() => rmSync(work, { recursive: true, force: true }))

const manifest: Manifest = {
  format: "status-page embedded backup",
  formatVersion: 1,
  serviceVersion: "4.0.0",
  takenAt: "2030-01-31T09:00:00.000Z",
  postgresVersion: "17"
}

let count = 0
const fresh = (name: string) => join(work, `${name}-${++count}`)

/** A data directory with nested folders, an empty file, one across several blocks, and a path longer than 100 bytes. */
const dataDirectory = () => {
  const directory = fresh("pgdata")
  const deep = join(directory, "base", "16384", "a".repeat(60), "b".repeat(60))
  mkdirSync(deep, { recursive: true })
  mkdirSync(join(directory, "pg_tblspc"))
  const files: Record<string, Buffer> = {
    PG_VERSION: Buffer.from("17\n"),
    "global/pg_control": randomBytes(8192),
    "base/16384/2619": randomBytes(1500),
    "base/16384/empty": Buffer.alloc(0),
    [`base/16384/${"a".repeat(60)}/${"b".repeat(60)}/${"c".repeat(90)}`]: randomBytes(513)
  }
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(directory, name, ".."), { recursive: true })
    writeFileSync(join(directory, name), content)
  }
  return { directory, files }
}

const archived = async (directory: string) => {
  const file = `${fresh("backup")}.tar.gz`
  await pipeline(archiveOf(directory, manifest), createWriteStream(file))
  return file
}

/** What `extractArchive` refuses `file` with. */
const refusal = async (file: string) => {
  const into = fresh("into")
  const error = await extractArchive(file, into).then(() => undefined, (error: unknown) => error)
  expect(error).toBeInstanceOf(NotABackup)
  return (error as NotABackup).message
}

/** A tar.gz made by GNU tar in ustar format from `root`: the manifest, then `entries`. */
const tarOf = async (root: string, entries: ReadonlyArray<string>, options: ReadonlyArray<string> = []) => {
  writeFileSync(join(root, manifestName), JSON.stringify(manifest))
  const file = `${fresh("made")}.tar.gz`
  await run("tar", ["--format=ustar", ...options, "-czf", file, "-C", root, manifestName, ...entries])
  return file
}

describe("the backup archive", () => {
  it("is a tar.gz that GNU tar reads, and reads back as the same files", async () => {
    const { directory, files } = dataDirectory()
    const file = await archived(directory)

    const listed = (await run("tar", ["-tzf", file])).stdout.split("\n").filter((line) => line.length > 0)
    expect(listed[0]).toBe(manifestName)
    expect(listed).toContain("pgdata/PG_VERSION")
    const byTar = fresh("tar")
    mkdirSync(byTar)
    await run("tar", ["-xzf", file, "-C", byTar])
    expect(JSON.parse(readFileSync(join(byTar, manifestName), "utf8"))).toEqual(manifest)

    const into = fresh("restored")
    expect(await extractArchive(file, into)).toEqual(manifest)
    for (const [name, content] of Object.entries(files)) {
      expect(readFileSync(join(byTar, "pgdata", name)).equals(content), name).toBe(true)
      expect(readFileSync(join(into, name)).equals(content), name).toBe(true)
    }
  })

  it("refuses what is not one: not gzip, damaged, cut short, or not beginning with its manifest", async () => {
    const notGzip = fresh("text")
    writeFileSync(notGzip, "hello\n")
    expect(await refusal(notGzip)).toBe("it is not a gzip file, or it is damaged")

    const whole = readFileSync(await archived(dataDirectory().directory))
    const damaged = fresh("damaged")
    const flipped = Buffer.from(whole)
    flipped[Math.floor(flipped.length / 2)]! ^= 0xff
    writeFileSync(damaged, flipped)
    expect(await refusal(damaged)).toMatch(/damaged/)
    const cut = fresh("cut")
    writeFileSync(cut, whole.subarray(0, Math.floor(whole.length / 2)))
    expect(await refusal(cut)).toMatch(/damaged|ends early/)

    const root = fresh("plain")
    mkdirSync(join(root, "pgdata"), { recursive: true })
    writeFileSync(join(root, "pgdata", "PG_VERSION"), "17\n")
    const plain = `${fresh("plain")}.tar.gz`
    await run("tar", ["-czf", plain, "-C", root, "pgdata"])
    expect(await refusal(plain)).toBe(`it does not begin with ${manifestName}`)
  })

  it("refuses entries that would leave pgdata/: a link, a path with .., another folder", async () => {
    const root = fresh("links")
    mkdirSync(join(root, "pgdata"), { recursive: true })
    symlinkSync("/etc/passwd", join(root, "pgdata", "passwd"))
    expect(await refusal(await tarOf(root, ["pgdata"]))).toBe(
      "it holds pgdata/passwd, which is not a plain file or directory"
    )

    const escape = fresh("escape")
    mkdirSync(join(escape, "pgdata"), { recursive: true })
    writeFileSync(join(escape, "pgdata", "x"), "outside\n")
    const dots = await tarOf(escape, ["pgdata/x"], ["-P", "--transform=s,^pgdata/x,pgdata/../../x,"])
    expect(await refusal(dots)).toBe("it holds pgdata/../../x, outside pgdata/")

    mkdirSync(join(escape, "other"))
    writeFileSync(join(escape, "other", "y"), "elsewhere\n")
    expect(await refusal(await tarOf(escape, ["other"]))).toBe("it holds other/, outside pgdata/")
  })
})
