/**
 * The archive of a backup of the embedded database (docs/operations.md, "Backups"): a gzipped
 * POSIX tar (ustar), which `tar -xzf` reads too, holding a manifest, `status-page-backup.json`,
 * first, then the data directory under `pgdata/`. Both sides work as streams, one file at a time,
 * so neither holds the database in memory: PGlite's own `dumpDataDir` and `loadDataDir` read
 * every file into memory (twice, with the tar and gzip copies), and `loadDataDir` writes whatever
 * paths the archive names.
 *
 * Reading is strict, as it is the restore of a file someone hands in: the manifest must come
 * first and say what it is, every header's checksum must hold, and only plain files and
 * directories under `pgdata/` are taken, never a path that leaves it (`..`, absolute) or a link.
 */
import { closeSync, createReadStream, openSync, readdirSync, readSync, statSync } from "node:fs"
import { mkdir, open } from "node:fs/promises"
import * as Path from "node:path"
import { Readable } from "node:stream"
import { pipeline } from "node:stream/promises"
import { createGunzip, createGzip } from "node:zlib"

import { Schema } from "effect"

/** The first entry: what the archive is, from which version and when. */
export const manifestName = "status-page-backup.json"
/** The data directory's entries are under this folder (`tar -xzf` makes it). */
export const dataFolder = "pgdata"

export const Manifest = Schema.Struct({
  format: Schema.Literal("status-page embedded backup"),
  /** This layout; a later one that this code cannot read says so with another number. */
  formatVersion: Schema.Literal(1),
  /** The service's version (package.json) that took it. */
  serviceVersion: Schema.String,
  /** ISO 8601 UTC. */
  takenAt: Schema.String,
  /** The data directory's PG_VERSION (PostgreSQL's major version inside PGlite). */
  postgresVersion: Schema.String
})
export type Manifest = typeof Manifest.Type

/** The archive cannot be restored: not one of ours, damaged, or with an entry we refuse. */
export class NotABackup extends Schema.TaggedError<NotABackup>()("NotABackup", { message: Schema.String }) {}

const blockSize = 512
/**
 * The pieces the archive is read and sent in. PGlite runs its statements on the service's thread,
 * so while writes go on each piece waits for a turn of the event loop between two of them: large
 * pieces take few turns (at 16 kB, gzip's own, a 5 MB backup took half a minute under a stream of
 * writes on a busy machine).
 */
const chunkSize = 1024 * 1024
/** The ustar size field: 11 octal digits. PostgreSQL's files stop at 1 GB. */
const maxEntrySize = 8 ** 11 - 1

// ---------------------------------------------------------------------------------------------
// Writing

const octal = (value: number, digits: number) => value.toString(8).padStart(digits, "0")

/** `name` as ustar's `prefix` and `name` fields (155 and 100 bytes), split at a slash when long. */
const splitName = (name: string): readonly [string, string] => {
  if (Buffer.byteLength(name) <= 100) return ["", name]
  for (let slash = name.indexOf("/"); slash !== -1; slash = name.indexOf("/", slash + 1)) {
    const [prefix, rest] = [name.slice(0, slash), name.slice(slash + 1)]
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(rest) <= 100 && rest.length > 0) return [prefix, rest]
  }
  throw new Error(`The path ${name} is too long for the archive`)
}

const checksum = (header: Buffer) => header.reduce((sum, byte) => sum + byte, 0)

/** The header of a file (`size` bytes) or directory (its name ending in `/`). */
const entryHeader = (name: string, size: number, modified: Date): Buffer => {
  if (size > maxEntrySize) throw new Error(`${name} is too large for the archive (${size} bytes)`)
  const directory = name.endsWith("/")
  const [prefix, rest] = splitName(name)
  const header = Buffer.alloc(blockSize)
  header.write(rest, 0, 100)
  header.write(`${octal(directory ? 0o700 : 0o600, 7)}\0`, 100)
  header.write(`${octal(0, 7)}\0`, 108)
  header.write(`${octal(0, 7)}\0`, 116)
  header.write(`${octal(size, 11)}\0`, 124)
  header.write(`${octal(Math.floor(modified.getTime() / 1000), 11)}\0`, 136)
  header.fill(" ", 148, 156)
  header.write(directory ? "5" : "0", 156)
  header.write("ustar\0", 257)
  header.write("00", 263)
  header.write(prefix, 345, 155)
  header.write(`${octal(checksum(header), 6)}\0 `, 148)
  return header
}

const padding = (size: number) => Buffer.alloc((blockSize - (size % blockSize)) % blockSize)

