/**
 * The mirror in a local folder (MIRROR_DIR), for any static host or a sync to one. A file system
 * cannot hold `api/v1/status` as a file beside the folder `api/v1/status/`, and static hosts
 * choose a content type by extension: so a path without an extension is written with the one its
 * content type takes (`/incidents/ID` → `incidents/ID.html`, `/api/v1/status` →
 * `api/v1/status.json`), and the host serves `$uri.html`, `$uri.json`… (docs/operations.md, "Static mirror" shows
 * the line for nginx). Files are replaced by a rename, so a reader never sees half of one.
 */
import { randomBytes } from "node:crypto"
import { mkdir, readdir, readFile, rename, rmdir, unlink, writeFile } from "node:fs/promises"
import * as Path from "node:path"

import { Effect } from "effect"

import { digestOf, mirrorError, type MirrorObject, type MirrorStore } from "./MirrorStore.js"

const extensionOf: Record<string, string> = {
  "text/html": ".html",
  "application/json": ".json",
  "application/rss+xml": ".rss",
  "application/atom+xml": ".atom",
  "image/svg+xml": ".svg"
}

/** Files being written start with this: never a key (keys never start with a dot). */
const temporary = ".mirror-"

export const fileKeyOf = (path: string, contentType: string) => {
  // A page's root (`/`, `/p/<slug>/`) is its folder's index.
  if (path.endsWith("/")) return `${path.slice(1)}index.html`
  const key = path.slice(1)
  const last = key.slice(key.lastIndexOf("/") + 1)
  return last.includes(".") ? key : key + (extensionOf[contentType.split(";")[0]!.trim()] ?? "")
}

const filesUnder = async (root: string): Promise<Array<string>> => {
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch((error) => {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return []
    throw error
  })
  return entries
    .filter((entry) => entry.isFile() && !entry.name.startsWith(temporary))
    .map((entry) => Path.relative(root, Path.join(entry.parentPath, entry.name)).split(Path.sep).join("/"))
}

export const directoryMirrorStore = (folder: string): MirrorStore => {
  const root = Path.resolve(folder)
  /** The file of `key`, never outside the folder (keys come from ids, but the folder is the host's). */
  const fileOf = (key: string) => {
    const file = Path.join(root, ...key.split("/"))
    if (!file.startsWith(root + Path.sep)) throw new Error(`the key ${JSON.stringify(key)} leaves ${root}`)
    return file
  }
  return {
    describe: root,
    keyOf: fileKeyOf,
    list: Effect.tryPromise({
      try: async () => {
        const digests = new Map<string, string>()
        for (const key of await filesUnder(root)) digests.set(key, digestOf(await readFile(fileOf(key))))
        return digests
      },
      catch: mirrorError(`Listing ${root}`)
    }),
    put: (key: string, object: MirrorObject) =>
      Effect.tryPromise({
        try: async () => {
          const file = fileOf(key)
          await mkdir(Path.dirname(file), { recursive: true })
          const partial = Path.join(Path.dirname(file), `${temporary}${randomBytes(6).toString("hex")}`)
          await writeFile(partial, object.body)
          await rename(partial, file)
        },
        catch: mirrorError(`Writing ${key}`)
      }),
    remove: (keys: ReadonlyArray<string>) =>
      Effect.tryPromise({
        try: async () => {
          for (const key of keys) {
            await unlink(fileOf(key)).catch((error) => {
              if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error
            })
            // Folders left empty go too (an incident's folder of an id no longer public).
            for (let dir = Path.dirname(fileOf(key)); dir.startsWith(root + Path.sep);) {
              if (!(await rmdir(dir).then(() => true, () => false))) break
              dir = Path.dirname(dir)
            }
          }
        },
        catch: mirrorError("Removing objects")
      })
  }
}
