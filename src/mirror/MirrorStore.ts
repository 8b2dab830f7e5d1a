/**
 * Where the mirror's objects go: a bucket (S3MirrorStore) or a folder (DirectoryMirrorStore),
 * behind one interface so the publisher does not care which. Keys are derived from the public
 * paths by the store, since the two lay them out differently (docs/operations.md, "Static mirror").
 */
import { createHash } from "node:crypto"

import type { Effect } from "effect"
import { Schema } from "effect"

export class MirrorError extends Schema.TaggedError<MirrorError>()("MirrorError", {
  message: Schema.String,
  cause: Schema.optionalKey(Schema.Defect())
}) {}

export const mirrorError = (what: string) => (cause: unknown) =>
  new MirrorError({ message: `${what}: ${cause instanceof Error ? cause.message : String(cause)}`, cause })

/** One object: what a reader of `path` gets from the service, without the headers a store cannot keep. */
export interface MirrorObject {
  readonly body: Uint8Array
  readonly contentType: string
  readonly cacheControl: string
}

/**
 * What tells two objects' bytes apart: the MD5 in hex, which is also the ETag S3 gives an object
 * uploaded in one part, so a listing says what is there without reading it back.
 */
export const digestOf = (body: Uint8Array) => createHash("md5").update(body).digest("hex")

export interface MirrorStore {
  /** For logs: the bucket and prefix, or the folder. */
  readonly describe: string
  /** The key under which the object for the public `path` is kept. */
  readonly keyOf: (path: string, contentType: string) => string
  /** Every object under the store's prefix, by key, with its digest. */
  readonly list: Effect.Effect<ReadonlyMap<string, string>, MirrorError>
  readonly put: (key: string, object: MirrorObject) => Effect.Effect<void, MirrorError>
  readonly remove: (keys: ReadonlyArray<string>) => Effect.Effect<void, MirrorError>
}