/** The bytes of the file `path` (`size` of them), a chunk at a time. */
function* fileChunks(path: string, size: number): Generator<Uint8Array> {
  const descriptor = openSync(path, "r")
  try {
    for (let read = 0; read < size;) {
      const chunk = Buffer.allocUnsafe(Math.min(chunkSize, size - read))
      const got = readSync(descriptor, chunk, 0, chunk.length, read)
      // The copy is still: a file that shrank would make the archive unreadable past it.
      if (got === 0) throw new Error(`${path} changed while it was archived`)
      read += got
      yield chunk.subarray(0, got)
    }
  } finally {
    closeSync(descriptor)
  }
}

/**
 * The entries of `directory` below `name`, depth first, in name order (the same archive for the
 * same files). Read synchronously: a data directory is a thousand small files, and each
 * asynchronous call is a trip to libuv's threads, which zlib shares (that way it took three to
 * five times as long as gzip itself). The files are the backup's own copy, just written, so in the
 * page cache: a chunk holds the event loop well under a millisecond.
 */
function* directoryEntries(directory: string, name: string): Generator<Uint8Array> {
  yield entryHeader(`${name}/`, 0, statSync(directory).mtime)
  const children = readdirSync(directory, { withFileTypes: true }).toSorted((a, b) => a.name < b.name ? -1 : 1)
  for (const child of children) {
    const path = Path.join(directory, child.name)
    const childName = `${name}/${child.name}`
    if (child.isDirectory()) {
      yield* directoryEntries(path, childName)
    } else if (child.isFile()) {
      const file = statSync(path)
      yield entryHeader(childName, file.size, file.mtime)
      yield* fileChunks(path, file.size)
      yield padding(file.size)
    } else {
      // PGlite's data directory holds no links (no tablespaces): better no backup than one without a file.
      throw new Error(`${path} is neither a file nor a directory`)
    }
  }
}

function* archiveEntries(directory: string, manifest: Manifest): Generator<Uint8Array> {
  const text = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`)
  yield entryHeader(manifestName, text.length, new Date(manifest.takenAt))
  yield text
  yield padding(text.length)
  yield* directoryEntries(directory, dataFolder)
  // The end of a tar archive: two zero blocks.
  yield Buffer.alloc(2 * blockSize)
}

/**
 * The pieces of `source` joined into chunks of about `chunkSize`, each made when the reader asks
 * for it: every write to gzip is a trip to zlib's thread too.
 */
async function* joined(source: Iterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  let pieces: Array<Uint8Array> = []
  let size = 0
  for (const piece of source) {
    pieces.push(piece)
    size += piece.length
    if (size >= chunkSize) {
      yield Buffer.concat(pieces, size)
      pieces = []
      size = 0
    }
  }
  if (size > 0) yield Buffer.concat(pieces, size)
}

/**
 * The archive of `directory` (as `pgdata/`) after `manifest`, gzipped, as a stream of chunks
 * read from the files as the consumer takes them. Ending it early (destroying it, or breaking off
 * its iteration) stops reading.
 */
export const archiveOf = (directory: string, manifest: Manifest): Readable => {
  const gzip = createGzip({ chunkSize })
  // pipeline destroys the gzip stream with the error of a file that fails, which its reader sees.
  pipeline(Readable.from(joined(archiveEntries(directory, manifest))), gzip).catch(() => {})
  return gzip
}

// ---------------------------------------------------------------------------------------------
// Reading

/** Blocks and bytes of a stream, as the reader asks for them. */
const byteReader = (input: AsyncIterable<Buffer>) => {
  const iterator = input[Symbol.asyncIterator]()
  let buffered: Buffer = Buffer.alloc(0)
  const fill = async () => {
    const next = await iterator.next()
    if (next.done === true) return false
    buffered = buffered.length === 0 ? next.value : Buffer.concat([buffered, next.value])
    return true
  }
  return {
    /** Exactly `size` bytes, or undefined if the input ends first. */
    exactly: async (size: number): Promise<Buffer | undefined> => {
      while (buffered.length < size) if (!(await fill())) return undefined
      const taken = buffered.subarray(0, size)
      buffered = buffered.subarray(size)
      return taken
    },
    /** Between 1 and `size` bytes, or undefined at the end of the input. */
    some: async (size: number): Promise<Buffer | undefined> => {
      if (buffered.length === 0 && !(await fill())) return undefined
      const taken = buffered.subarray(0, Math.min(size, buffered.length))
      buffered = buffered.subarray(taken.length)
      return taken
    },
    close: async () => {
      await iterator.return?.()
    }
  }
}

/** A NUL-terminated field of a header. */
const text = (header: Buffer, offset: number, length: number) => {
  const field = header.subarray(offset, offset + length)
  const end = field.indexOf(0)
  return field.subarray(0, end === -1 ? length : end).toString("utf8")
}

const number = (header: Buffer, offset: number, length: number) => {
  const digits = text(header, offset, length).trim()
  return /^[0-7]+$/.test(digits) ? parseInt(digits, 8) : Number.NaN
}

interface Entry {
  readonly name: string
  readonly kind: "file" | "directory"
  readonly size: number
}

/** The entry a header announces; undefined for the end of the archive (a zero block). */
const parseHeader = (header: Buffer): Entry | undefined => {
  if (header.every((byte) => byte === 0)) return undefined
  const stored = number(header, 148, 8)
  const computed = checksum(Buffer.concat([header.subarray(0, 148), Buffer.from("        "), header.subarray(156)]))
  // POSIX's magic, `ustar\0`, or GNU tar's own, `ustar  \0`: another tar's archive is refused for what it holds.
  if (stored !== computed || !text(header, 257, 6).startsWith("ustar")) {
    throw new NotABackup({ message: "it is not a tar archive, or it is damaged (a header's checksum is wrong)" })
  }
  const prefix = text(header, 345, 155)
  const name = prefix.length > 0 ? `${prefix}/${text(header, 0, 100)}` : text(header, 0, 100)
  const type = text(header, 156, 1)
  const size = number(header, 124, 12)
  if (type !== "0" && type !== "" && type !== "5") {
    throw new NotABackup({ message: `it holds ${name}, which is not a plain file or directory` })
  }
  if (!Number.isSafeInteger(size)) throw new NotABackup({ message: `the size of ${name} is unreadable` })
  return { name, kind: type === "5" ? "directory" : "file", size: type === "5" ? 0 : size }
}

/** Where an entry of `pgdata/` goes under `into`; a name that would leave it is refused. */
const placeOf = (name: string, into: string) => {
  const parts = name.replace(/\/$/, "").split("/")
  if (
    parts[0] !== dataFolder || parts.some((part) => part === "" || part === "." || part === ".." || part.includes("\\"))
  ) {
    throw new NotABackup({ message: `it holds ${name}, outside ${dataFolder}/` })
  }
  return Path.join(into, ...parts.slice(1))
}

const zlibFailure = (error: unknown) =>
  error instanceof Error && "code" in error && typeof error.code === "string" && error.code.startsWith("Z_")

/**
 * Writes the data directory of the archive `file` into `into` (which must not exist yet) and
 * answers its manifest. A file that is not such an archive fails with `NotABackup`; `into` may
 * then hold part of it, for the caller to remove.
 */
export const extractArchive = async (file: string, into: string): Promise<Manifest> => {
  const gunzip = createGunzip()
  // Its failure reaches the reader too (gunzip is destroyed with it), which reports it.
  const reading = pipeline(createReadStream(file), gunzip).catch(() => {})
  const bytes = byteReader(gunzip)
  try {
    const first = await bytes.exactly(blockSize)
    const head = first === undefined ? undefined : parseHeader(first)
    if (head?.name !== manifestName || head.kind !== "file" || head.size > 64 * 1024) {
      throw new NotABackup({ message: `it does not begin with ${manifestName}` })
    }
    const json = await bytes.exactly(head.size + padding(head.size).length)
    if (json === undefined) throw new NotABackup({ message: "it ends early" })
    const manifest = Schema.decodeUnknownOption(Schema.fromJsonString(Manifest))(
      json.subarray(0, head.size).toString("utf8")
    )
    if (manifest._tag === "None") {
      throw new NotABackup({ message: `its ${manifestName} is not one this version of the service can read` })
    }
    await mkdir(into, { mode: 0o700 })
    for (;;) {
      const header = await bytes.exactly(blockSize)
      if (header === undefined) throw new NotABackup({ message: "it ends early" })
      const entry = parseHeader(header)
      if (entry === undefined) break
      const place = placeOf(entry.name, into)
      if (entry.kind === "directory") {
        await mkdir(place, { recursive: true, mode: 0o700 })
        continue
      }
      await mkdir(Path.dirname(place), { recursive: true, mode: 0o700 })
      const handle = await open(place, "wx", 0o600)
      try {
        for (let left = entry.size; left > 0;) {
          const chunk = await bytes.some(left)
          if (chunk === undefined) throw new NotABackup({ message: "it ends early" })
          await handle.write(chunk)
          left -= chunk.length
        }
      } finally {
        await handle.close()
      }
      if ((await bytes.exactly(padding(entry.size).length)) === undefined) {
        throw new NotABackup({ message: "it ends early" })
      }
    }
    // Read to the end, so that gzip checks its length and CRC: a damaged file fails here.
    while ((await bytes.some(64 * 1024)) !== undefined);
    return manifest.value
  } catch (error) {
    if (zlibFailure(error)) throw new NotABackup({ message: "it is not a gzip file, or it is damaged" })
    throw error
  } finally {
    await bytes.close()
    await reading
  }
}
